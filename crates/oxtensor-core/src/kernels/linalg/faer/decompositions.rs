//! Eigen-, singular value and QR decompositions for the `linalg` ops, and
//! the eigendecomposition's gradient, through `faer` in float32/float64
//! (the shared conversions and dtype dispatch are in [`crate::kernels::linalg::faer`]),
//! or through the host's LAPACK where [`crate::kernels::linalg::lapack`] has one.

use super::par::{for_shape, scoped, Kind};
use super::{by_float, check_square, from_faer, matrix_dims, to_faer, Real};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast;
use crate::kernels::linalg::lapack::{self, svd as lapack_svd};
use crate::tensor::Tensor;
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{
    self, self_adjoint_evd_scratch, ComputeEigenvectors, SelfAdjointEvdParams,
};
use faer::linalg::householder;
use faer::linalg::qr::no_pivoting::factor as qrf;
use faer::linalg::svd::{self as fsvd, ComputeSvdVectors, SvdParams};
use faer::{Conj, Mat, MatRef, Spec};

/// Below this size faer's eigh and SVD switch from divide-and-conquer to
/// the QR algorithm on the tridiagonal / bidiagonal matrix (faer's default
/// is 128 for both). Measured at 200/500/1000 rows (thread CPU time, best
/// of 6): eigh 5.6/44.5/257 ms at 128 against 4.9/39.1/251 at 32; SVD
/// 10.2/81.8/595 at 128 against 9.4/69.6/533 at 64.
const EIGH_RECURSION: usize = 32;
const SVD_RECURSION: usize = 64;

fn vector<T: Real>(values: Vec<T>) -> Result<Tensor> {
    let n = values.len();
    Tensor::from_vec(vec![n], values)
}

fn mat<T: Real>(m: MatRef<'_, T>) -> Result<Tensor> {
    from_faer(m, vec![m.nrows(), m.ncols()])
}

/// `t` as C-ordered `T`s with its matrix shape (a vector: one column).
fn c_ordered<T: Real>(t: &Tensor) -> Result<(Tensor, usize, usize)> {
    let (rows, cols) = match t.shape() {
        [rows, cols] => (*rows, *cols),
        _ => (t.len(), 1),
    };
    Ok((to_contiguous(&cast::cast(t, T::DTYPE)?)?, rows, cols))
}

fn eigh_t<T: Real>(a: &Tensor, lower: bool, vectors: bool) -> Result<Vec<Tensor>> {
    check_square(a)?;
    let (t, n, _) = c_ordered::<T>(a)?;
    if n == 0 {
        // faer's scratch sizing underflows an index on an empty matrix.
        let w = vector::<T>(Vec::new())?;
        return Ok(if vectors { vec![w, t] } else { vec![w] });
    }
    let data = t.as_slice::<T>().expect("contiguous after to_contiguous");
    if let Some(done) = lapack::eigh(data, n, lower, vectors) {
        return done;
    }
    // faer reads the lower triangle, which it copies out first: `a`'s lower
    // triangle is the row-major view's, its upper one the column-major
    // view's (aᵀ), so neither needs a copy here.
    let view = if lower {
        MatRef::from_row_major_slice(data, n, n)
    } else {
        MatRef::from_column_major_slice(data, n, n)
    };
    let par = for_shape(Kind::Eigh, n, n);
    let mut params: Spec<SelfAdjointEvdParams, T> = Default::default();
    params.config.recursion_threshold = EIGH_RECURSION;
    let (mut w, mut u) = (
        Diag::<T>::zeros(n),
        Mat::<T>::zeros(n, if vectors { n } else { 0 }),
    );
    let compute = match vectors {
        true => ComputeEigenvectors::Yes,
        false => ComputeEigenvectors::No,
    };
    let need = self_adjoint_evd_scratch::<T>(n, compute, par, params);
    let mut scratch = MemBuffer::new(need);
    evd::self_adjoint_evd(
        view,
        w.as_mut(),
        vectors.then(|| u.as_mut()),
        par,
        MemStack::new(&mut scratch),
        params,
    )
    .map_err(|e| Error::Value(format!("Eigenvalues did not converge ({e:?})")))?;
    let w: Vec<T> = w.column_vector().iter().copied().collect();
    // faer passes NaNs through where LAPACK's ?syevd (NumPy) fails.
    if w.iter().any(|x| x.not_a_number()) {
        return Err(Error::Value(
            "Eigenvalues did not converge (NaN in the input)".to_string(),
        ));
    }
    match vectors {
        true => Ok(vec![vector(w)?, mat(u.as_ref())?]),
        false => Ok(vec![vector(w)?]),
    }
}

/// Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix
/// read from one triangle.
pub fn eigh(a: &Tensor, dtype: DType, lower: bool) -> Result<Vec<Tensor>> {
    by_float!(dtype, eigh_t(a, lower, true))
}

/// The eigenvalues (ascending) of a symmetric matrix read from one
/// triangle, without computing eigenvectors (LAPACK's `jobz = 'N'`).
pub fn eigvalsh(a: &Tensor, dtype: DType, lower: bool) -> Result<Tensor> {
    let mut w = by_float!(dtype, eigh_t(a, lower, false))?;
    Ok(w.swap_remove(0))
}

fn eigh_grad_t<T: Real>(
    w: &Tensor,
    v: &Tensor,
    gw: &Tensor,
    gv: &Tensor,
    lower: bool,
) -> Result<Tensor> {
    let (w, v) = (to_faer::<T>(w)?, to_faer::<T>(v)?);
    let (gw, gv) = (to_faer::<T>(gw)?, to_faer::<T>(gv)?);
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
    scoped(Kind::Grad, rows, cols, || {
        by_float!(dtype, eigh_grad_t(w, v, gw, gv, lower))
    })
}

fn svd_t<T: Real>(a: &Tensor, full_matrices: bool, compute_uv: bool) -> Result<Vec<Tensor>> {
    let (t, rows, cols) = c_ordered::<T>(a)?;
    let data = t.as_slice::<T>().expect("contiguous after to_contiguous");
    if let Some(done) = lapack_svd::svd(data, (rows, cols), full_matrices, compute_uv) {
        return done;
    }
    // faer copies its input into its own bidiagonalisation storage: the
    // row-major view saves a copy into a column-major matrix first.
    let view = MatRef::from_row_major_slice(data, rows, cols);
    let size = rows.min(cols);
    let (vectors, u_cols, v_cols) = match (compute_uv, full_matrices) {
        (false, _) => (ComputeSvdVectors::No, 0, 0),
        (true, true) => (ComputeSvdVectors::Full, rows, cols),
        (true, false) => (ComputeSvdVectors::Thin, size, size),
    };
    let par = for_shape(Kind::Svd, rows, cols);
    let mut params: Spec<SvdParams, T> = Default::default();
    params.config.recursion_threshold = SVD_RECURSION;
    let mut s = Diag::<T>::zeros(size);
    let (mut u, mut v) = (Mat::<T>::zeros(rows, u_cols), Mat::<T>::zeros(cols, v_cols));
    let need = fsvd::svd_scratch::<T>(rows, cols, vectors, vectors, par, params);
    let mut scratch = MemBuffer::new(need);
    fsvd::svd(
        view,
        s.as_mut(),
        compute_uv.then(|| u.as_mut()),
        compute_uv.then(|| v.as_mut()),
        par,
        MemStack::new(&mut scratch),
        params,
    )
    .map_err(|e| Error::Value(format!("SVD did not converge ({e:?})")))?;
    let s = vector(s.column_vector().iter().copied().collect())?;
    if !compute_uv {
        return Ok(vec![s]);
    }
    Ok(vec![mat(u.as_ref())?, s, mat(v.transpose())?])
}

/// `svd(a)`: `[U, s, Vh]` (or `[s]` without `compute_uv`), singular values
/// descending, `U` and `Vh` square if `full_matrices`.
pub fn svd(a: &Tensor, dtype: DType, full_matrices: bool, compute_uv: bool) -> Result<Vec<Tensor>> {
    by_float!(dtype, svd_t(a, full_matrices, compute_uv))
}

