//! The structured and triangular solves and the LU factorisation with
//! LAPACK's pivots (`scipy.linalg.solve(assume_a=...)`,
//! `solve_triangular`, `lu_factor`), its gradient, and the pivots turned
//! into a permutation. A system that cannot be solved (an exactly singular
//! matrix, one that is not positive definite for `"pos"`) gives NaNs, as
//! PyTensor's ops do (they catch SciPy's `LinAlgError`), rather than an
//! error: a graph stays differentiable and batched runs keep going.

use super::par::{self as faer_par, Kind};
use super::{
    by_float, check_square, from_faer, llt_in_place, lu_in_place_of, matrix_dims, to_faer,
    zero_pivot, Real,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast;
use crate::tensor::Tensor;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::triangular_solve as tri;
use faer::{Mat, MatMut, MatRef, Par};

/// The structure `Solve` assumes of `a` (`assume_a`): which entries it
/// reads and how it factors them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structure {
    /// Every entry, LU with partial pivoting (`"gen"`, and `"banded"`:
    /// the entries outside the band are zeros, so the full LU is exact).
    General,
    /// One triangle mirrored (`"sym"`, `"her"` for real input), then LU.
    Symmetric,
    /// One triangle mirrored, then Cholesky (`"pos"`).
    Positive,
    /// The three central diagonals, then LU (`"tridiagonal"`).
    Tridiagonal,
}

/// Checks at run time that `a` is square and `b` has as many rows.
fn check_system(a: &Tensor, b: &Tensor) -> Result<()> {
    check_square(a)?;
    if b.ndim() == 0 || b.shape()[0] != a.shape()[0] {
        return Err(Error::Shape(format!(
            "a of shape {:?} and b of shape {:?} do not match",
            a.shape(),
            b.shape()
        )));
    }
    Ok(())
}

/// A matrix of NaNs shaped like `b`: the answer to an unsolvable system.
fn nans<T: Real>(shape: &[usize]) -> Result<Tensor> {
    let len = shape.iter().product();
    Tensor::from_vec(shape.to_vec(), vec![T::nan_impl(); len])
}

/// `a` as faer reads it for `structure`: the triangle `lower` mirrored onto
/// the other (symmetric, positive), or the band alone (tridiagonal).
fn structured<T: Real>(a: &Tensor, structure: Structure, lower: bool) -> Result<Mat<T>> {
    let a = to_faer::<T>(a)?;
    let n = a.nrows();
    Ok(match structure {
        Structure::General => a,
        Structure::Symmetric | Structure::Positive => Mat::from_fn(n, n, |i, j| {
            let (r, c) = if (i >= j) == lower { (i, j) } else { (j, i) };
            a[(r, c)]
        }),
        Structure::Tridiagonal => Mat::from_fn(n, n, |i, j| {
            if i.abs_diff(j) <= 1 {
                a[(i, j)]
            } else {
                T::zero_impl()
            }
        }),
    })
}

fn solve_structured_t<T: Real>(
    a: &Tensor,
    b: &Tensor,
    structure: Structure,
    lower: bool,
) -> Result<Tensor> {
    check_system(a, b)?;
    if structure == Structure::General {
        // The host's `getrs` where routed; if it refuses (a zero pivot), faer
        // below decides, and a singular matrix gives NaNs.
        if let Some(Ok(x)) = crate::kernels::linalg::lapack::lu::solve::<T>(a, b) {
            return Ok(x);
        }
    }
    let m = structured::<T>(a, structure, lower)?;
    let mut x = to_faer::<T>(b)?;
    let n = m.nrows();
    let par = faer_par::for_shape(Kind::Lu, n, n);
    let solved = if structure == Structure::Positive {
        cholesky_solve(m, x.as_mut(), par)
    } else {
        lu_solve(m, x.as_mut(), par)
    };
    if !solved {
        return nans::<T>(b.shape());
    }
    from_faer(x.as_ref(), b.shape().to_vec())
}

/// Solves `m x = rhs` in place by LU; false if `m` is exactly singular.
fn lu_solve<T: Real>(mut m: Mat<T>, rhs: MatMut<'_, T>, par: Par) -> bool {
    let n = m.nrows();
    let (mut fwd, mut bwd) = (vec![0usize; n], vec![0usize; n]);
    let (_, perm) = lu_in_place_of(m.as_mut(), (&mut fwd, &mut bwd), par);
    if zero_pivot(m.as_ref()) {
        return false;
    }
    let need = faer::linalg::lu::partial_pivoting::solve::solve_in_place_scratch::<usize, T>(
        n,
        rhs.ncols(),
        par,
    );
    let mut scratch = MemBuffer::new(need);
    faer::linalg::lu::partial_pivoting::solve::solve_in_place(
        m.as_ref(),
        m.as_ref(),
        perm,
        rhs,
        par,
        MemStack::new(&mut scratch),
    );
    true
}

