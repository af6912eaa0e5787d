//! Elementwise math on real floats, with NumPy's results for the edge cases
//! (NaN-propagating maximum/minimum, floored `mod` and `//`, `sign(0) == 0`).

use super::float_scalar::*;
use super::map::{map1, map1_slices, map2, map2_slices, map3};
use super::map_bool::{compare, test, BoolOp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::vmath::kinds::{binary_loops, unary_loops};
use crate::kernels::vmath::{self, Elem, Func};
use crate::kernels::Work;
use crate::scalar::{ElemVisitor, ScalarKind};
use crate::tensor::{Element, Scalar, Tensor};
use num_traits::Float;

/// NumPy's `divmod` (`npy_divmod`): the floored quotient and the modulo
/// with the divisor's sign. The quotient comes from `(x - fmod(x, y)) / y`,
/// not `floor(x / y)`: the rounded `x / y` can cross an integer
/// (`1.0 // 0.1` is 9, while `floor(1.0 / 0.1)` is 10).
fn divmod<T: Float>(x: T, y: T) -> (T, T) {
    let mut m = x % y;
    if y == T::zero() {
        return (x / y, m);
    }
    let mut div = (x - m) / y;
    if m != T::zero() {
        if (y < T::zero()) != (m < T::zero()) {
            m = m + y;
            div = div - T::one();
        }
    } else {
        m = T::zero().copysign(y);
    }
    let q = if div != T::zero() {
        let f = div.floor();
        let half = T::from(0.5).unwrap_or_else(T::zero);
        if div - f > half {
            f + T::one()
        } else {
            f
        }
    } else {
        T::zero().copysign(x / y)
    };
    (q, m)
}

/// `np.floor_divide`.
fn floor_div<T: Float>(x: T, y: T) -> T {
    divmod(x, y).0
}

/// `np.mod`: floored modulo with the divisor's sign.
fn floor_mod<T: Float>(x: T, y: T) -> T {
    divmod(x, y).1
}

/// `np.sign`: zero (of either sign) gives +0, NaN stays NaN.
fn sign<T: Float>(x: T) -> T {
    if x > T::zero() {
        T::one()
    } else if x < T::zero() {
        -T::one()
    } else if x == T::zero() {
        T::zero()
    } else {
        x
    }
}

/// `np.round`: halfway cases go to the even neighbour; the sign of zero is kept.
fn round_half_to_even<T: Float>(x: T) -> T {
    let r = x.round();
    let two = T::one() + T::one();
    let tie = (r - x).abs() == T::one() / two;
    let r = if tie && r % two != T::zero() {
        r - (r - x) * two
    } else {
        r
    };
    r.copysign(x)
}

/// `np.round` on a tensor: the standard library's `round_ties_even` (one
/// `roundpd` in `map1`'s AVX2 build) for float32 and float64, the same
/// values as [`round_half_to_even`], whose `%` is a libm call per element
/// (measured on 1e6 float64: 0.5x NumPy's speed).
fn round_even<T: Float + Element>(a: &Tensor, out: &mut Tensor) {
    match T::DTYPE {
        DType::Float64 => map1(a, out, f64::round_ties_even),
        DType::Float32 => map1(a, out, f32::round_ties_even),
        _ => map1(a, out, round_half_to_even::<T>),
    }
}

/// `func` through vmath's vectorised loops (float32 and float64; libm per
/// element for other types). Strided operands go element by element
/// through the same loop, so every layout gives the same bits.
fn vectorised<T: Float + Element>(func: Func, a: &Tensor, out: &mut Tensor) {
    fn run<E: Elem + Element + Sync>(func: Func, a: &Tensor, out: &mut Tensor) {
        let one = |x: E| vmath::unary_one(func, x);
        map1_slices(a, out, Work::Heavy, one, |ys: &mut [E], xs: &[E]| {
            vmath::unary(func, ys, xs)
        });
    }
    match T::DTYPE {
        DType::Float64 => run::<f64>(func, a, out),
        DType::Float32 => run::<f32>(func, a, out),
        _ => map1(a, out, |x: T| vmath_fallback(func, x)),
    }
}

/// libm's `func` for float types vmath has no loops for.
fn vmath_fallback<T: Float + Element>(func: Func, x: T) -> T {
    match func {
        Func::Exp => exp(x),
        Func::Exp2 => exp2(x),
        Func::Expm1 => expm1(x),
        Func::Log => ln(x),
        Func::Log2 => log2(x),
        Func::Log10 => log10(x),
        Func::Log1p => ln_1p(x),
        Func::Sigmoid => sigmoid(x),
        Func::Softplus => softplus(x),
    }
}

/// `x ** y` through vmath's vectorised loops, as [`vectorised`].
fn pow_kernel<T: Float + Element>(a: &Tensor, b: &Tensor, out: &mut Tensor) {
    fn run<E: Elem + Element + Sync>(a: &Tensor, b: &Tensor, out: &mut Tensor) {
        let one = |x: E, y: E| vmath::pow_one(x, y);
        map2_slices(a, b, out, Work::Heavy, one, vmath::pow_slices::<E>);
    }
    if is_one_half(b) {
        // NumPy's `x ** 0.5` with one exponent is `sqrt(x)` (PyTensor
        // rewrites it so): -0 for -0 and NaN for -inf, where C's `pow`,
        // which an exponent array takes, gives +0 and +inf.
        return map1(a, out, |x: T| x.sqrt());
    }
    match T::DTYPE {
        DType::Float64 => run::<f64>(a, b, out),
        DType::Float32 => run::<f32>(a, b, out),
        _ => map2(a, b, out, pow::<T>),
    }
}

/// Whether `y` is a single exponent of 1/2: one element, or one element
/// broadcast (every stride 0, as a fused group's constant leaf is), so
/// that fused and unfused graphs agree.
fn is_one_half(y: &Tensor) -> bool {
    let one = y
        .shape()
        .iter()
        .zip(y.strides())
        .all(|(&n, &s)| n <= 1 || s == 0);
    one && !y.is_empty() && matches!(y.get(0), Scalar::Float(v, _) if v == 0.5)
}

/// PyTensor's `clip`: the bound that `x` passes, else `x` (a NaN `x` stays).
pub(crate) fn clip<T: PartialOrd + Copy>(x: T, lo: T, hi: T) -> T {
    // `lo` below `lo`, else `hi` above `hi`, else `x` (NaN stays), as two
    // selects rather than branches, so the loop vectorises (the branches
    // cost 2.5x NumPy's time on random data).
    let y = if x > hi { hi } else { x };
    if x < lo {
        lo
    } else {
        y
    }
}

/// [`clip`] of integer or bool inputs `[a, lo, hi]`: without `hi`, `a`
/// itself bounds it (no upper bound).
pub(super) fn clip_inputs<T: Element + PartialOrd>(ins: &[&Tensor], lo: &Tensor, out: &mut Tensor) {
    let a = ins[0];
    map3(a, lo, ins.get(2).copied().unwrap_or(a), out, clip::<T>);
}

/// The trigonometric, hyperbolic, rounding and logarithm kinds, or `None`.
fn apply_elementary<T: Float + Element>(
    k: ScalarKind,
    ins: &[&Tensor],
    out: &mut Tensor,
) -> Option<()> {
    use ScalarKind::*;
    let a = ins[0];
    let degree = T::from(std::f64::consts::PI / 180.0)?;
    match k {
        RoundHalfToEven => round_even::<T>(a, out),
        RoundHalfAwayFromZero => map1(a, out, |x: T| x.round()),
        Deg2Rad => map1(a, out, |x: T| x * degree),
        Rad2Deg => map1(a, out, |x: T| x / degree),
        Clip => map3(a, *ins.get(1)?, *ins.get(2)?, out, clip::<T>),
        // The angle of a real number: 0, or π for negative numbers and -0.
        Angle => map1(a, out, |x: T| T::zero().atan2(x)),
        _ => return None,
    }
    Some(())
}

/// The kinds with vectorised loops (`vmath`), or `None`.
fn apply_vmath<T: Element>(k: ScalarKind, ins: &[&Tensor], out: &mut Tensor) -> Option<()> {
    let a = ins[0];
    if let Some(l) = unary_loops(k) {
        match T::DTYPE {
            DType::Float64 => map1_slices(a, out, Work::Heavy, l.one64, l.slice64),
            DType::Float32 => map1_slices(a, out, Work::Heavy, l.one32, l.slice32),
            _ => return None,
        }
    } else {
        let (l, b) = (binary_loops(k)?, *ins.get(1)?);
        match T::DTYPE {
            DType::Float64 => map2_slices(a, b, out, Work::Heavy, l.one64, l.slice64),
            DType::Float32 => map2_slices(a, b, out, Work::Heavy, l.one32, l.slice32),
            _ => return None,
        }
    }
    Some(())
}

/// The generic float path: a kind's element function from the scalar
/// table (`scalar/table.rs`), mapped over the inputs (folded over more
/// than two for `add` and `mul`).
struct Generic<'a, 'o> {
    ins: &'a [&'a Tensor],
    out: &'o mut Tensor,
}

