//! The matrix exponential, SciPy's `expm`: Higham's scaling and squaring
//! with the degree-13 Padé approximant ("The scaling and squaring method
//! for the matrix exponential revisited", 2005). The input is scaled by
//! `2^-s` so its 1-norm is at most `θ13`, where the approximant's error is
//! below the unit roundoff in float64; `r13 = (V - U)⁻¹ (V + U)` is squared
//! `s` times. The lower-degree approximants Higham uses for small norms
//! only save time, and are not used.
//!
//! The gradient is the Fréchet derivative at `Aᵀ` in the direction of the
//! output's gradient `G`: the upper-right block of
//! `expm([[Aᵀ, G], [0, Aᵀ]])` (Higham, "Functions of Matrices", 3.2).

use super::{by_float, check_square, from_faer, matrix_dims, solve, to_faer, Real};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use faer::Mat;

/// `θ13`: the largest 1-norm for which `r13` is accurate in float64.
const THETA_13: f64 = 5.371_920_351_148_152;

/// The coefficients of the degree-13 Padé approximant's numerator.
const B: [f64; 14] = [
    64_764_752_532_480_000.0,
    32_382_376_266_240_000.0,
    7_771_770_303_897_600.0,
    1_187_353_796_428_800.0,
    129_060_195_264_000.0,
    10_559_470_521_600.0,
    670_442_572_800.0,
    33_522_128_640.0,
    1_323_241_920.0,
    40_840_800.0,
    960_960.0,
    16_380.0,
    182.0,
    1.0,
];

/// `Σ c_k M_k` plus `c_I I`, the sums the approximant is made of.
fn combine<T: Real>(n: usize, terms: &[(f64, &Mat<T>)], identity: f64) -> Mat<T> {
    Mat::from_fn(n, n, |i, j| {
        let mut v = if i == j {
            T::from_f64_impl(identity)
        } else {
            T::zero_impl()
        };
        for (c, m) in terms {
            v = v + T::from_f64_impl(*c) * m[(i, j)];
        }
        v
    })
}

fn expm_mat<T: Real>(a: &Mat<T>, dtype: DType) -> Result<Mat<T>> {
    let n = a.nrows();
    let norm1 = (0..n)
        .map(|j| {
            (0..n)
                .map(|i| num_traits::Float::abs(a[(i, j)]))
                .fold(T::zero_impl(), |x, y| x + y)
        })
        .fold(T::zero_impl(), num_traits::Float::max);
    let ratio = num_traits::ToPrimitive::to_f64(&norm1).unwrap_or(f64::INFINITY) / THETA_13;
    let s = if ratio > 1.0 {
        ratio.log2().ceil() as i32
    } else {
        0
    };
    let scale = 0.5f64.powi(s);
    let a = combine(n, &[(scale, a)], 0.0);
    let a2 = &a * &a;
    let a4 = &a2 * &a2;
    let a6 = &a4 * &a2;
    let u_high = combine(n, &[(B[13], &a6), (B[11], &a4), (B[9], &a2)], 0.0);
    let u_low = combine(n, &[(B[7], &a6), (B[5], &a4), (B[3], &a2)], B[1]);
    let u = &a * (&a6 * &u_high + &u_low);
    let v_high = combine(n, &[(B[12], &a6), (B[10], &a4), (B[8], &a2)], 0.0);
    let v_low = combine(n, &[(B[6], &a6), (B[4], &a4), (B[2], &a2)], B[0]);
    let v = &a6 * &v_high + &v_low;
    let p = from_faer((&v - &u).as_ref(), vec![n, n])?;
    let q = from_faer((&v + &u).as_ref(), vec![n, n])?;
    let mut r = to_faer::<T>(&solve(&p, &q, dtype)?)?;
    for _ in 0..s {
        r = &r * &r;
    }
    Ok(r)
}

fn expm_t<T: Real>(a: &Tensor, dtype: DType) -> Result<Tensor> {
    check_square(a)?;
    let n = matrix_dims(a).0;
    from_faer(expm_mat(&to_faer::<T>(a)?, dtype)?.as_ref(), vec![n, n])
}

/// `expm(a)` of a square matrix.
pub fn expm(a: &Tensor, dtype: DType) -> Result<Tensor> {
    by_float!(dtype, expm_t(a, dtype))
}

fn expm_grad_t<T: Real>(a: &Tensor, g: &Tensor, dtype: DType) -> Result<Tensor> {
    check_square(a)?;
    let (a, g) = (to_faer::<T>(a)?, to_faer::<T>(g)?);
    let n = a.nrows();
    let block = Mat::from_fn(2 * n, 2 * n, |i, j| match (i < n, j < n) {
        (true, true) => a[(j, i)],
        (true, false) => g[(i, j - n)],
        (false, true) => T::zero_impl(),
        (false, false) => a[(j - n, i - n)],
    });
    let e = expm_mat(&block, dtype)?;
    from_faer(e.as_ref().submatrix(0, n, n, n), vec![n, n])
}

/// The gradient of `expm` at `a` given the output's gradient `g`.
pub fn expm_grad(a: &Tensor, g: &Tensor, dtype: DType) -> Result<Tensor> {
    by_float!(dtype, expm_grad_t(a, g, dtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(n: usize, v: Vec<f64>) -> Tensor {
        Tensor::from_vec(vec![n, n], v).unwrap()
    }

    #[test]
    fn diagonal_and_nilpotent_matrices() {
        // expm(diag(1, -2)) = diag(e, e^-2); expm([[0, 1], [0, 0]]) = [[1, 1], [0, 1]].
        let d = expm(&mat(2, vec![1.0, 0.0, 0.0, -2.0]), DType::Float64).unwrap();
        let d = d.as_slice::<f64>().unwrap();
        assert!((d[0] - 1f64.exp()).abs() < 1e-14 && (d[3] - (-2f64).exp()).abs() < 1e-15);
        assert_eq!(&d[1..3], &[0.0, 0.0]);
        let j = expm(&mat(2, vec![0.0, 1.0, 0.0, 0.0]), DType::Float64).unwrap();
        for (got, want) in j
            .as_slice::<f64>()
            .unwrap()
            .iter()
            .zip([1.0, 1.0, 0.0, 1.0])
        {
            assert!((got - want).abs() < 4.0 * f64::EPSILON, "{got} vs {want}");
        }
    }

    #[test]
    fn a_large_norm_is_scaled_and_squared() {
        // A rotation generator: expm(t [[0, -1], [1, 0]]) = [[cos t, -sin t], [sin t, cos t]].
        let t = 40.0f64;
        let r = expm(&mat(2, vec![0.0, -t, t, 0.0]), DType::Float64).unwrap();
        let want = [t.cos(), -t.sin(), t.sin(), t.cos()];
        for (got, want) in r.as_slice::<f64>().unwrap().iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
    }
}
