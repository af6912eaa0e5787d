//! Dense linear algebra for the `linalg` ops, through the `faer` crate:
//! LU with partial pivoting (determinant; `inv` is in [`inverse`], the
//! solves and `lu_factor` in [`solvers`]), Cholesky and its gradient. Inputs are copied into faer's column-major matrices and the
//! results back into C-ordered tensors; only float32 and float64 run here.
//! The LU family factors the C-ordered buffer read column-major, `aᵀ`, and
//! answers through transposes: that skips a transposing copy of `a`.
//!
//! # Why faer
//!
//! Dense factorisations use `faer` (pure Rust, maintained, LU/Cholesky/
//! eigen/SVD/QR in one crate, no system LAPACK to install), with its `std`,
//! `linalg` and `rayon` features (no sparse, npy or rand): `rayon` gives the
//! threaded matrix product (it brings `spindle`, faer's author's barrier-based
//! job splitter on rayon's pool).
//!
//! # `slogdet` from the LU diagonal
//!
//! `slogdet` is one op, summed from the LU diagonal. PyTensor builds
//! `sign(det(x))` and `log(abs(det(x)))` and its `slogdet_specialization`
//! rewrite turns them into `SLogDet` when compiling; with no rewrite phases
//! yet, `slogdet` builds `SLogDet` directly. The sign comes from the pivots and
//! the diagonal's signs, the log is `Σ log|uᵢᵢ|` (NumPy's reduction, no product
//! to overflow: a 400² float64 matrix whose `det` is inf has a finite log), and
//! `det` is `sign · exp(log)`. Likewise `eigvalsh` is its own `Eigvalsh` op
//! computing no eigenvectors (LAPACK's `jobz = 'N'`, faer's
//! `ComputeEigenvectors::No`): 2.4x less time than `eigh` at 500², NumPy's own
//! ratio; its gradient builds the `Eigh` it needs.

pub(super) mod cholesky;
mod decompositions;
mod expm;
mod inverse;
mod par;
mod solvers;
mod svd_grad;

use self::par::{self as faer_par, Kind};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast;
use crate::kernels::linalg::lapack::layout::{elements, working_copy};
use crate::tensor::{Element, Tensor};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor as llt;
use faer::linalg::lu::partial_pivoting::factor::{
    lu_in_place, lu_in_place_scratch, PartialPivLuInfo,
};
use faer::perm::PermRef;
use faer::traits::RealField;
use faer::{Mat, MatMut, MatRef, Par};

/// `inv` lives beside the LU helpers it does not share (see [`inverse`]).
pub use inverse::inv;

/// Cholesky and its gradient have a file of their own ([`cholesky`]).
pub use cholesky::{cholesky, cholesky_grad};

pub use decompositions::{eigh, eigh_grad, eigvalsh, qr, qr_grad, svd};

/// The matrix exponential and its gradient ([`expm`]).
pub use expm::{expm, expm_grad};

/// The structured and triangular solves and `lu_factor` ([`solvers`]).
pub use solvers::{
    lu_factor, lu_factor_grad, pivots_to_permutation, solve_structured, solve_triangular, Structure,
};

/// The thin SVD's gradient has a file of its own ([`svd_grad`]).
pub use svd_grad::svd_grad;

/// The element type of a float tensor, as faer (and LAPACK) sees it.
pub trait Real:
    Element + RealField + Copy + crate::kernels::linalg::lapack::Scalar + num_traits::Float
{
}
impl Real for f32 {}
impl Real for f64 {}

/// Runs `$f::<T>` for the float dtype `$dtype`, else a `Type` error.
/// A panic inside faer (an input its checks did not foresee) becomes an
/// error rather than unwinding into the host.
macro_rules! by_float {
    ($dtype:expr, $f:ident($($arg:expr),*)) => {{
        let run = || match $dtype {
            DType::Float32 => $f::<f32>($($arg),*),
            DType::Float64 => $f::<f64>($($arg),*),
            other => Err(Error::Type(format!(
                "linear algebra runs in float32 or float64, not {other}"
            ))),
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|_| {
            Err(Error::Value(format!("{} failed on this input", stringify!($f))))
        })
    }};
}
pub(crate) use by_float;

pub(crate) fn to_faer<T: Real>(t: &Tensor) -> Result<Mat<T>> {
    let t = to_contiguous(&cast::cast(t, T::DTYPE)?)?;
    let s = t.as_slice::<T>().expect("contiguous after to_contiguous");
    let (rows, cols) = match t.ndim() {
        2 => (t.shape()[0], t.shape()[1]),
        _ => (t.len(), 1),
    };
    Ok(MatRef::from_row_major_slice(s, rows, cols).to_owned())
}

