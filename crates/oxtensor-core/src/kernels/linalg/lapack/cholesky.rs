//! Cholesky through the host's LAPACK (`?potrf`, NumPy's routine), when one
//! is installed and serves the Cholesky family ([`crate::kernels::linalg::engine`]); `None`
//! otherwise, or for an empty or oversized matrix, and the caller falls
//! back to faer.
//!
//! No transposing copy: the C-ordered buffer read column-major is `aᵀ`,
//! whose upper triangle is `a`'s lower one. `?potrf('U')` there gives `U`
//! with `aᵀ = Uᵀ U`, and `U` stored column-major reads in C order as
//! `Uᵀ = L`, `a`'s lower factor; `'L'` likewise gives the upper factor.

use super::layout::{elements, working_copy};
use super::{by_int_width, int, some_try, with_routines, Int};
use crate::error::{Error, Result};
use crate::kernels::linalg::engine::Family;
use crate::kernels::linalg::faer::cholesky::zero_other_triangle;
use crate::kernels::linalg::faer::Real;
use crate::tensor::Tensor;

/// `?potrf(uplo, n, a, lda, info)`, then the hidden length of `uplo`.
type Potrf<T, I> = unsafe extern "C" fn(*const u8, *const I, *mut T, *const I, *mut I, usize);

/// The Cholesky factor of the non-empty square `a` (lower `L` or upper
/// `Lᵀ`, read from that triangle), all NaN when `a` is not positive
/// definite and `nan_on_error`, else an error then; `None` without a
/// host LAPACK serving Cholesky.
pub(crate) fn cholesky<T: Real>(
    a: &Tensor,
    lower: bool,
    nan_on_error: bool,
) -> Option<Result<Tensor>> {
    let n = a.shape()[0];
    with_routines::<T, 1, _>(n == 0, Family::Cholesky, ["potrf"], |[addr], ilp64| {
        by_int_width!(ilp64, potrf::<T>(addr, a, lower, nan_on_error))
    })
}

fn potrf<T: Real, I: Int>(
    addr: usize,
    a: &Tensor,
    lower: bool,
    nan_on_error: bool,
) -> Option<Result<Tensor>> {
    let n = a.shape()[0];
    let ni = int::<I>(n)?;
    let mut out = some_try!(working_copy::<T>(a, false));
    let data = elements::<T>(&mut out);
    let uplo = if lower { b'U' } else { b'L' };
    let mut info = I::default();
    // SAFETY: `with_routines` found `?potrf` for `T` in a library whose
    // integers are `I`; `data` holds n² elements.
    let potrf: Potrf<T, I> = unsafe { std::mem::transmute(addr) };
    // SAFETY: as above.
    unsafe { potrf(&uplo, &ni, data.as_mut_ptr(), &ni, &mut info, 1) };
    // OpenBLAS's potrf passes NaNs through where faer (and reference
    // LAPACK) stop: a NaN on the diagonal fails here too.
    let nan = (0..n).any(|i| data[i * n + i].not_a_number());
    match if nan { 1 } else { info.into() } {
        0 => {
            zero_other_triangle(data, n, lower);
            Some(Ok(out))
        }
        i if i > 0 && nan_on_error => {
            data.fill(T::nan_impl());
            Some(Ok(out))
        }
        i if i > 0 => Some(Err(Error::LinAlg(
            "Matrix is not positive definite (Cholesky factorization failed)".into(),
        ))),
        i => Some(Err(Error::Value(format!(
            "potrf rejected its argument {} (a bug in oxtensor's call)",
            -i
        )))),
    }
}
