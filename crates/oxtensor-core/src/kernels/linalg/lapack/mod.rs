//! Decompositions through the host's LAPACK, when one is installed (see
//! [`crate::kernels::linalg::blas`]: from Python, the OpenBLAS NumPy loaded).
//!
//! The shared plumbing of the LAPACK calls (routine lookup, integer
//! widths, workspace queries, error codes) and `eigh` (`?syevd`). NumPy's
//! `eigh` and `svd` ([`svd`]) call OpenBLAS's `?syevd` and
//! `?gesdd`, which beat faer's divide-and-conquer by 1.4–1.7x on the AVX2
//! machines we measured first; calling the same routines gives the same
//! speed and, up to threading order, NumPy's very values. Each function
//! returns `None` when no library (or routine) is installed or the library
//! does not serve that family ([`crate::kernels::linalg::engine`]), and the caller falls
//! back to faer.
//!
//! LAPACK is column-major: a C-ordered buffer handed to it as is reads as
//! the transpose, which the callers below turn to their advantage rather
//! than copy. Every argument goes by pointer; character arguments carry a
//! hidden length (gfortran's `size_t`) after the last argument.
//!
//! # Measured
//!
//! `eigh` and `svd` go to the host LAPACK when one serves them
//! (this module: `?syevd`, `?gesdd`, NumPy's own routines, looked up
//! with `HostBlas::fortran`; faer otherwise, and for empty matrices). On a
//! 2-core box at load ~3.5 (best of 2–3, same process; very noisy), float64
//! NumPy/ours at 500²/1000²: eigh 0.60/0.42 on faer → 0.91/0.77 on LAPACK, svd
//! full 0.66/0.58 → 1.14/1.08, thin 0.69/0.56 → 1.16/0.96, values only
//! 0.61/0.48 → 1.07/0.90. The LU family, Cholesky and QR were within noise of
//! NumPy on faer and stay there. `inv`, `det` and `solve`
//! (`lu.rs`) and `qr` (`qr.rs`) followed: NumPy's
//! routines (`inv` by `?getri`, 4n³/3 after the LU, not NumPy's `?gesv` against
//! I, 2n³: 5.9 against 10.5 ms at 500²), so `det` and `qr` match NumPy's values
//! (det bit for bit, Q/R signs included). Float64 500², load ~3.5, best of 7,
//! NumPy/ours on faer → on LAPACK: inv 0.70 → 1.18, det 1.06 → 0.97, qr
//! complete 0.72 → 1.10, reduced 0.71 → 1.10, R only 0.77 → 1.05, solve 0.99 →
//! 1.02 (last quiet session, faer: inv 0.84, det 0.84, qr 0.80). At 2000² the
//! machine was never quiet enough: OpenBLAS's threads (NumPy's included) slow
//! down 2–3× when the 2 cores are shared, faer's far less. The faer `det` now
//! reduces its LU the same way (faer's `determinant` gave NaN for a zero
//! matrix; a zero pivot gives exactly 0, as NumPy). All of this was measured on
//! the earlier AVX2 machine; the engine decision above says where faer runs
//! these now. `?potrf` (`cholesky.rs`) joined them for machines
//! where the host serves Cholesky.

pub(super) mod cholesky;
pub(super) mod layout;
pub(super) mod lu;
pub(super) mod qr;
pub(super) mod svd;

use crate::error::{Error, Result};
use crate::kernels::linalg::blas;
use crate::kernels::linalg::engine::Family;
use crate::kernels::linalg::faer::{from_faer, Real};
use crate::tensor::Tensor;
use faer::MatRef;

/// A float LAPACK works in: its routine letter, and how it reads the
/// workspace size a `lwork = -1` query writes into `work[0]`.
pub trait Scalar: Copy + Default {
    /// `s` for float32, `d` for float64.
    const LETTER: &'static str;
    /// A workspace size LAPACK returned as a float (rounded up: float32
    /// cannot hold every large integer exactly).
    fn size(self) -> usize;
    /// Whether this is a NaN (generic code cannot name `f64::is_nan`).
    fn not_a_number(self) -> bool;
}

impl Scalar for f32 {
    const LETTER: &'static str = "s";
    fn size(self) -> usize {
        // One part in 2^24 may have been rounded away.
        (f64::from(self) * (1.0 + 1e-6)).ceil() as usize
    }
    fn not_a_number(self) -> bool {
        self.is_nan()
    }
}