pub(crate) fn from_faer<T: Real>(m: MatRef<'_, T>, shape: Vec<usize>) -> Result<Tensor> {
    let mut data = vec![T::zero_impl(); m.nrows() * m.ncols()];
    MatMut::from_row_major_slice_mut(&mut data, m.nrows(), m.ncols()).copy_from(m);
    Tensor::from_vec(shape, data)
}

/// The rows and columns of a matrix (a vector: one column), for
/// [`faer_par::scoped`].
pub(crate) fn matrix_dims(t: &Tensor) -> (usize, usize) {
    match t.shape() {
        [rows, cols] => (*rows, *cols),
        [len] => (*len, 1),
        _ => (1, 1),
    }
}

/// Checks at run time that `t` is a square matrix.
pub(crate) fn check_square(t: &Tensor) -> Result<()> {
    if t.ndim() != 2 || t.shape()[0] != t.shape()[1] {
        return Err(Error::Value(format!(
            "expected a square matrix, got shape {:?}",
            t.shape()
        )));
    }
    Ok(())
}

/// faer's partial-pivoting LU of the square `m` in place (`L` strictly
/// below the diagonal, unit diagonal implied, `U` on and above), with its
/// scratch: the row order goes into `fwd` and `bwd`.
pub(super) fn lu_in_place_of<'p, T: Real>(
    m: MatMut<'_, T>,
    (fwd, bwd): (&'p mut [usize], &'p mut [usize]),
    par: Par,
) -> (PartialPivLuInfo, PermRef<'p, usize>) {
    let n = m.nrows();
    let need = lu_in_place_scratch::<usize, T>(n, n, par, Default::default());
    let mut scratch = MemBuffer::new(need);
    let stack = MemStack::new(&mut scratch);
    lu_in_place(m, fwd, bwd, par, stack, Default::default())
}

/// Whether the square `m` (an LU's `U`) has an exact zero on its diagonal,
/// where LAPACK's `getrf` reports the matrix singular.
pub(super) fn zero_pivot<T: Real>(m: MatRef<'_, T>) -> bool {
    (0..m.nrows()).any(|i| m[(i, i)] == T::zero_impl())
}

/// faer's Cholesky of the square `m`'s lower triangle in place, with its
/// scratch; false if `m` is not positive definite. faer leaves the upper
/// triangle as it was.
pub(super) fn llt_in_place<T: Real>(m: MatMut<'_, T>, par: Par) -> bool {
    let need = llt::cholesky_in_place_scratch::<T>(m.nrows(), par, Default::default());
    let mut scratch = MemBuffer::new(need);
    let stack = MemStack::new(&mut scratch);
    llt::cholesky_in_place(m, Default::default(), par, stack, Default::default()).is_ok()
}

fn col_major<T: Real>(t: &Tensor) -> MatRef<'_, T> {
    let n = t.shape()[0];
    let s = t.as_slice::<T>().expect("contiguous after to_contiguous");
    MatRef::from_column_major_slice(s, n, n)
}

/// `(sign, log|det|)` from an LU's U diagonal and whether its row swaps
/// are odd, as NumPy reduces it: the sign flips for each swap and each
/// negative pivot, the log sums `log|uᵢᵢ|` (no product to overflow); a
/// zero pivot (where LAPACK's `getrf` reports singularity) gives
/// `(0, -inf)`, and a NaN pivot leaves the sign and makes the log NaN.
pub(super) fn slogdet_from_diagonal<T: Real>(
    diag: impl Iterator<Item = T>,
    odd_swaps: bool,
) -> (T, T) {
    let mut sign = if odd_swaps {
        -T::one_impl()
    } else {
        T::one_impl()
    };
    let mut log = T::zero_impl();
    for u in diag {
        if u == T::zero_impl() {
            return (T::zero_impl(), T::neg_infinity());
        }
        if u < T::zero_impl() {
            sign = -sign;
        }
        log = log + num_traits::Float::ln(num_traits::Float::abs(u));
    }
    (sign, log)
}