fn qr_t<T: Real>(a: &Tensor, complete: bool, with_q: bool) -> Result<Vec<Tensor>> {
    if let Some(done) = crate::kernels::linalg::lapack::qr::qr::<T>(a, complete, with_q) {
        return done;
    }
    // Factored in place: R on and above the diagonal, the Householder
    // vectors below it (faer's `Qr` would copy it once more and split it).
    let mut f = to_faer::<T>(a)?;
    let (m, n) = f.shape();
    let size = m.min(n);
    let par = for_shape(Kind::Qr, m, n);
    let bs = qrf::recommended_block_size::<T>(m, n);
    let mut h = Mat::<T>::zeros(bs, size);
    let need = qrf::qr_in_place_scratch::<T>(m, n, bs, par, Default::default());
    let mut scratch = MemBuffer::new(need);
    let stack = MemStack::new(&mut scratch);
    qrf::qr_in_place(f.as_mut(), h.as_mut(), par, stack, Default::default());
    // The reduced R has min(m, n) rows; the complete form pads it to m.
    let rows = if complete { m } else { size };
    let mut r = vec![T::zero_impl(); rows * n];
    for (i, row) in r.chunks_exact_mut(n.max(1)).take(size).enumerate() {
        row.iter_mut()
            .enumerate()
            .skip(i)
            .for_each(|(j, x)| *x = f[(i, j)]);
    }
    let r = Tensor::from_vec(vec![rows, n], r)?;
    if !with_q {
        return Ok(vec![r]);
    }
    let q_cols = if complete { m } else { size };
    let mut q = Mat::<T>::identity(m, q_cols);
    let need = householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<T>(
        m, bs, q_cols,
    );
    let mut scratch = MemBuffer::new(need);
    householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
        f.as_ref().subcols(0, size),
        h.as_ref(),
        Conj::No,
        q.as_mut(),
        par,
        MemStack::new(&mut scratch),
    );
    Ok(vec![mat(q.as_ref())?, r])
}

/// `qr(a)`: `[Q, R]` (or `[R]` if not `with_q`), complete (`Q` square) or
/// reduced (`Q` with `min(m, n)` columns).
pub fn qr(a: &Tensor, dtype: DType, complete: bool, with_q: bool) -> Result<Vec<Tensor>> {
    by_float!(dtype, qr_t(a, complete, with_q))
}

fn qr_grad_t<T: Real>(q: &Tensor, r: &Tensor, gq: &Tensor, gr: &Tensor) -> Result<Tensor> {
    let (q, r) = (to_faer::<T>(q)?, to_faer::<T>(r)?);
    let (gq, gr) = (to_faer::<T>(gq)?, to_faer::<T>(gr)?);
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
    scoped(Kind::Grad, rows, cols, || {
        by_float!(dtype, qr_grad_t(q, r, gq, gr))
    })
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

    #[test]
    fn eigenvalues_alone() {
        let a = Tensor::from_vec(vec![2, 2], vec![2.0f64, 9., 1., 2.]).unwrap();
        // Lower triangle [[2, ·], [1, 2]]: 1 and 3; upper [[2, 9], [·, 2]]: -7, 11.
        let w = eigvalsh(&a, DType::Float64, true).unwrap();
        assert_eq!(w.shape(), &[2]);
        let close = |t: &Tensor, want: [f64; 2]| {
            for (i, w) in want.iter().enumerate() {
                let Scalar::Float(v, _) = t.get(i) else {
                    panic!("float expected")
                };
                assert!((v - w).abs() < 1e-12, "{v} vs {w}");
            }
        };
        close(&w, [1.0, 3.0]);
        close(&eigvalsh(&a, DType::Float64, false).unwrap(), [-7.0, 11.0]);
        let e = eigvalsh(
            &Tensor::zeros(DType::Float32, &[0, 0]).unwrap(),
            DType::Float32,
            true,
        )
        .unwrap();
        assert_eq!((e.shape(), e.dtype()), (&[0][..], DType::Float32));
    }

    #[test]
    fn eigh_of_nan_fails_like_lapack() {
        let a = Tensor::from_vec(vec![2, 2], vec![f64::NAN; 4]).unwrap();
        let err = eigh(&a, DType::Float64, true).unwrap_err();
        assert!(err.to_string().contains("did not converge"), "{err}");
    }
}
