//! LU through the host's LAPACK, as NumPy does it: `det` and `slogdet`
//! from `?getrf`, `inv` by `?getrf` + `?getri`, `solve` by `?getrf` +
//! `?getrs`. Each
//! function returns `None` when no library (or routine) is installed or
//! it does not serve the LU family ([`crate::kernels::linalg::engine`]), or the matrix is
//! empty or too large for the library's integers, and the caller falls
//! back to faer.
//!
//! NumPy's `inv` runs `?gesv` against the identity: 2n³ multiply-adds
//! after the LU, against 4n³/3 for `?getri` (measured at 500², best of 7:
//! 10.5 ms against 5.9, NumPy 7.0).
//!
//! `slogdet` factors `a` itself (a transposing copy into column-major
//! order) and reduces U's diagonal as NumPy does (the sign from the pivots
//! and the signs, `Σ log|uᵢᵢ|`), so `det = sign · exp(log)` is NumPy's bit
//! for bit. `inv` and `solve` factor the
//! C-ordered buffer as it is, `aᵀ`: `inv(aᵀ)` written column-major is
//! `inv(a)` in C order, and `aᵀ`'s factors solve `(aᵀ)ᵀ x = b`.

use super::layout::{elements, leading_columns, working_copy};
use super::{by_int_width, check, int, some_try, with_routines, with_workspace, Int};
use crate::error::{Error, Result};
use crate::kernels::linalg::engine::Family;
use crate::kernels::linalg::faer::{slogdet_from_diagonal, Real};
use crate::tensor::Tensor;

/// `?getrf(m, n, a, lda, ipiv, info)`.
type Getrf<T, I> = unsafe extern "C" fn(*const I, *const I, *mut T, *const I, *mut I, *mut I);

/// `?getrs(trans, n, nrhs, a, lda, ipiv, b, ldb, info)`, then the hidden
/// length of `trans`.
type Getrs<T, I> = unsafe extern "C" fn(
    *const u8,
    *const I,
    *const I,
    *const T,
    *const I,
    *const I,
    *mut T,
    *const I,
    *mut I,
    usize,
);

/// `?getri(n, a, lda, ipiv, work, lwork, info)`.
type Getri<T, I> =
    unsafe extern "C" fn(*const I, *mut T, *const I, *const I, *mut T, *const I, *mut I);

fn singular() -> Error {
    Error::Value("Matrix is singular to machine precision.".into())
}

/// LU-factors the column-major n×n `lu` in place with `?getrf` at `addr`:
/// the pivots (1-based, as LAPACK writes them) and `info` (`> 0`: an exact
/// zero pivot, the factorisation still completed).
fn getrf<T: Real, I: Int>(addr: usize, lu: &mut [T], n: usize) -> Option<(Vec<I>, I)> {
    let ni = int::<I>(n)?;
    let (mut ipiv, mut info) = (vec![I::default(); n], I::default());
    // SAFETY: `with_routines` found `?getrf` for `T` in a library whose
    // integers are `I`; `lu` holds n² elements and `ipiv` n.
    let getrf: Getrf<T, I> = unsafe { std::mem::transmute(addr) };
    // SAFETY: `with_routines` found the routine for `T` in a library whose integers are `I`; the buffers hold the sizes the routine is told.
    unsafe { getrf(&ni, &ni, lu.as_mut_ptr(), &ni, ipiv.as_mut_ptr(), &mut info) };
    Some((ipiv, info))
}

/// `(sign, log|det|)` from a completed `?getrf` (see
/// [`slogdet_from_diagonal`]).
fn slogdet_from_lu<T: Real, I: Int>(lu: &[T], ipiv: &[I]) -> (T, T) {
    let n = ipiv.len();
    let swaps = ipiv.iter().enumerate();
    let odd = swaps.filter(|&(i, &p)| p.into() != i as i64 + 1).count() % 2 == 1;
    slogdet_from_diagonal((0..n).map(|i| lu[i * n + i]), odd)
}

/// `(sign, log|det(a)|)` of a non-empty square matrix by `?getrf`, or
/// `None`.
pub(crate) fn slogdet<T: Real>(a: &Tensor) -> Option<Result<(T, T)>> {
    let n = a.shape()[0];
    with_routines::<T, 1, _>(n == 0, Family::Lu, ["getrf"], |[addr], ilp64| {
        by_int_width!(ilp64, slogdet_with::<T>(addr, a, n))
    })
}

fn slogdet_with<T: Real, I: Int>(addr: usize, a: &Tensor, n: usize) -> Option<Result<(T, T)>> {
    let mut f = some_try!(working_copy::<T>(a, true));
    let lu = elements::<T>(&mut f);
    let (ipiv, info) = getrf::<T, I>(addr, lu, n)?;
    let done = check(info.into().min(0), "getrf", |_| String::new());
    Some(done.map(|()| slogdet_from_lu(lu, &ipiv)))
}

/// `inv(a)` of a non-empty square matrix by `?getrf` + `?getri`, or
/// `None`; an error if it is exactly singular.
pub(crate) fn inv<T: Real>(a: &Tensor) -> Option<Result<Tensor>> {
    let n = a.shape()[0];
    with_routines::<T, 2, _>(n == 0, Family::Lu, ["getrf", "getri"], |[rf, ri], ilp64| {
        by_int_width!(ilp64, inv_with::<T>((rf, ri), a, n))
    })
}