/// `(sign, log|det(a)|)` of a square matrix: the host's `?getrf`, or
/// faer's LU of a plain copy (`det(aᵀ) = det(a)`: the C-ordered copy read
/// column-major is factored as it is).
/// The LU factors of `aᵀ` packed in one column-major copy of `a` (`L`
/// strictly below the diagonal, unit diagonal implied, `U` on and above),
/// and whether the row swaps were odd. faer's in-place factorisation: its
/// `PartialPivLu` wrapper (separate `L` and `U` copies) is twice as slow.
struct PackedLu<T> {
    n: usize,
    copy: Tensor,
    odd_swaps: bool,
    _t: std::marker::PhantomData<T>,
}

fn packed_lu<T: Real>(a: &Tensor) -> Result<PackedLu<T>> {
    let n = a.shape()[0];
    let mut copy = working_copy::<T>(a, false)?;
    let lu = MatMut::from_column_major_slice_mut(elements::<T>(&mut copy), n, n);
    let par = faer_par::for_shape(Kind::Lu, n, n);
    let (mut fwd, mut bwd) = (vec![0usize; n], vec![0usize; n]);
    let (info, _) = lu_in_place_of(lu, (&mut fwd, &mut bwd), par);
    Ok(PackedLu {
        n,
        copy,
        odd_swaps: info.transposition_count % 2 == 1,
        _t: std::marker::PhantomData,
    })
}

impl<T: Real> PackedLu<T> {
    fn factors(&self) -> MatRef<'_, T> {
        col_major::<T>(&self.copy)
    }

    fn diagonal(&self) -> impl Iterator<Item = T> + '_ {
        let lu = self.factors();
        (0..self.n).map(move |i| lu[(i, i)])
    }
}

fn slogdet_t<T: Real>(a: &Tensor) -> Result<(T, T)> {
    check_square(a)?;
    if let Some(d) = crate::kernels::linalg::lapack::lu::slogdet::<T>(a) {
        return d;
    }
    let lu = packed_lu::<T>(a)?;
    Ok(slogdet_from_diagonal(lu.diagonal(), lu.odd_swaps))
}

fn det_t<T: Real>(a: &Tensor) -> Result<Tensor> {
    // NumPy's det is its slogdet's `sign · exp(log)`: the same bits.
    let (sign, log) = slogdet_t::<T>(a)?;
    Ok(Tensor::scalar(sign * num_traits::Float::exp(log)))
}

/// `det(a)` of a square matrix, a 0-d tensor of `dtype`.
pub fn det(a: &Tensor, dtype: DType) -> Result<Tensor> {
    by_float!(dtype, det_t(a))
}

fn slogdet_pair<T: Real>(a: &Tensor) -> Result<Vec<Tensor>> {
    let (sign, log) = slogdet_t::<T>(a)?;
    Ok(vec![Tensor::scalar(sign), Tensor::scalar(log)])
}

/// `[sign, log|det(a)|]` of a square matrix, 0-d tensors of `dtype`,
/// computed from the LU diagonal: finite where `det` overflows.
pub fn slogdet(a: &Tensor, dtype: DType) -> Result<Vec<Tensor>> {
    by_float!(dtype, slogdet_pair(a))
}

