//! QR through the host's LAPACK, as NumPy's `qr`: `?geqrf` factors `a`
//! (R on and above the diagonal, Householder reflectors below it), and
//! `?orgqr` turns the reflectors into Q's columns. `qr` returns `None`
//! when no library (or routine) is installed or serves QR, or the matrix is empty or
//! too large for the library's integers, and the caller falls back to faer.
//!
//! QR is not transpose-invariant, so `a` is first copied into column-major
//! order (a transposing copy of the C-ordered input). Q and R come back
//! column-major and are returned as tensors with column-major strides:
//! no copy out.

use super::layout::{column_major, elements, leading_columns, working_copy};
use super::{by_int_width, check, int, some_try, with_routines, with_workspace, Int};
use crate::error::Result;
use crate::kernels::linalg::engine::Family;
use crate::kernels::linalg::faer::Real;
use crate::tensor::Tensor;

/// `?geqrf(m, n, a, lda, tau, work, lwork, info)`.
type Geqrf<T, I> =
    unsafe extern "C" fn(*const I, *const I, *mut T, *const I, *mut T, *mut T, *const I, *mut I);

/// `?orgqr(m, n, k, a, lda, tau, work, lwork, info)`.
type Orgqr<T, I> = unsafe extern "C" fn(
    *const I,
    *const I,
    *const I,
    *mut T,
    *const I,
    *const T,
    *mut T,
    *const I,
    *mut I,
);

/// R's `rows`×`n` column-major elements (`rows` ≥ min(m, n), zero-padded)
/// from the m×n column-major `?geqrf` output `f`.
fn upper<T: Real>(f: &[T], m: usize, n: usize, rows: usize) -> Vec<T> {
    let mut r = vec![T::zero_impl(); rows * n];
    for (j, col) in r.chunks_exact_mut(rows.max(1)).take(n).enumerate() {
        let len = (j + 1).min(m).min(rows);
        col[..len].copy_from_slice(&f[j * m..j * m + len]);
    }
    r
}

/// `[Q, R]` (or `[R]` without `with_q`) of a non-empty m×n matrix, complete
/// (Q m×m, R m×n) or reduced (Q m×k, R k×n, k = min(m, n)), or `None`.
pub(crate) fn qr<T: Real>(a: &Tensor, complete: bool, with_q: bool) -> Option<Result<Vec<Tensor>>> {
    let (m, n) = (a.shape()[0], a.shape()[1]);
    with_routines::<T, 2, _>(
        m == 0 || n == 0,
        Family::Qr,
        ["geqrf", "orgqr"],
        |addrs, ilp64| by_int_width!(ilp64, qr_with::<T>(addrs, a, complete, with_q)),
    )
}

fn qr_with<T: Real, I: Int>(
    [qf, og]: [usize; 2],
    a: &Tensor,
    complete: bool,
    with_q: bool,
) -> Option<Result<Vec<Tensor>>> {
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let k = m.min(n);
    let (mi, ni) = (int::<I>(m)?, int::<I>(n)?);
    let mut f = some_try!(working_copy::<T>(a, true));
    let af = elements::<T>(&mut f);
    let mut tau = vec![T::default(); k];
    // SAFETY: `with_routines` found `?geqrf` for `T` in a library whose
    // integers are `I`; `af` holds m·n elements, `tau` min(m, n), `work`
    // `lwork`.
    let geqrf: Geqrf<T, I> = unsafe { std::mem::transmute(qf) };
    let info = with_workspace::<T, I>("geqrf", |work, lwork| {
        let (mut info, pa, pt) = (I::default(), af.as_mut_ptr(), tau.as_mut_ptr());
        // SAFETY: `with_routines` found the routine for `T` in a library whose integers are `I`; the buffers hold the sizes the routine is told.
        unsafe { geqrf(&mi, &ni, pa, &mi, pt, work.as_mut_ptr(), &lwork, &mut info) };
        info
    })?;
    if let Err(e) = info.and_then(|i| check(i, "geqrf", |i| format!("geqrf failed ({i})"))) {
        return Some(Err(e));
    }
    let rows = if complete { m } else { k };
    let r = column_major(upper(af, m, n, rows), rows, n);
    if !with_q {
        return Some(r.map(|r| vec![r]));
    }
    let q_cols = if complete { m } else { k };
    let q = if q_cols <= n {
        // Q overwrites the reflectors where they are: its first columns.
        orgqr::<T, I>(og, &mut af[..m * q_cols], m, q_cols, &tau)?
            .and_then(|()| leading_columns(&f, m, q_cols))
    } else {
        // A complete Q of a tall matrix has more columns than `a`.
        let mut q = vec![T::zero_impl(); m * m];
        q[..m * n].copy_from_slice(af);
        orgqr::<T, I>(og, &mut q, m, m, &tau)?.and_then(|()| column_major(q, m, m))
    };
    Some(q.and_then(|q| Ok(vec![q, r?])))
}

/// Overwrites the column-major m×`cols` `q`, whose first `tau.len()`
/// columns hold `?geqrf`'s reflectors, with Q's first `cols` columns.
fn orgqr<T: Real, I: Int>(
    addr: usize,
    q: &mut [T],
    m: usize,
    cols: usize,
    tau: &[T],
) -> Option<Result<()>> {
    let (mi, ci, ki) = (int::<I>(m)?, int::<I>(cols)?, int::<I>(tau.len())?);
    // SAFETY: `with_routines` found `?orgqr` for `T` in a library whose
    // integers are `I`; `q` holds m·cols elements, `work` `lwork`.
    let orgqr: Orgqr<T, I> = unsafe { std::mem::transmute(addr) };
    let info = with_workspace::<T, I>("orgqr", |work, lwork| {
        let (mut info, pq, pw) = (I::default(), q.as_mut_ptr(), work.as_mut_ptr());
        // SAFETY: `with_routines` found the routine for `T` in a library whose integers are `I`; the buffers hold the sizes the routine is told.
        unsafe { orgqr(&mi, &ci, &ki, pq, &mi, tau.as_ptr(), pw, &lwork, &mut info) };
        info
    })?;
    Some(info.and_then(|i| check(i, "orgqr", |i| format!("orgqr failed ({i})"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_is_the_upper_trapezoid_zero_padded() {
        // 3×2 column-major [[1, 4], [2, 5], [3, 6]]: R keeps 1, 4, 5.
        let f = [1.0f64, 2., 3., 4., 5., 6.];
        assert_eq!(upper(&f, 3, 2, 2), vec![1.0, 0., 4., 5.]);
        assert_eq!(upper(&f, 3, 2, 3), vec![1.0, 0., 0., 4., 5., 0.]);
        // 2×3 [[1, 3, 5], [2, 4, 6]]: R is all of row 0 and 4, 6.
        assert_eq!(upper(&f, 2, 3, 2), vec![1.0, 0., 3., 4., 5., 6.]);
        assert_eq!(upper(&[7.0f32], 1, 1, 1), vec![7.0]);
    }
}
