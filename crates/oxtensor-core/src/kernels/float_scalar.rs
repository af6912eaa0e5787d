//! The float elementwise kinds as functions of single elements, for callers
//! that compute a handful of elements and cannot afford a kernel dispatch
//! per node (see `tiny.rs`). `float_ops::apply` maps these same functions
//! over tensors, so both give the same bits; a test below checks every
//! kind listed here against the tensor kernel on edge values.

use super::vmath::kinds::{binary_loops, unary_loops};
use crate::ops::scalar::ScalarKind;
use num_traits::Float;

/// A kind's function of one element.
#[derive(Clone, Copy, Debug)]
pub enum ScalarFn<T> {
    /// A function of one element.
    Unary(fn(T) -> T),
    /// Applied left to right over more than two operands (`add` and `mul`
    /// take any number), as the tensor kernel folds them.
    Binary(fn(T, T) -> T),
}

/// `k`'s function on `T`, when it is one of the plain kinds (not `tanh`,
/// whose float32 kernel is a vectorised approximation, nor kinds with
/// integer or boolean results).
pub fn scalar_fn<T: Float>(k: ScalarKind) -> Option<ScalarFn<T>> {
    use ScalarFn::*;
    use ScalarKind::*;
    Some(match k {
        Add => Binary(add::<T>),
        Sub => Binary(sub::<T>),
        Mul => Binary(mul::<T>),
        TrueDiv => Binary(div::<T>),
        Pow => Binary(pow::<T>),
        Maximum => Binary(nan_max::<T>),
        Minimum => Binary(nan_min::<T>),
        Neg => Unary(neg::<T>),
        Abs => Unary(abs::<T>),
        Sqr => Unary(sqr::<T>),
        Sqrt => Unary(sqrt::<T>),
        Exp => Unary(exp::<T>),
        Exp2 => Unary(exp2::<T>),
        Expm1 => Unary(expm1::<T>),
        Log => Unary(ln::<T>),
        Log2 => Unary(log2::<T>),
        Log10 => Unary(log10::<T>),
        Log1p => Unary(ln_1p::<T>),
        Sin => Unary(sin::<T>),
        Cos => Unary(cos::<T>),
        Tan => Unary(tan::<T>),
        ArcSin => Unary(arcsin::<T>),
        ArcCos => Unary(arccos::<T>),
        ArcTan => Unary(arctan::<T>),
        ArcTan2 => Binary(arctan2::<T>),
        Sinh => Unary(sinh::<T>),
        Cosh => Unary(cosh::<T>),
        Sigmoid => Unary(sigmoid::<T>),
        Softplus => Unary(softplus::<T>),
        Reciprocal => Unary(recip::<T>),
        _ => return None,
    })
}

pub(super) fn add<T: Float>(x: T, y: T) -> T {
    x + y
}
pub(super) fn sub<T: Float>(x: T, y: T) -> T {
    x - y
}
pub(super) fn mul<T: Float>(x: T, y: T) -> T {
    x * y
}
pub(super) fn div<T: Float>(x: T, y: T) -> T {
    x / y
}
pub(super) fn pow<T: Float>(x: T, y: T) -> T {
    x.powf(y)
}
pub(super) fn neg<T: Float>(x: T) -> T {
    -x
}
pub(super) fn abs<T: Float>(x: T) -> T {
    x.abs()
}
pub(super) fn sqr<T: Float>(x: T) -> T {
    x * x
}
pub(super) fn sqrt<T: Float>(x: T) -> T {
    x.sqrt()
}
pub(super) fn exp<T: Float>(x: T) -> T {
    x.exp()
}
pub(super) fn exp2<T: Float>(x: T) -> T {
    x.exp2()
}
pub(super) fn expm1<T: Float>(x: T) -> T {
    x.exp_m1()
}
pub(super) fn ln<T: Float>(x: T) -> T {
    x.ln()
}
pub(super) fn log2<T: Float>(x: T) -> T {
    x.log2()
}
pub(super) fn log10<T: Float>(x: T) -> T {
    x.log10()
}
pub(super) fn ln_1p<T: Float>(x: T) -> T {
    x.ln_1p()
}
pub(super) fn sin<T: Float>(x: T) -> T {
    x.sin()
}
pub(super) fn cos<T: Float>(x: T) -> T {
    x.cos()
}

/// `k`'s vectorised loop (`vmath`) on one element of `T`, float32 or
/// float64: the bits the tensor kernel gives.
fn vector_one<T: Float>(k: ScalarKind, x: T) -> T {
    let Some(l) = unary_loops(k) else {
        return T::nan();
    };
    let y = if std::mem::size_of::<T>() == 4 {
        T::from((l.one32)(x.to_f32().unwrap_or(f32::NAN)))
    } else {
        T::from((l.one64)(x.to_f64().unwrap_or(f64::NAN)))
    };
    y.unwrap_or_else(T::nan)
}