/// `solve(a, b)`: `x` with `a @ x = b`, for a vector or matrix `b` (NaNs
/// if `a` is exactly singular): [`solvers::solve_structured`] of a
/// general matrix.
pub fn solve(a: &Tensor, b: &Tensor, dtype: DType) -> Result<Tensor> {
    solvers::solve_structured(a, b, dtype, solvers::Structure::General, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    #[test]
    fn lu_family() {
        let a = Tensor::from_vec(vec![2, 2], vec![4.0f64, 1., 2., 3.]).unwrap();
        // sign · exp(Σ log|uᵢᵢ|), as NumPy: 10 up to rounding.
        let d = floats(&det(&a, DType::Float64).unwrap())[0];
        assert!((d - 10.0).abs() < 1e-14, "{d}");
        let i = inv(&a, DType::Float64).unwrap();
        assert_eq!(i.get(1), Scalar::Float(-0.1, DType::Float64));
        let b = Tensor::from_vec(vec![2], vec![5.0f64, 5.]).unwrap();
        let x = solve(&a, &b, DType::Float64).unwrap();
        assert_eq!(x.get(0), Scalar::Float(1.0, DType::Float64));
        let z = Tensor::zeros(DType::Float64, &[2, 2]).unwrap();
        assert!(inv(&z, DType::Float64).is_err());
        assert!(inv(&a, DType::Int32).is_err());
    }

    fn floats(t: &Tensor) -> Vec<f64> {
        let t = to_contiguous(&cast::cast(t, DType::Float64).unwrap()).unwrap();
        t.as_slice::<f64>().unwrap().to_vec()
    }

    fn near(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() < 1e-9, "{i}: {g} vs {w}");
        }
    }

    /// A non-symmetric 3×3 system (so a transpose mix-up shows), read
    /// C-ordered and through a transposed view, with a matrix `b`.
    #[test]
    fn lu_family_on_non_symmetric_and_strided_input() {
        let a = Tensor::from_vec(vec![3, 3], vec![2.0f64, 1., 0., 0., 3., 1., 1., 0., 4.]).unwrap();
        // inv(a) · 25 (det 25), worked out by hand.
        let inv25 = [12.0, -4., 1., 1., 8., -2., -3., 1., 6.];
        near(
            &floats(&inv(&a, DType::Float64).unwrap()),
            &inv25.map(|v| v / 25.0),
        );
        near(&floats(&det(&a, DType::Float64).unwrap()), &[25.0]);
        let b = Tensor::from_vec(vec![3, 2], vec![3.0f64, 1., 4., 0., 5., 2.]).unwrap();
        // a @ [[1, 0.56], [1, -0.12], [1, 0.36]] = b.
        let x = floats(&solve(&a, &b, DType::Float64).unwrap());
        near(&x, &[1.0, 0.56, 1.0, -0.12, 1.0, 0.36]);
        let at = a.view(&[3, 3], &[8, 24], 0).unwrap();
        let inv_t = floats(&inv(&at, DType::Float64).unwrap());
        near(
            &inv_t,
            &[12.0, 1., -3., -4., 8., 1., 1., -2., 6.].map(|v| v / 25.0),
        );
        let x32 = solve(&a, &b, DType::Float32).unwrap();
        assert_eq!(x32.dtype(), DType::Float32);
    }

    #[test]
    fn lu_family_on_empty_and_nan_input() {
        let e = Tensor::zeros(DType::Float64, &[0, 0]).unwrap();
        assert_eq!(inv(&e, DType::Float64).unwrap().shape(), &[0, 0]);
        assert_eq!(
            det(&e, DType::Float64).unwrap().get(0),
            Scalar::Float(1.0, DType::Float64)
        );
        // Singular: exactly 0 (faer's own determinant gives NaN for zeros).
        for z in [vec![0.0f64; 9], vec![1.0, 2., 0., 2., 4., 0., 3., 1., 0.]] {
            let z = Tensor::from_vec(vec![3, 3], z).unwrap();
            let d = det(&z, DType::Float64).unwrap();
            assert_eq!(d.get(0), Scalar::Float(0.0, DType::Float64));
        }
        let nan = Tensor::from_vec(vec![2, 2], vec![f64::NAN, 1., 1., 2.]).unwrap();
        let d = det(&nan, DType::Float64).unwrap();
        assert!(matches!(d.get(0), Scalar::Float(v, _) if v.is_nan()));
        let b = Tensor::from_vec(vec![2], vec![1.0f64, 1.]).unwrap();
        let x = floats(&solve(&nan, &b, DType::Float64).unwrap());
        assert!(x.iter().all(|v| v.is_nan()));
        assert!(solve(
            &nan,
            &Tensor::zeros(DType::Float64, &[3]).unwrap(),
            DType::Float64
        )
        .is_err());
    }

    #[test]
    fn slogdet_sums_logs_where_det_overflows() {
        let big = vec![1e200f64, 0., 0., 0., 1e200, 0., 0., 0., -1e200];
        let a = Tensor::from_vec(vec![3, 3], big).unwrap();
        let pair = slogdet(&a, DType::Float64).unwrap();
        let (sign, log) = (floats(&pair[0])[0], floats(&pair[1])[0]);
        assert_eq!(sign, -1.0);
        assert!((log / (600.0 * 10f64.ln()) - 1.0).abs() < 1e-14, "{log}");
        assert_eq!(
            floats(&det(&a, DType::Float64).unwrap())[0],
            f64::NEG_INFINITY
        );
        let z = Tensor::zeros(DType::Float32, &[2, 2]).unwrap();
        let pair = slogdet(&z, DType::Float32).unwrap();
        assert_eq!(
            (floats(&pair[0])[0], floats(&pair[1])[0]),
            (0.0, f64::NEG_INFINITY)
        );
        assert_eq!(pair[0].dtype(), DType::Float32);
    }
}