/// Solves `m x = rhs` in place by Cholesky of `m`'s lower triangle; false
/// if `m` is not positive definite.
fn cholesky_solve<T: Real>(mut m: Mat<T>, mut rhs: MatMut<'_, T>, par: Par) -> bool {
    if !llt_in_place(m.as_mut(), par) {
        return false;
    }
    // faer leaves the upper triangle as it was: only the lower one is L.
    let l = m.as_ref();
    tri::solve_lower_triangular_in_place(l, rhs.as_mut(), par);
    tri::solve_upper_triangular_in_place(l.transpose(), rhs, par);
    true
}

/// `x` with `a @ x = b` for `a` of the given structure, reading the
/// triangle `lower` where the structure is symmetric; NaNs where the
/// system has no unique solution (or `a` is not positive definite).
pub fn solve_structured(
    a: &Tensor,
    b: &Tensor,
    dtype: DType,
    structure: Structure,
    lower: bool,
) -> Result<Tensor> {
    let (rows, cols) = matrix_dims(a);
    faer_par::scoped(Kind::Lu, rows, cols, || {
        by_float!(dtype, solve_structured_t(a, b, structure, lower))
    })
}

fn solve_triangular_t<T: Real>(
    a: &Tensor,
    b: &Tensor,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Tensor> {
    check_system(a, b)?;
    let m = to_faer::<T>(a)?;
    let n = m.nrows();
    // LAPACK's `trtrs` reports an exact zero on the diagonal as singular.
    if !unit_diagonal && zero_pivot(m.as_ref()) {
        return nans::<T>(b.shape());
    }
    let mut x = to_faer::<T>(b)?;
    let par = faer_par::for_shape(Kind::Lu, n, n);
    triangular_in_place(m.as_ref(), x.as_mut(), lower, unit_diagonal, par);
    from_faer(x.as_ref(), b.shape().to_vec())
}

/// Solves `m x = rhs` in place, reading `m`'s triangle `lower` (its
/// diagonal taken as ones when `unit`).
fn triangular_in_place<T: Real>(
    m: MatRef<'_, T>,
    rhs: MatMut<'_, T>,
    lower: bool,
    unit: bool,
    par: Par,
) {
    match (lower, unit) {
        (true, false) => tri::solve_lower_triangular_in_place(m, rhs, par),
        (true, true) => tri::solve_unit_lower_triangular_in_place(m, rhs, par),
        (false, false) => tri::solve_upper_triangular_in_place(m, rhs, par),
        (false, true) => tri::solve_unit_upper_triangular_in_place(m, rhs, par),
    }
}

/// `x` with `a @ x = b`, reading only `a`'s triangle `lower` (its
/// diagonal as ones when `unit_diagonal`); NaNs if that diagonal holds an
/// exact zero.
pub fn solve_triangular(
    a: &Tensor,
    b: &Tensor,
    dtype: DType,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Tensor> {
    by_float!(dtype, solve_triangular_t(a, b, lower, unit_diagonal))
}

fn lu_factor_t<T: Real>(a: &Tensor) -> Result<Vec<Tensor>> {
    check_square(a)?;
    let mut m = to_faer::<T>(a)?;
    let n = m.nrows();
    let par = faer_par::for_shape(Kind::Lu, n, n);
    let (mut fwd, mut bwd) = (vec![0usize; n], vec![0usize; n]);
    lu_in_place_of(m.as_mut(), (&mut fwd, &mut bwd), par);
    let singular = zero_pivot(m.as_ref());
    let lu = if singular {
        // As PyTensor's `LUFactor` when `getrf` reports a zero pivot.
        nans::<T>(&[n, n])?
    } else {
        from_faer(m.as_ref(), vec![n, n])?
    };
    Ok(vec![lu, swaps_of(&fwd)?])
}

/// LAPACK's pivots (0-based, as SciPy gives them) for the row order
/// `order` (row `i` of the factored matrix is row `order[i]` of `a`): the
/// row swapped with row `i` at step `i`.
fn swaps_of(order: &[usize]) -> Result<Tensor> {
    let n = order.len();
    // `rows[i]`: which of `a`'s rows sits at `i`; `at[r]`: where row `r` is.
    let mut rows: Vec<usize> = (0..n).collect();
    let mut at: Vec<usize> = (0..n).collect();
    let mut piv = Vec::with_capacity(n);
    for (i, &want) in order.iter().enumerate() {
        let j = at[want];
        piv.push(i32::try_from(j).map_err(|_| Error::Value("matrix too large".into()))?);
        rows.swap(i, j);
        at[rows[i]] = i;
        at[rows[j]] = j;
    }
    Tensor::from_vec(vec![n], piv)
}

/// `[lu, piv]`: `a`'s LU factors packed in one matrix (`L` strictly below
/// the diagonal with an implied unit diagonal, `U` on and above) and the
/// int32 pivots of `scipy.linalg.lu_factor`; an exactly singular `a` gives
/// a factor of NaNs.
pub fn lu_factor(a: &Tensor, dtype: DType) -> Result<Vec<Tensor>> {
    let (rows, cols) = matrix_dims(a);
    faer_par::scoped(Kind::Lu, rows, cols, || by_float!(dtype, lu_factor_t(a)))
}

/// The permutation `p` of LAPACK's pivots with `(P a)[i] = a[p[i]]`
/// (`inverse`), or its inverse: int64.
pub fn pivots_to_permutation(pivots: &Tensor, inverse: bool) -> Result<Tensor> {
    let piv = to_contiguous(&cast::cast(pivots, DType::Int64)?)?;
    let piv = piv
        .as_slice::<i64>()
        .expect("contiguous after to_contiguous");
    let n = piv.len();
    let mut order: Vec<i64> = (0..n as i64).collect();
    for (i, &p) in piv.iter().enumerate() {
        let j = usize::try_from(p)
            .ok()
            .filter(|&j| j < n)
            .ok_or_else(|| Error::Index(format!("pivot {p} out of range for {n} rows")))?;
        order.swap(i, j);
    }
    if !inverse {
        let mut back = vec![0i64; n];
        for (i, &r) in order.iter().enumerate() {
            back[r as usize] = i as i64;
        }
        order = back;
    }
    Tensor::from_vec(vec![n], order)
}

fn lu_factor_grad_t<T: Real>(lu: &Tensor, piv: &Tensor, g: &Tensor) -> Result<Tensor> {
    let (lu, g) = (to_faer::<T>(lu)?, to_faer::<T>(g)?);
    let n = lu.nrows();
    let zero = T::zero_impl();
    let l = Mat::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Greater => lu[(i, j)],
        std::cmp::Ordering::Equal => T::one_impl(),
        std::cmp::Ordering::Less => zero,
    });
    let u = Mat::from_fn(n, n, |i, j| if i <= j { lu[(i, j)] } else { zero });
    let gl = Mat::from_fn(n, n, |i, j| if i > j { g[(i, j)] } else { zero });
    let gu = Mat::from_fn(n, n, |i, j| if i <= j { g[(i, j)] } else { zero });
    // De Hoog, Anderssen and Lukas: with B = Pᵀa = LU, the gradient of B is
    // L⁻ᵀ (tril(LᵀḠ_L, -1) + triu(Ḡ_U Uᵀ)) U⁻ᵀ.
    let x1 = l.transpose() * &gl;
    let x2 = &gu * u.transpose();
    let mut m = Mat::from_fn(n, n, |i, j| if i > j { x1[(i, j)] } else { x2[(i, j)] });
    tri::solve_unit_upper_triangular_in_place(l.transpose(), m.as_mut(), Par::Seq);
    let mut mt = m.transpose().to_owned();
    tri::solve_upper_triangular_in_place(u.as_ref(), mt.as_mut(), Par::Seq);
    // Row i of B is row order[i] of a: scatter B's gradient back.
    let order = pivots_to_permutation(piv, true)?;
    let order = order.as_slice::<i64>().expect("made contiguous");
    let mut ga = Mat::<T>::zeros(n, n);
    for (i, &r) in order.iter().enumerate() {
        for j in 0..n {
            ga[(r as usize, j)] = mt[(j, i)];
        }
    }
    from_faer(ga.as_ref(), vec![n, n])
}

/// The gradient of `lu_factor`'s input from the packed factors, the pivots
/// and the factors' gradient.
pub fn lu_factor_grad(lu: &Tensor, piv: &Tensor, g: &Tensor, dtype: DType) -> Result<Tensor> {
    check_square(lu)?;
    if piv.shape() != [lu.shape()[0]] || g.shape() != lu.shape() {
        return Err(Error::Shape(format!(
            "LUFactorGrad: factors {:?}, pivots {:?} and gradient {:?} do not match",
            lu.shape(),
            piv.shape(),
            g.shape()
        )));
    }
    by_float!(dtype, lu_factor_grad_t(lu, piv, g))
}

#[cfg(test)]
#[path = "solvers_tests.rs"]
mod tests;