fn inv_with<T: Real, I: Int>(
    (rf, ri): (usize, usize),
    a: &Tensor,
    n: usize,
) -> Option<Result<Tensor>> {
    let mut out = some_try!(working_copy::<T>(a, false));
    let lu = elements::<T>(&mut out);
    let (ipiv, info) = getrf::<T, I>(rf, lu, n)?;
    some_try!(check(info, "getrf", |_| singular().to_string()));
    let ni = int::<I>(n)?;
    // SAFETY: as in `getrf`, for `?getri`; `work` holds `lwork` elements.
    let getri: Getri<T, I> = unsafe { std::mem::transmute(ri) };
    let info = with_workspace::<T, I>("getri", |work, lwork| {
        let mut info = I::default();
        let (pa, pw) = (lu.as_mut_ptr(), work.as_mut_ptr());
        // SAFETY: `with_routines` found the routine for `T` in a library whose integers are `I`; the buffers hold the sizes the routine is told.
        unsafe { getri(&ni, pa, &ni, ipiv.as_ptr(), pw, &lwork, &mut info) };
        info
    })?;
    let done = info.and_then(|info| check(info, "getri", |_| singular().to_string()));
    Some(done.map(|()| out))
}

/// `x` with `a x = b` (`b` a vector or an n×k matrix) for a non-empty
/// square `a` by `?getrf` + `?getrs`, or `None`; an error if `a` is
/// exactly singular. The C-ordered buffer is `aᵀ`: its factors solve the
/// transposed system, `(aᵀ)ᵀ x = b`.
pub(crate) fn solve<T: Real>(a: &Tensor, b: &Tensor) -> Option<Result<Tensor>> {
    let n = a.shape()[0];
    let nrhs = if b.ndim() == 2 { b.shape()[1] } else { 1 };
    with_routines::<T, 2, _>(
        n == 0 || nrhs == 0,
        Family::Lu,
        ["getrf", "getrs"],
        |addrs, ilp64| by_int_width!(ilp64, solve_with::<T>(addrs, a, b, nrhs)),
    )
}

fn solve_with<T: Real, I: Int>(
    [rf, rs]: [usize; 2],
    a: &Tensor,
    b: &Tensor,
    nrhs: usize,
) -> Option<Result<Tensor>> {
    let n = a.shape()[0];
    let mut f = some_try!(working_copy::<T>(a, false));
    let lu = elements::<T>(&mut f);
    let (ipiv, info) = getrf::<T, I>(rf, lu, n)?;
    some_try!(check(info, "getrf", |_| singular().to_string()));
    // A matrix `b` goes in (and `x` comes out) column-major.
    let matrix = b.ndim() == 2;
    let mut x = some_try!(working_copy::<T>(b, matrix));
    let (ni, ki) = (int::<I>(n)?, int::<I>(nrhs)?);
    let (mut info, trans) = (I::default(), b'T');
    // SAFETY: `with_routines` found `?getrs` for `T` in a library whose
    // integers are `I`; `lu` holds n² elements, `ipiv` n, `x` n·nrhs.
    let getrs: Getrs<T, I> = unsafe { std::mem::transmute(rs) };
    let px = elements::<T>(&mut x).as_mut_ptr();
    // SAFETY: `with_routines` found the routine for `T` in a library whose integers are `I`; the buffers hold the sizes the routine is told.
    unsafe {
        getrs(
            &trans,
            &ni,
            &ki,
            lu.as_ptr(),
            &ni,
            ipiv.as_ptr(),
            px,
            &ni,
            &mut info,
            1,
        )
    };
    let done = check(info, "getrs", |i| format!("getrs failed ({i})"));
    Some(done.and_then(|()| match matrix {
        true => leading_columns(&x, n, nrhs),
        false => Ok(x),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slogdet_from_factors() {
        // U = [[2, ·], [·, -3]] with one row swap: det = -1 · 2 · -3 = 6.
        let lu = [2.0f64, 0.5, 1.0, -3.0];
        let (sign, log) = slogdet_from_lu(&lu, &[2i32, 2]);
        assert_eq!(sign, 1.0);
        assert!((log - 6f64.ln()).abs() < 1e-14, "{log}");
        // No swap: -6; a zero pivot: sign 0 and log -inf, as NumPy.
        assert_eq!(slogdet_from_lu(&lu, &[1i64, 2]).0, -1.0);
        let zero = slogdet_from_lu(&[-1.0f64, 0., 0., 0.], &[1i32, 2]);
        assert_eq!(zero, (0.0, f64::NEG_INFINITY));
        assert!(zero.0.is_sign_positive());
        // NaN on the diagonal: the sign stays, the log is NaN (NumPy's).
        let (sign, log) = slogdet_from_lu(&[f32::NAN, 0., 0., -1.], &[1i32, 2]);
        assert!(sign == -1.0 && log.is_nan());
        // 1e200 · 1e200 · 1e200 overflows as a product, not as a log.
        let big = [1e200f64, 0., 0., 0., 1e200, 0., 0., 0., 1e200];
        let (sign, log) = slogdet_from_lu(&big, &[1i32, 2, 3]);
        assert!(sign == 1.0 && (log / (600.0 * 10f64.ln()) - 1.0).abs() < 1e-14);
    }
}