impl Scalar for f64 {
    const LETTER: &'static str = "d";
    fn size(self) -> usize {
        self.ceil() as usize
    }
    fn not_a_number(self) -> bool {
        self.is_nan()
    }
}

/// LAPACK's integer: `int` (LP64) or 64-bit (ILP64).
pub trait Int: Copy + Default + TryFrom<usize> + Into<i64> {
    /// What a workspace query passes as its size.
    const QUERY: Self;
}
impl Int for i32 {
    const QUERY: Self = -1;
}
impl Int for i64 {
    const QUERY: Self = -1;
}

/// `n` as the library's integer (the caller falls back to faer if not).
pub(crate) fn int<I: Int>(n: usize) -> Option<I> {
    I::try_from(n).ok()
}

/// The outcome of a LAPACK call: `info < 0` means we passed a bad argument
/// (our bug), `info > 0` the routine's own failure, described by `failed`.
pub(crate) fn check<I: Int>(
    info: I,
    routine: &str,
    failed: impl FnOnce(i64) -> String,
) -> Result<()> {
    match info.into() {
        0 => Ok(()),
        i if i < 0 => Err(Error::Value(format!(
            "{routine} rejected its argument {} (a bug in oxtensor's call)",
            -i
        ))),
        i => Err(Error::LinAlg(failed(i))),
    }
}

/// `$f::<$t, I>(args)` with `I` the integer of the library
/// [`with_routines`] found (`ilp64`: `i64`, else `i32`): one generic body,
/// monomorphised for each width.
macro_rules! by_int_width {
    ($ilp64:expr, $f:ident::<$t:ty>($($arg:expr),* $(,)?)) => {
        if $ilp64 {
            $f::<$t, i64>($($arg),*)
        } else {
            $f::<$t, i32>($($arg),*)
        }
    };
}
pub(crate) use by_int_width;

/// `?` on a `Result` in a function that returns `Option<Result<_>>` (the
/// `None` of a library that does not serve the call is not an error).
macro_rules! some_try {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        }
    };
}
pub(crate) use some_try;

/// Runs `f` with the addresses of `?{routine}` for `T` of each routine and
/// whether the library's integers are 64-bit, if the installed library
/// serves `family` and has them all (one lookup, under one lock); the
/// library stays loaded for the call. `None` otherwise, for an `empty`
/// problem (faer answers those with no call to make), and where `f` gives
/// none (sizes past the library's integers).
pub(crate) fn with_routines<T: Scalar, const N: usize, R>(
    empty: bool,
    family: Family,
    routines: [&str; N],
    f: impl FnOnce([usize; N], bool) -> Option<R>,
) -> Option<R> {
    if empty {
        return None;
    }
    blas::serving(family, |lib| {
        let addrs = routines.map(|r| lib.fortran(&format!("{}{r}", T::LETTER)));
        (!addrs.contains(&0)).then(|| f(addrs, lib.ilp64()))
    })
    .flatten()
    .flatten()
}

/// Runs a routine that takes a workspace twice, `run(work, lwork)` giving
/// its `info`: a `lwork = -1` size query, then with the workspace asked
/// for. The second call's `info`; `None` if the size does not fit an `I`.
pub(crate) fn with_workspace<T: Scalar, I: Int>(
    routine: &str,
    mut run: impl FnMut(&mut [T], I) -> I,
) -> Option<Result<I>> {
    let mut query = [T::default()];
    let info = run(&mut query, I::QUERY);
    if let Err(e) = check(info, routine, |i| format!("workspace query failed ({i})")) {
        return Some(Err(e));
    }
    let lwork = query[0].size().max(1);
    Some(Ok(run(&mut vec![T::default(); lwork], int(lwork)?)))
}

/// The C-ordered copy of the column-major `rows`×`cols` buffer `z`.
fn from_column_major<T: Real>(z: &[T], rows: usize, cols: usize) -> Result<Tensor> {
    from_faer(
        MatRef::from_column_major_slice(z, rows, cols),
        vec![rows, cols],
    )
}