/// [`vector_one`] for a binary kind.
fn vector_two<T: Float>(k: ScalarKind, x: T, y: T) -> T {
    let Some(l) = binary_loops(k) else {
        return T::nan();
    };
    let z = if std::mem::size_of::<T>() == 4 {
        let f = |v: T| v.to_f32().unwrap_or(f32::NAN);
        T::from((l.one32)(f(x), f(y)))
    } else {
        let f = |v: T| v.to_f64().unwrap_or(f64::NAN);
        T::from((l.one64)(f(x), f(y)))
    };
    z.unwrap_or_else(T::nan)
}

fn tan<T: Float>(x: T) -> T {
    vector_one(ScalarKind::Tan, x)
}
fn arcsin<T: Float>(x: T) -> T {
    vector_one(ScalarKind::ArcSin, x)
}
fn arccos<T: Float>(x: T) -> T {
    vector_one(ScalarKind::ArcCos, x)
}
fn arctan<T: Float>(x: T) -> T {
    vector_one(ScalarKind::ArcTan, x)
}
fn arctan2<T: Float>(y: T, x: T) -> T {
    vector_two(ScalarKind::ArcTan2, y, x)
}
pub(super) fn sinh<T: Float>(x: T) -> T {
    x.sinh()
}
pub(super) fn cosh<T: Float>(x: T) -> T {
    x.cosh()
}
pub(super) fn sigmoid<T: Float>(x: T) -> T {
    T::one() / (T::one() + (-x).exp())
}
pub(super) fn recip<T: Float>(x: T) -> T {
    x.recip()
}

/// `log(1 + exp(x))` without overflow, with PyTensor's cut-offs.
pub(super) fn softplus<T: Float>(x: T) -> T {
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

/// NumPy's `maximum`: NaN if either is NaN.
pub(super) fn nan_max<T: Float>(x: T, y: T) -> T {
    if x.is_nan() || y.is_nan() {
        T::nan()
    } else if x >= y {
        x
    } else {
        y
    }
}

/// NumPy's `minimum`: NaN if either is NaN.
pub(super) fn nan_min<T: Float>(x: T, y: T) -> T {
    if x.is_nan() || y.is_nan() {
        T::nan()
    } else if x <= y {
        x
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::kernels::elemwise::run_kind;
    use crate::tensor::{Element, Tensor};

    const EDGES: [f64; 14] = [
        -40.0,
        -2.5,
        -1.0,
        -0.5,
        -0.0,
        0.0,
        1e-300,
        0.3,
        1.0,
        2.0,
        20.0,
        40.0,
        1e300,
        f64::NAN,
    ];

    /// Every kind with a scalar function, against the tensor kernel, on
    /// every pair of edge values (same bits, NaN for NaN).
    fn same_as_kernel<T: Float + Element + std::fmt::Debug>() {
        let all: Vec<T> = EDGES.iter().map(|&v| T::from(v).unwrap()).collect();
        let xs: Vec<T> = all
            .iter()
            .flat_map(|&x| all.iter().map(move |_| x))
            .collect();
        let ys: Vec<T> = all.iter().flat_map(|_| all.iter().copied()).collect();
        let n = xs.len();
        let a = Tensor::from_vec(vec![n], xs.clone()).unwrap();
        let b = Tensor::from_vec(vec![n], ys.clone()).unwrap();
        for k in ScalarKind::ALL {
            let Some(f) = scalar_fn::<T>(*k) else {
                continue;
            };
            let (want, ins): (Vec<T>, Vec<&Tensor>) = match f {
                ScalarFn::Unary(f) => (xs.iter().map(|&x| f(x)).collect(), vec![&a]),
                ScalarFn::Binary(f) => (
                    xs.iter().zip(&ys).map(|(&x, &y)| f(x, y)).collect(),
                    vec![&a, &b],
                ),
            };
            let mut out = Tensor::uninit(T::DTYPE, &[n]);
            run_kind(*k, T::DTYPE, &ins, &mut out).unwrap();
            let got = out.as_slice::<T>().unwrap();
            for i in 0..n {
                let same = got[i] == want[i] || (got[i].is_nan() && want[i].is_nan());
                let signs = got[i].is_sign_negative() == want[i].is_sign_negative();
                assert!(
                    same && (signs || got[i].is_nan()),
                    "{k:?}({:?}, {:?}): {:?} vs {:?}",
                    xs[i],
                    ys[i],
                    got[i],
                    want[i]
                );
            }
        }
    }

    #[test]
    fn scalar_functions_match_the_tensor_kernels() {
        same_as_kernel::<f64>();
        same_as_kernel::<f32>();
        assert!(scalar_fn::<f32>(ScalarKind::Tanh).is_none());
        assert!(matches!(
            scalar_fn::<f64>(ScalarKind::Add),
            Some(ScalarFn::Binary(_))
        ));
        assert_eq!(DType::Float64, f64::DTYPE);
    }
}
