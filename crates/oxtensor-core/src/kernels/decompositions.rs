//! Eigen-, singular value and QR decompositions for the `linalg` ops, and
//! the eigendecomposition's gradient, through `faer` in float32/float64
//! (the shared conversions and dtype dispatch are in [`super::linalg`]).

use super::faer_par::scoped;
use super::linalg::{by_float, check_square, from_faer, matrix_dims, to_faer, Real};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use faer::{Mat, MatRef, Side};

fn vector<T: Real>(values: Vec<T>) -> Result<Tensor> {
    let n = values.len();
    Tensor::from_vec(vec![n], values)
}

fn mat<T: Real>(m: MatRef<'_, T>) -> Result<Tensor> {
    from_faer(m, vec![m.nrows(), m.ncols()])
}

fn eigh_t<T: Real>(a: &Tensor, lower: bool) -> Result<Vec<Tensor>> {
    check_square(a)?;
    let m = to_faer::<T>(a);
    if m.nrows() == 0 {
        // faer's tridiagonalisation underflows an index on an empty matrix.
        return Ok(vec![vector::<T>(Vec::new())?, mat(m.as_ref())?]);
    }
    let side = if lower { Side::Lower } else { Side::Upper };
    let evd = m
        .self_adjoint_eigen(side)
        .map_err(|e| Error::Value(format!("Eigenvalues did not converge ({e:?})")))?;
    let w: Vec<T> = evd.S().column_vector().iter().copied().collect();
    Ok(vec![vector(w)?, mat(evd.U())?])
}

/// Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix
/// read from one triangle.
pub fn eigh(a: &Tensor, dtype: DType, lower: bool) -> Result<Vec<Tensor>> {
    let (rows, cols) = matrix_dims(a);
    scoped(rows, cols, || by_float!(dtype, eigh_t(a, lower)))
}

fn eigh_grad_t<T: Real>(
    w: &Tensor,
    v: &Tensor,
    gw: &Tensor,
    gv: &Tensor,
    lower: bool,
) -> Result<Tensor> {
    let (w, v) = (to_faer::<T>(w), to_faer::<T>(v));
    let (gw, gv) = (to_faer::<T>(gw), to_faer::<T>(gv));
    let n = v.nrows();
    let vtgv = v.transpose() * &gv;
    // diag(gw) + F ∘ (Vᵀ gV), F_ij = 1 / (w_j - w_i) off the diagonal.
    let inner = Mat::from_fn(n, n, |i, j| {
        if i == j {
            gw[(i, 0)]
        } else {
            vtgv[(i, j)] / (w[(j, 0)] - w[(i, 0)])
        }
    });
    let g = &v * &inner * v.transpose();
    from_faer(fold_triangle(g.as_ref(), lower).as_ref(), vec![n, n])
}

/// The gradient with respect to the one triangle the op reads: an entry
/// off the diagonal stands for both of its symmetric positions.
fn fold_triangle<T: Real>(g: MatRef<'_, T>, lower: bool) -> Mat<T> {
    let n = g.nrows();
    Mat::from_fn(n, n, |i, j| {
        let read = if lower { i >= j } else { i <= j };
        if !read {
            T::zero_impl()
        } else if i == j {
            g[(i, i)]
        } else {
            g[(i, j)] + g[(j, i)]
        }
    })
}

/// The gradient of `eigh` with respect to its input, from the
/// eigenvalues `w`, eigenvectors `v` and their gradients.
pub fn eigh_grad(
    w: &Tensor,
    v: &Tensor,
    gw: &Tensor,
    gv: &Tensor,
    dtype: DType,
    lower: bool,
) -> Result<Tensor> {
    let (rows, cols) = matrix_dims(v);
    scoped(rows, cols, || {
        by_float!(dtype, eigh_grad_t(w, v, gw, gv, lower))
    })
}

fn svd_t<T: Real>(a: &Tensor, full_matrices: bool, compute_uv: bool) -> Result<Vec<Tensor>> {
    let m = to_faer::<T>(a);
    let failed = |e| Error::Value(format!("SVD did not converge ({e:?})"));
    if !compute_uv {
        return Ok(vec![vector(m.singular_values().map_err(failed)?)?]);
    }
    let svd = if full_matrices { m.svd() } else { m.thin_svd() }.map_err(failed)?;
    let s: Vec<T> = svd.S().column_vector().iter().copied().collect();
    Ok(vec![mat(svd.U())?, vector(s)?, mat(svd.V().transpose())?])
}

