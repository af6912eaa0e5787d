//! A matrix times a vector through the installed host library's
//! `cblas_?gemv`, under the inner-product family's route (`Family::Dot`):
//! both are memory-bound, and OpenBLAS's spinning threads answer a call of
//! a fraction of a millisecond at once, where rayon's sleeping threads
//! take 10–20 µs to wake. Our four-row kernel reached 0.6x NumPy's
//! `dgemv` on 2000² float64 (1.6x its time on one thread).

use super::inner::Inner;
use super::matvec::Lhs;
use super::{layout, serving, TRANS};
use crate::kernels::linalg::engine::Family;
use std::ffi::c_int;

/// `CblasRowMajor` from `cblas.h`.
const ROW_MAJOR: c_int = 101;

/// `cblas_?gemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy)`
/// with integers `I`.
type Gemv<T, I> =
    unsafe extern "C" fn(c_int, c_int, I, I, T, *const T, I, *const T, I, T, *mut T, I);

/// `y[o] = Σ_p m(o, p) · x[p·sx]` by the host's `cblas_?gemv`; false
/// (nothing done) when no library serves inner products, it lacks the
/// routine, or the strides or sizes do not fit it.
///
/// # Safety
/// As [`super::matvec::matvec`]: `m` addresses `y.len()` × `k` elements
/// with its strides and `x` holds `k` elements at stride `sx`.
pub(super) unsafe fn try_matvec<T: Inner>(
    y: &mut [T],
    m: Lhs<T>,
    k: usize,
    (px, sx): (*const T, isize),
) -> bool {
    let outs = y.len();
    let Some((trans, lda)) = layout(outs, k, m.so, m.sp) else {
        return false;
    };
    // The matrix as stored: outs × k, or k × outs read transposed.
    let (rows, cols) = if trans == TRANS { (k, outs) } else { (outs, k) };
    let incx = if k == 1 { 1 } else { sx };
    let Ok(incx) = usize::try_from(incx) else {
        return false;
    };
    let dims = [rows, cols, lda, incx];
    serving(Family::Dot, |lib| {
        let addr = lib.cblas(T::GEMV);
        // SAFETY: the caller's contract on the operands; `install`'s on the
        // address (a CBLAS ?gemv for `T` with the library's integers).
        let args = (trans, dims, (m.ptr, px, y.as_mut_ptr()));
        match addr {
            0 => false,
            // SAFETY: `addr` is the library's ?gemv for `T`, called with the integer width the library was opened with; `m` and `y` hold the extents `dims` names.
            _ if lib.ilp64() => unsafe { call::<T, i64>(addr, args) },
            // SAFETY: `addr` is the library's ?gemv for `T`, called with the integer width the library was opened with; `m` and `y` hold the extents `dims` names.
            _ => unsafe { call::<T, i32>(addr, args) },
        }
    })
    .unwrap_or(false)
}

/// Calls the `cblas_?gemv` at `addr` with integers `I`; false when a
/// dimension does not fit `I`.
///
/// # Safety
/// `addr` is a CBLAS ?gemv for `T` taking `I`; the pointers address a
/// `rows × cols` matrix with leading dimension `lda`, a vector of the
/// transposed-or-not column count at `incx`, and the outputs.
unsafe fn call<T: Inner, I: TryFrom<usize> + Copy>(
    addr: usize,
    (trans, dims, (a, x, y)): (c_int, [usize; 4], (*const T, *const T, *mut T)),
) -> bool {
    let to = |v: usize| I::try_from(v).ok();
    let (Some(rows), Some(cols), Some(lda), Some(incx), Some(one)) =
        (to(dims[0]), to(dims[1]), to(dims[2]), to(dims[3]), to(1))
    else {
        return false;
    };
    // SAFETY: the caller's contract.
    let gemv: Gemv<T, I> = unsafe { std::mem::transmute(addr) };
    let (unit, zero) = (T::ONE, T::default());
    // SAFETY: `addr` is the library's ?gemv for `T`, called with the integer width the library was opened with; `m` and `y` hold the extents `dims` names.
    unsafe {
        gemv(
            ROW_MAJOR, trans, rows, cols, unit, a, lda, x, incx, zero, y, one,
        )
    };
    true
}