/// `?syevd(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info)`.
type Syevd<T, I> = unsafe extern "C" fn(
    *const u8,
    *const u8,
    *const I,
    *mut T,
    *const I,
    *mut T,
    *mut T,
    *const I,
    *mut I,
    *const I,
    *mut I,
    usize,
    usize,
);

/// `[w, V]` (`[w]` without `vectors`) of the symmetric n×n matrix whose
/// C-ordered elements are `a`, read from its lower (or upper) triangle, by
/// `?syevd` as NumPy's `eigh` (`jobz = 'N'` for values only, as its
/// `eigvalsh`); `None` without a host LAPACK serving `eigh` (or for an
/// empty or oversized matrix).
pub(crate) fn eigh<T: Real>(
    a: &[T],
    n: usize,
    lower: bool,
    vectors: bool,
) -> Option<Result<Vec<Tensor>>> {
    with_routines::<T, 1, _>(n == 0, Family::Eigh, ["syevd"], |[addr], ilp64| {
        by_int_width!(ilp64, eigh_with::<T>(addr, a, n, (lower, vectors)))
    })
}

fn eigh_with<T: Real, I: Int>(
    addr: usize,
    a: &[T],
    n: usize,
    (lower, vectors): (bool, bool),
) -> Option<Result<Vec<Tensor>>> {
    let ni = int::<I>(n)?;
    // The C-ordered buffer is aᵀ column-major: a's lower triangle is its
    // upper one.
    let uplo = if lower { b'U' } else { b'L' };
    let jobz = if vectors { b'V' } else { b'N' };
    let mut z = a.to_vec();
    let mut w = vec![T::default(); n];
    // SAFETY: `with_routines` found `?syevd` for `T` in a library whose
    // integers are `I`; the buffers hold n² and n elements.
    let syevd: Syevd<T, I> = unsafe { std::mem::transmute(addr) };
    let mut run = |work: &mut [T], lwork: I, iwork: &mut [I], liwork: I| {
        let mut info = I::default();
        let (pw, pi) = (work.as_mut_ptr(), iwork.as_mut_ptr());
        // SAFETY: `with_routines` found the routine for `T` in a library whose integers are `I`; the buffers hold the sizes the routine is told.
        unsafe {
            syevd(
                &jobz,
                &uplo,
                &ni,
                z.as_mut_ptr(),
                &ni,
                w.as_mut_ptr(),
                pw,
                &lwork,
                pi,
                &liwork,
                &mut info,
                1,
                1,
            )
        };
        info
    };
    let (mut work, mut iwork) = ([T::default()], [I::default()]);
    let info = run(&mut work, I::QUERY, &mut iwork, I::QUERY);
    if let Err(e) = check(info, "syevd", |i| format!("workspace query failed ({i})")) {
        return Some(Err(e));
    }
    let lwork = work[0].size().max(1);
    let liwork = usize::try_from(iwork[0].into()).unwrap_or(0).max(1);
    let (mut work, mut iwork) = (vec![T::default(); lwork], vec![I::default(); liwork]);
    let info = run(&mut work, int(lwork)?, &mut iwork, int(liwork)?);
    let done = check(info, "syevd", |i| {
        format!("Eigenvalues did not converge (syevd: {i} off-diagonal elements left)")
    });
    Some(done.and_then(|()| {
        let w = Tensor::from_vec(vec![n], w)?;
        match vectors {
            true => Ok(vec![w, from_column_major(&z, n, n)?]),
            false => Ok(vec![w]),
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_sizes_round_up() {
        assert_eq!(3.0f64.size(), 3);
        assert_eq!(3.2f64.size(), 4);
        // 2^24 + 1 is not a float32: the size read back must not be short.
        assert!(16_777_216f32.size() >= 16_777_217);
    }

    #[test]
    fn lapack_errors_are_told_apart() {
        assert!(check(0i64, "x", |_| unreachable!()).is_ok());
        let bug = check(-4i32, "gesdd", |_| String::new()).unwrap_err();
        assert!(
            bug.to_string().contains("gesdd rejected its argument 4"),
            "{bug}"
        );
        let failed = check(2i64, "syevd", |i| format!("no convergence ({i})")).unwrap_err();
        assert_eq!(failed.to_string(), "no convergence (2)");
        assert_eq!(int::<i32>(1 << 31), None);
        assert_eq!(int::<i64>(1 << 31), Some(1 << 31));
    }
}