impl<T: Float + Element> ElemVisitor<T> for Generic<'_, '_> {
    type Out = Result<()>;
    fn unary(self, f: impl Fn(T) -> T + Sync + Copy) -> Result<()> {
        let a = self
            .ins
            .first()
            .ok_or_else(|| Error::Type("no input".into()))?;
        map1(a, self.out, f);
        Ok(())
    }
    fn binary(self, f: impl Fn(T, T) -> T + Sync + Copy) -> Result<()> {
        super::fold(self.ins, self.out, f)
    }
}

/// Runs `k` on float inputs of type `T` into `out`: the kinds with a
/// kernel of their own (vmath's vector loops, NumPy's edge cases), else
/// the table's element function ([`Generic`]).
pub(crate) fn apply<T: Float + Element>(
    k: ScalarKind,
    ins: &[&Tensor],
    out: &mut Tensor,
) -> Result<()> {
    use ScalarKind::*;
    let (a, b) = (ins[0], ins.get(1).copied());
    let two = || b.ok_or_else(|| Error::Type(format!("{} needs two inputs", k.name())));
    match k {
        IntDiv => map2(a, two()?, out, floor_div::<T>),
        Mod => map2(a, two()?, out, floor_mod::<T>),
        Pow => pow_kernel::<T>(a, two()?, out),
        Maximum => map2(a, two()?, out, nan_max::<T>),
        Minimum => map2(a, two()?, out, nan_min::<T>),
        Lt => compare::<T>(BoolOp::Lt, a, two()?, out),
        Gt => compare::<T>(BoolOp::Gt, a, two()?, out),
        Le => compare::<T>(BoolOp::Le, a, two()?, out),
        Ge => compare::<T>(BoolOp::Ge, a, two()?, out),
        Eq => compare::<T>(BoolOp::Eq, a, two()?, out),
        Neq => compare::<T>(BoolOp::Neq, a, two()?, out),
        Sign => map1(a, out, sign::<T>),
        Exp => vectorised::<T>(Func::Exp, a, out),
        Exp2 => vectorised::<T>(Func::Exp2, a, out),
        Expm1 => vectorised::<T>(Func::Expm1, a, out),
        Log => vectorised::<T>(Func::Log, a, out),
        Log2 => vectorised::<T>(Func::Log2, a, out),
        Log10 => vectorised::<T>(Func::Log10, a, out),
        Log1p => vectorised::<T>(Func::Log1p, a, out),
        Sigmoid => vectorised::<T>(Func::Sigmoid, a, out),
        Softplus => vectorised::<T>(Func::Softplus, a, out),
        IsNan => test::<T>(BoolOp::IsNan, a, out),
        IsInf => test::<T>(BoolOp::IsInf, a, out),
        other => {
            if let Some(done) = other.visit_float::<T, _>(Generic { ins, out }) {
                return done;
            }
            if apply_vmath::<T>(other, ins, out).is_none()
                && apply_elementary::<T>(other, ins, out).is_none()
            {
                return Err(Error::Type(format!(
                    "{} is not defined for {} inputs",
                    other.name(),
                    T::DTYPE
                )));
            }
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
        assert!(sign(-0.0f64).is_sign_positive());
        assert_eq!(softplus(-100.0f64), exp(-100.0f64));
        assert_eq!(softplus(100.0f64), 100.0);
        let rounded: Vec<f64> = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -0.4]
            .map(round_half_to_even)
            .to_vec();
        assert_eq!(rounded, vec![-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 3.0, -0.0]);
        assert!(round_half_to_even(-0.5f64).is_sign_negative());
        for x in [
            -2.5f64,
            -1.5,
            -0.5,
            -0.4,
            -0.0,
            0.0,
            0.5,
            1.5,
            2.5,
            2.6,
            4.5e15,
            f64::NAN,
        ] {
            let (a, b) = (round_half_to_even(x), x.round_ties_even());
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{x}"
            );
        }
        assert!(clip(f64::NAN, 0.0, 1.0).is_nan());
        assert_eq!(clip(5, 0, 1), 1);
    }

    #[test]
    fn divmod_matches_numpy() {
        // (x, y, x // y, x % y) as NumPy computes them.
        let inf = f64::INFINITY;
        let cases = [
            (1.0, 0.1, 9.0, 0.09999999999999995),
            (-7.0, 2.0, -4.0, 1.0),
            (7.0, -2.0, -4.0, -1.0),
            (-5.0, inf, -1.0, inf),
            (5.0, inf, 0.0, 5.0),
            (-7.0, 0.0, -inf, f64::NAN),
            (6.0, -3.0, -2.0, -0.0),
        ];
        let same = |a: f64, b: f64| a == b && a.is_sign_negative() == b.is_sign_negative();
        for (x, y, q, r) in cases {
            let (gq, gr) = divmod(x, y);
            assert!(same(gq, q), "{x} // {y}: {gq} != {q}");
            assert!(
                same(gr, r) || (gr.is_nan() && r.is_nan()),
                "{x} % {y}: {gr} != {r}"
            );
        }
        assert!(floor_div(inf, 3.0).is_nan());
        assert!(floor_mod(inf, 3.0).is_nan());
        assert_eq!(floor_div(1.0f32, 0.1), 9.0);
    }
}
