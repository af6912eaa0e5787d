//! Elementwise math on real floats, with NumPy's results for the edge cases
//! (NaN-propagating maximum/minimum, floored `mod` and `//`, `sign(0) == 0`).

use super::map::{map1, map2};
use crate::error::{Error, Result};
use crate::ops::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};
use num_traits::Float;

/// Floored modulo with the divisor's sign (`np.mod`).
fn floor_mod<T: Float>(x: T, y: T) -> T {
    let r = x % y;
    if r != T::zero() && (r < T::zero()) != (y < T::zero()) {
        r + y
    } else {
        r
    }
}

fn sign<T: Float>(x: T) -> T {
    if x > T::zero() {
        T::one()
    } else if x < T::zero() {
        -T::one()
    } else {
        x
    }
}

/// `log(1 + exp(x))` without overflow, with PyTensor's cut-offs.
fn softplus<T: Float>(x: T) -> T {
    let c = |v: f64| T::from(v).unwrap_or_else(T::zero);
    if x < c(-37.0) {
        x.exp()
    } else if x < c(18.0) {
        x.exp().ln_1p()
    } else if x < c(33.3) {
        x + (-x).exp()
    } else {
        x
    }
}

fn nan_max<T: Float>(x: T, y: T) -> T {
    if x.is_nan() || y.is_nan() {
        T::nan()
    } else if x >= y {
        x
    } else {
        y
    }
}

fn nan_min<T: Float>(x: T, y: T) -> T {
    if x.is_nan() || y.is_nan() {
        T::nan()
    } else if x <= y {
        x
    } else {
        y
    }
}

/// Runs `k` on float inputs of type `T` into `out`.
pub(super) fn apply<T: Float + Element>(
    k: ScalarKind,
    ins: &[Tensor],
    out: &mut Tensor,
) -> Result<()> {
    use ScalarKind::*;
    let (a, b) = (&ins[0], ins.get(1));
    let two = || b.ok_or_else(|| Error::Type(format!("{} needs two inputs", k.name())));
    match k {
        Sub => map2(a, two()?, out, |x: T, y: T| x - y),
        TrueDiv => map2(a, two()?, out, |x: T, y: T| x / y),
        IntDiv => map2(a, two()?, out, |x: T, y: T| (x / y).floor()),
        Mod => map2(a, two()?, out, floor_mod::<T>),
        Pow => map2(a, two()?, out, |x: T, y: T| x.powf(y)),
        Maximum => map2(a, two()?, out, nan_max::<T>),
        Minimum => map2(a, two()?, out, nan_min::<T>),
        Lt => map2(a, two()?, out, |x: T, y: T| x < y),
        Gt => map2(a, two()?, out, |x: T, y: T| x > y),
        Le => map2(a, two()?, out, |x: T, y: T| x <= y),
        Ge => map2(a, two()?, out, |x: T, y: T| x >= y),
        Eq => map2(a, two()?, out, |x: T, y: T| x == y),
        Neq => map2(a, two()?, out, |x: T, y: T| x != y),
        Neg => map1(a, out, |x: T| -x),
        Abs => map1(a, out, |x: T| x.abs()),
        Sign => map1(a, out, sign::<T>),
        Sqr => map1(a, out, |x: T| x * x),
        Sqrt => map1(a, out, |x: T| x.sqrt()),
        Exp => map1(a, out, |x: T| x.exp()),
        Log => map1(a, out, |x: T| x.ln()),
        Log1p => map1(a, out, |x: T| x.ln_1p()),
        Expm1 => map1(a, out, |x: T| x.exp_m1()),
        Sin => map1(a, out, |x: T| x.sin()),
        Cos => map1(a, out, |x: T| x.cos()),
        Tan => map1(a, out, |x: T| x.tan()),
        Tanh => map1(a, out, |x: T| x.tanh()),
        Sigmoid => map1(a, out, |x: T| T::one() / (T::one() + (-x).exp())),
        Softplus => map1(a, out, softplus::<T>),
        Reciprocal => map1(a, out, |x: T| x.recip()),
        Floor => map1(a, out, |x: T| x.floor()),
        Ceil => map1(a, out, |x: T| x.ceil()),
        IsNan => map1(a, out, |x: T| x.is_nan()),
        IsInf => map1(a, out, |x: T| x.is_infinite()),
        Add => super::elemwise::fold(ins, out, |x: T, y: T| x + y),
        Mul => super::elemwise::fold(ins, out, |x: T, y: T| x * y),
        other => {
            return Err(Error::Type(format!(
                "{} is not defined for {} inputs",
                other.name(),
                T::DTYPE
            )))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_edge_cases() {
        assert_eq!(floor_mod(-7.0f64, 3.0), 2.0);
        assert_eq!(floor_mod(7.0f64, -3.0), -2.0);
        assert!(nan_max(f64::NAN, 1.0).is_nan());
        assert_eq!(sign(-0.0f64), 0.0);
        assert_eq!(softplus(-100.0f64), (-100.0f64).exp());
        assert_eq!(softplus(100.0f64), 100.0);
    }
}
