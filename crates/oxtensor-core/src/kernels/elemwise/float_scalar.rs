//! The float elementwise kinds as functions of single elements, for callers
//! that compute a handful of elements and cannot afford a kernel dispatch
//! per node (see `tiny.rs`). `float_ops::apply` maps these same functions
//! over tensors, so both give the same bits; a test below checks every
//! kind listed here against the tensor kernel on edge values.

use crate::dtype::DType;
use crate::kernels::vmath::kinds::{binary_loops, unary_loops};
use crate::kernels::vmath::{self, Func};
use crate::scalar::ScalarKind;
use crate::tensor::Element;
use num_traits::Float;

pub use crate::scalar::ScalarFn;

/// `k`'s function on `T`, when it is one of the plain kinds (not kinds
/// with integer or boolean results): the vector loops' one-element forms,
/// else the scalar table's element function.
pub fn scalar_fn<T: Float + Element>(k: ScalarKind) -> Option<ScalarFn<T>> {
    use ScalarFn::*;
    use ScalarKind::*;
    Some(match k {
        Pow => Binary(pow::<T>),
        Maximum => Binary(nan_max::<T>),
        Minimum => Binary(nan_min::<T>),
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
        Tanh => Unary(tanh::<T>),
        ArcSinh => Unary(arcsinh::<T>),
        ArcCosh => Unary(arccosh::<T>),
        ArcTanh => Unary(arctanh::<T>),
        Sigmoid => Unary(sigmoid::<T>),
        Softplus => Unary(softplus::<T>),
        // The rest: the table's element function, if it has one.
        other => return other.float_fn(),
    })
}

/// `func` as the float32 and float64 kernels compute it (vmath's loops, so
/// both give the same bits), libm's `other` for other types.
fn vm<T: Float + Element>(func: Func, x: T, other: fn(T) -> T) -> T {
    match T::DTYPE {
        DType::Float64 => x.to_f64().and_then(|x| T::from(vmath::unary_one(func, x))),
        DType::Float32 => x.to_f32().and_then(|x| T::from(vmath::unary_one(func, x))),
        _ => Some(other(x)),
    }
    .unwrap_or_else(T::nan)
}

pub(crate) fn pow<T: Float + Element>(x: T, y: T) -> T {
    let (a, b) = (x.to_f64(), y.to_f64());
    match T::DTYPE {
        DType::Float64 => a.zip(b).and_then(|(a, b)| T::from(vmath::pow_one(a, b))),
        DType::Float32 => a
            .zip(b)
            .and_then(|(a, b)| T::from(vmath::pow_one(a as f32, b as f32))),
        _ => Some(x.powf(y)),
    }
    .unwrap_or_else(T::nan)
}
/// One-element functions of vmath's `Func`s (libm's `method` for types
/// other than float32 and float64).
macro_rules! vm_fns {
    ($($name:ident => $func:ident, $method:ident);* $(;)?) => {$(
        pub(crate) fn $name<T: Float + Element>(x: T) -> T {
            vm(Func::$func, x, |x| x.$method())
        }
    )*};
}

vm_fns!(
    exp => Exp, exp; exp2 => Exp2, exp2; expm1 => Expm1, exp_m1; ln => Log, ln;
    log2 => Log2, log2; log10 => Log10, log10; ln_1p => Log1p, ln_1p;
);

/// `k`'s vectorised loop (`vmath::kinds`) on one element of `T`, float32
/// or float64 (the bits the tensor kernel gives; NaN for other types,
/// which never reach here: `TinyProgram` computes in float32 or float64).
fn vector_one<T: Float + Element>(k: ScalarKind, x: T) -> T {
    let l = unary_loops(k);
    match T::DTYPE {
        DType::Float64 => l.zip(x.to_f64()).and_then(|(l, x)| T::from((l.one64)(x))),
        DType::Float32 => l.zip(x.to_f32()).and_then(|(l, x)| T::from((l.one32)(x))),
        _ => None,
    }
    .unwrap_or_else(T::nan)
}

/// [`vector_one`] for a binary kind.
fn vector_two<T: Float + Element>(k: ScalarKind, x: T, y: T) -> T {
    let l = binary_loops(k);
    match T::DTYPE {
        DType::Float64 => l
            .zip(x.to_f64().zip(y.to_f64()))
            .and_then(|(l, (x, y))| T::from((l.one64)(x, y))),
        DType::Float32 => l
            .zip(x.to_f32().zip(y.to_f32()))
            .and_then(|(l, (x, y))| T::from((l.one32)(x, y))),
        _ => None,
    }
    .unwrap_or_else(T::nan)
}

/// One-element functions of the kinds `vmath::kinds` has loops for.
macro_rules! vector_fns {
    ($($name:ident => $kind:ident),* $(,)?) => {$(
        fn $name<T: Float + Element>(x: T) -> T {
            vector_one(ScalarKind::$kind, x)
        }
    )*};
}

vector_fns!(
    sin => Sin, cos => Cos, tan => Tan, arcsin => ArcSin, arccos => ArcCos, arctan => ArcTan, sinh => Sinh,
    cosh => Cosh, tanh => Tanh, arcsinh => ArcSinh, arccosh => ArcCosh, arctanh => ArcTanh,
);

fn arctan2<T: Float + Element>(y: T, x: T) -> T {
    vector_two(ScalarKind::ArcTan2, y, x)
}
pub(crate) fn sigmoid<T: Float + Element>(x: T) -> T {
    vm(Func::Sigmoid, x, |x| T::one() / (T::one() + (-x).exp()))
}

/// `log(1 + exp(x))` without overflow (vmath's `max(x, 0) + log1p(e^-|x|)`
/// for float32 and float64, PyTensor's cut-offs for other types).
pub(crate) fn softplus<T: Float + Element>(x: T) -> T {
    vm(Func::Softplus, x, |x| {
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
    })
}

/// NumPy's `maximum`: NaN if either is NaN.
pub(crate) fn nan_max<T: Float>(x: T, y: T) -> T {
    if x.is_nan() || y.is_nan() {
        T::nan()
    } else if x >= y {
        x
    } else {
        y
    }
}

/// NumPy's `minimum`: NaN if either is NaN.
pub(crate) fn nan_min<T: Float>(x: T, y: T) -> T {
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
    use super::super::run_kind;
    use super::*;
    use crate::dtype::DType;
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
            let mut out = Tensor::uninit(T::DTYPE, &[n]).unwrap();
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
        assert!(scalar_fn::<f32>(ScalarKind::Erf).is_none());
        assert!(matches!(
            scalar_fn::<f64>(ScalarKind::Add),
            Some(ScalarFn::Binary(_))
        ));
        assert_eq!(DType::Float64, f64::DTYPE);
    }
}
