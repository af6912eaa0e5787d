//! Comparing values: exactly (was an input changed?) and within a
//! tolerance derived from the dtype (does a result match the
//! `FAST_COMPILE` one?). The tolerances are NumPy's `allclose` defaults for
//! 64-bit floats and looser ones for narrower floats, since the two
//! programs may sum in different orders (fused loops, reassociated
//! reductions); integers and bools must be equal.

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Scalar, Tensor};

/// `(atol, rtol)` for comparing results of this dtype.
pub fn tolerance(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::Float16 => (1e-2, 1e-2),
        DType::Float32 | DType::Complex64 => (1e-5, 1e-4),
        DType::Float64 | DType::Complex128 => (1e-8, 1e-5),
        _ => (0.0, 0.0),
    }
}

/// Whether `a` and `b` hold the same bytes in the same layout order
/// (NaN payloads and signed zeros included): the test for "unchanged".
pub fn same_bytes(a: &Tensor, b: &Tensor) -> Result<bool> {
    Ok(a.dtype() == b.dtype() && a.shape() == b.shape() && a.to_c_bytes()? == b.to_c_bytes()?)
}

/// How many elements differ between two tensors of one dtype and shape,
/// and the largest absolute difference (for messages).
pub fn differences(a: &Tensor, b: &Tensor) -> (usize, f64) {
    let (mut n, mut worst) = (0, 0.0f64);
    for i in 0..a.len().min(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        if !same_scalar(x, y) {
            n += 1;
            worst = worst.max(distance(x, y));
        }
    }
    (n, worst)
}

fn same_scalar(x: Scalar, y: Scalar) -> bool {
    match (x, y) {
        (Scalar::Float(a, _), Scalar::Float(b, _)) => a == b || (a.is_nan() && b.is_nan()),
        (Scalar::Complex(a, b, _), Scalar::Complex(c, d, _)) => {
            (a == c || (a.is_nan() && c.is_nan())) && (b == d || (b.is_nan() && d.is_nan()))
        }
        _ => x == y,
    }
}

fn parts(x: Scalar) -> (f64, f64) {
    match x {
        Scalar::Bool(b) => (f64::from(u8::from(b)), 0.0),
        Scalar::Int(i) => (i as f64, 0.0),
        Scalar::UInt(u) => (u as f64, 0.0),
        Scalar::Float(f, _) => (f, 0.0),
        Scalar::Complex(re, im, _) => (re, im),
    }
}

fn distance(x: Scalar, y: Scalar) -> f64 {
    let ((a, b), (c, d)) = (parts(x), parts(y));
    (a - c).hypot(b - d)
}

/// Whether `got` is close enough to `expected` (same dtype and shape;
/// elements within `atol + rtol * |expected|`, NaN matching NaN). A finite
/// result where the reference is infinite or NaN passes: `FAST_RUN`'s
/// stabilizing rewrites (`log1p`, `softplus`, ...) exist to give one.
pub fn allclose(got: &Tensor, expected: &Tensor) -> bool {
    if got.dtype() != expected.dtype() || got.shape() != expected.shape() {
        return false;
    }
    let (atol, rtol) = tolerance(got.dtype());
    (0..got.len()).all(|i| {
        let (g, e) = (got.get(i), expected.get(i));
        if same_scalar(g, e) {
            return true;
        }
        let ((er, ei), (gr, gi)) = (parts(e), parts(g));
        if !(er.is_finite() && ei.is_finite()) {
            return gr.is_finite() && gi.is_finite();
        }
        distance(g, e) <= atol + rtol * er.hypot(ei)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(v: Vec<f64>) -> Tensor {
        Tensor::from_vec(vec![v.len()], v).unwrap()
    }

    #[test]
    fn exact_comparison_sees_any_change() {
        let a = f64s(vec![1.0, f64::NAN, 0.0]);
        assert!(same_bytes(&a, &a.clone()).unwrap());
        assert!(!same_bytes(&a, &f64s(vec![1.0, f64::NAN, -0.0])).unwrap());
        let b = f64s(vec![1.0, f64::NAN, 2.5]);
        assert_eq!(differences(&a, &b), (1, 2.5));
        let t = Tensor::from_vec(vec![2, 2], vec![1i32, 2, 3, 4]).unwrap();
        let tr = t.view(&[2, 2], &[4, 8], 0).unwrap();
        assert!(!same_bytes(&t, &tr).unwrap(), "compared in C order");
    }

    #[test]
    fn tolerance_follows_the_dtype() {
        let e = f64s(vec![1.0, 1e6, f64::NAN, f64::INFINITY]);
        assert!(allclose(
            &f64s(vec![1.0 + 1e-9, 1e6 + 1.0, f64::NAN, 5.0]),
            &e
        ));
        assert!(!allclose(&f64s(vec![1.001, 1e6, f64::NAN, 5.0]), &e));
        assert!(
            !allclose(&f64s(vec![f64::NAN, 1e6, f64::NAN, 5.0]), &e),
            "NaN where finite expected"
        );
        assert!(
            allclose(&f64s(vec![1.0, 1e6, 0.0, 5.0]), &e),
            "finite where the reference is NaN"
        );
        let f = |v: f32| Tensor::from_vec(vec![1], vec![v]).unwrap();
        assert!(allclose(&f(1.00005), &f(1.0)));
        assert!(!allclose(&f(1.01), &f(1.0)));
        let i = |v: i64| Tensor::from_vec(vec![1], vec![v]).unwrap();
        assert!(!allclose(&i(1), &i(2)));
        assert!(!allclose(&f64s(vec![1.0]), &f64s(vec![1.0, 1.0])), "shape");
    }
}