/// `svd(a)`: `[U, s, Vh]` (or `[s]` without `compute_uv`), singular values
/// descending, `U` and `Vh` square if `full_matrices`.
pub fn svd(a: &Tensor, dtype: DType, full_matrices: bool, compute_uv: bool) -> Result<Vec<Tensor>> {
    let (rows, cols) = matrix_dims(a);
    scoped(rows, cols, || {
        by_float!(dtype, svd_t(a, full_matrices, compute_uv))
    })
}

fn qr_t<T: Real>(a: &Tensor, complete: bool, with_q: bool) -> Result<Vec<Tensor>> {
    let a = to_faer::<T>(a);
    let qr = a.qr();
    // faer's R has min(m, n) rows; the complete form pads it to m with zeros.
    let thin = qr.thin_R();
    let rows = if complete { a.nrows() } else { thin.nrows() };
    let r = Mat::from_fn(rows, a.ncols(), |i, j| {
        if i < thin.nrows() {
            thin[(i, j)]
        } else {
            T::zero_impl()
        }
    });
    let r = mat(r.as_ref())?;
    if !with_q {
        return Ok(vec![r]);
    }
    let q = if complete {
        qr.compute_Q()
    } else {
        qr.compute_thin_Q()
    };
    Ok(vec![mat(q.as_ref())?, r])
}

/// `qr(a)`: `[Q, R]` (or `[R]` if not `with_q`), complete (`Q` square) or
/// reduced (`Q` with `min(m, n)` columns).
pub fn qr(a: &Tensor, dtype: DType, complete: bool, with_q: bool) -> Result<Vec<Tensor>> {
    let (rows, cols) = matrix_dims(a);
    scoped(rows, cols, || by_float!(dtype, qr_t(a, complete, with_q)))
}

fn qr_grad_t<T: Real>(q: &Tensor, r: &Tensor, gq: &Tensor, gr: &Tensor) -> Result<Tensor> {
    let (q, r) = (to_faer::<T>(q), to_faer::<T>(r));
    let (gq, gr) = (to_faer::<T>(gq), to_faer::<T>(gr));
    let (m, n) = (q.nrows(), r.ncols());
    if r.nrows() != n || q.ncols() != n {
        return Err(Error::NotImplemented(format!(
            "the gradient of QR needs a square R (a reduced QR of a matrix with at least as \
             many rows as columns), got Q {}x{} and R {}x{}",
            m,
            q.ncols(),
            r.nrows(),
            n
        )));
    }
    // M = R gRᵀ - gQᵀ Q, mirrored from its lower triangle (copyltu).
    let mm = &r * gr.transpose() - gq.transpose() * &q;
    let c = Mat::from_fn(n, n, |i, j| mm[(i.max(j), i.min(j))]);
    let b = &gq + &q * &c;
    // gA = B R⁻ᵀ, i.e. gAᵀ = R⁻¹ Bᵀ: one upper-triangular solve.
    let mut gat = b.transpose().to_owned();
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(
        r.as_ref(),
        gat.as_mut(),
        faer::Par::Seq,
    );
    mat(gat.transpose())
}

/// The gradient of a QR with a square `R` (reduced, `m >= n`) with respect
/// to its input, from `Q`, `R` and their gradients.
pub fn qr_grad(q: &Tensor, r: &Tensor, gq: &Tensor, gr: &Tensor, dtype: DType) -> Result<Tensor> {
    let (rows, cols) = matrix_dims(q);
    scoped(rows, cols, || by_float!(dtype, qr_grad_t(q, r, gq, gr)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    #[test]
    fn decompositions_of_a_small_matrix() {
        let a = Tensor::from_vec(vec![2, 2], vec![2.0f64, 1., 1., 2.]).unwrap();
        let wv = eigh(&a, DType::Float64, true).unwrap();
        assert_eq!(wv[0].get(0), Scalar::Float(1.0, DType::Float64));
        let s = svd(&a, DType::Float64, true, false).unwrap();
        assert_eq!(s[0].shape(), &[2]);
        let tall = Tensor::from_vec(vec![3, 2], vec![1.0f64, 0., 0., 1., 0., 0.]).unwrap();
        let usv = svd(&tall, DType::Float64, true, true).unwrap();
        assert_eq!((usv[0].shape(), usv[2].shape()), (&[3, 3][..], &[2, 2][..]));
        let qr_ = qr(&tall, DType::Float64, false, true).unwrap();
        assert_eq!((qr_[0].shape(), qr_[1].shape()), (&[3, 2][..], &[2, 2][..]));
    }
}
