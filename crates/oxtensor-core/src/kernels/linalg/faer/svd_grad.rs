//! The gradient of a thin SVD `a = U diag(s) Vh` with respect to `a`, from
//! the factors and the gradients of all three (Townsend, "Differentiating
//! the singular value decomposition", 2016, real case):
//!
//! `gA = U [J S + diag(gs) + S K] Vh + (I - U Uᵀ) gU S⁻¹ Vh + U S⁻¹ gVh (I - Vhᵀ Vh)`
//!
//! with `J = F ∘ (Uᵀ gU - gUᵀ U)`, `K = F ∘ (Vh gVhᵀ - gVh Vhᵀ)` and
//! `F_ij = 1 / (s_j² - s_i²)` off the diagonal (0 on it). Equal singular
//! values make `F` infinite, as in every implementation of this formula;
//! the two projection terms vanish for a square `U` or `Vh` and are then
//! skipped, which also spares dividing by a zero singular value there.

use super::par::{scoped, Kind};
use super::{by_float, from_faer, matrix_dims, to_faer, Real};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use faer::Mat;

fn svd_grad_t<T: Real>(factors: [&Tensor; 3], grads: [&Tensor; 3]) -> Result<Tensor> {
    let [u, s, vh] = factors.map(to_faer::<T>);
    let [gu, gs, gvh] = grads.map(to_faer::<T>);
    let (u, s, vh, gu, gs, gvh) = (u?, s?, vh?, gu?, gs?, gvh?);
    let (m, k, n) = (u.nrows(), u.ncols(), vh.ncols());
    if s.nrows() != k || vh.nrows() != k || gu.shape() != u.shape() || gvh.shape() != vh.shape() {
        return Err(Error::Value(format!(
            "SVDGrad needs a thin SVD and gradients of the same shapes, got U {m}x{k}, s {}, \
             Vh {}x{n}, gU {}x{}, gVh {}x{}",
            s.nrows(),
            vh.nrows(),
            gu.nrows(),
            gu.ncols(),
            gvh.nrows(),
            gvh.ncols()
        )));
    }
    let sv = |i: usize| s[(i, 0)];
    let f = |i: usize, j: usize| {
        if i == j {
            T::zero_impl()
        } else {
            T::one_impl() / (sv(j) * sv(j) - sv(i) * sv(i))
        }
    };
    let ut_gu = u.transpose() * &gu;
    let vh_gvht = &vh * gvh.transpose();
    let inner = Mat::from_fn(k, k, |i, j| {
        let j_ij = f(i, j) * (ut_gu[(i, j)] - ut_gu[(j, i)]);
        let k_ij = f(i, j) * (vh_gvht[(i, j)] - vh_gvht[(j, i)]);
        let diag = if i == j { gs[(i, 0)] } else { T::zero_impl() };
        j_ij * sv(j) + diag + sv(i) * k_ij
    });
    let mut ga = &u * &inner * &vh;
    if m > k {
        let gu_s = Mat::from_fn(m, k, |i, j| gu[(i, j)] / sv(j));
        let off_u = &gu_s - &u * (u.transpose() * &gu_s);
        ga = &ga + &off_u * &vh;
    }
    if n > k {
        let gvh_s = Mat::from_fn(k, n, |i, j| gvh[(i, j)] / sv(i));
        let off_v = &gvh_s - (&gvh_s * vh.transpose()) * &vh;
        ga = &ga + &u * &off_v;
    }
    from_faer(ga.as_ref(), vec![m, n])
}

/// The gradient of a thin SVD with respect to its input, from `[U, s, Vh]`
/// and `[gU, gs, gVh]` (zeros for an output the cost does not use).
pub fn svd_grad(factors: [&Tensor; 3], grads: [&Tensor; 3], dtype: DType) -> Result<Tensor> {
    let (rows, _) = matrix_dims(factors[0]);
    let (_, cols) = matrix_dims(factors[2]);
    scoped(Kind::Grad, rows, cols, || {
        by_float!(dtype, svd_grad_t(factors, grads))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: &[usize], v: Vec<f64>) -> Tensor {
        Tensor::from_vec(shape.to_vec(), v).unwrap()
    }

    #[test]
    fn a_singular_value_gradient_is_u_diag_vh() {
        // a = diag(3, 1): U = Vh = I, so gA = diag(gs) when only s is used.
        let (u, s, vh) = (
            t(&[2, 2], vec![1.0, 0.0, 0.0, 1.0]),
            t(&[2], vec![3.0, 1.0]),
            t(&[2, 2], vec![1.0, 0.0, 0.0, 1.0]),
        );
        let zeros = t(&[2, 2], vec![0.0; 4]);
        let gs = t(&[2], vec![2.0, 5.0]);
        let ga = svd_grad([&u, &s, &vh], [&zeros, &gs, &zeros], DType::Float64).unwrap();
        assert_eq!(ga.as_slice::<f64>().unwrap(), &[2.0, 0.0, 0.0, 5.0]);
    }

    #[test]
    fn mismatched_factors_are_an_error() {
        let u = t(&[3, 2], vec![0.0; 6]);
        let s = t(&[3], vec![1.0; 3]);
        let vh = t(&[2, 2], vec![0.0; 4]);
        let err = svd_grad([&u, &s, &vh], [&u, &s, &vh], DType::Float64).unwrap_err();
        assert!(
            err.to_string().contains("SVDGrad needs a thin SVD"),
            "{err}"
        );
    }
}
