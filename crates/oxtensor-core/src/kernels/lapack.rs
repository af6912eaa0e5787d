//! Decompositions through the host's LAPACK, when one is installed (see
//! [`super::blas`]: from Python, the OpenBLAS NumPy loaded).
//!
//! NumPy's `eigh` and `svd` call OpenBLAS's `?syevd` and `?gesdd`, which
//! beat faer's divide-and-conquer by 1.4–1.7x on the machines we measure
//! on; calling the same routines gives the same speed and, up to threading
//! order, NumPy's very values. Each function here returns `None` when no
//! library (or routine) is installed, and the caller falls back to faer.
//!
//! LAPACK is column-major: a C-ordered buffer handed to it as is reads as
//! the transpose, which the callers below turn to their advantage rather
//! than copy. Every argument goes by pointer; character arguments carry a
//! hidden length (gfortran's `size_t`) after the last argument.

use super::blas;
use super::linalg::{from_faer, Real};
use crate::error::{Error, Result};
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
pub(super) fn int<I: Int>(n: usize) -> Option<I> {
    I::try_from(n).ok()
}

/// The outcome of a LAPACK call: `info < 0` means we passed a bad argument
/// (our bug), `info > 0` the routine's own failure, described by `failed`.
pub(super) fn check<I: Int>(
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
        i => Err(Error::Value(failed(i))),
    }
}

/// Runs `f` with the addresses of `?{routine}` for `T` of each routine and
/// whether the library's integers are 64-bit, if the installed library has
/// them all (one lookup, under one lock); the library stays loaded for the
/// call. `None` when there is none.
pub(super) fn with_routines<T: Scalar, const N: usize, R>(
    routines: [&str; N],
    f: impl FnOnce([usize; N], bool) -> R,
) -> Option<R> {
    blas::with_installed(|lib| {
        let addrs = routines.map(|r| lib.fortran(&format!("{}{r}", T::LETTER)));
        (!addrs.contains(&0)).then(|| f(addrs, lib.ilp64()))
    })
    .flatten()
}

/// Runs a routine that takes a workspace twice, `run(work, lwork)` giving
/// its `info`: a `lwork = -1` size query, then with the workspace asked
/// for. The second call's `info`; `None` if the size does not fit an `I`.
pub(super) fn with_workspace<T: Scalar, I: Int>(
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

/// `[w, V]` of the symmetric n×n matrix whose C-ordered elements are `a`,
/// read from its lower (or upper) triangle, by `?syevd` as NumPy's `eigh`;
/// `None` without a host LAPACK (or for an empty or oversized matrix).
pub(super) fn eigh<T: Real>(a: &[T], n: usize, lower: bool) -> Option<Result<Vec<Tensor>>> {
    if n == 0 {
        return None;
    }
    with_routines::<T, 1, _>(["syevd"], |[addr], ilp64| {
        if ilp64 {
            eigh_with::<T, i64>(addr, a, n, lower)
        } else {
            eigh_with::<T, i32>(addr, a, n, lower)
        }
    })
    .flatten()
}

fn eigh_with<T: Real, I: Int>(
    addr: usize,
    a: &[T],
    n: usize,
    lower: bool,
) -> Option<Result<Vec<Tensor>>> {
    let ni = int::<I>(n)?;
    // The C-ordered buffer is aᵀ column-major: a's lower triangle is its
    // upper one.
    let uplo = if lower { b'U' } else { b'L' };
    let mut z = a.to_vec();
    let mut w = vec![T::default(); n];
    // SAFETY: `with_routines` found `?syevd` for `T` in a library whose
    // integers are `I`; the buffers hold n² and n elements.
    let syevd: Syevd<T, I> = unsafe { std::mem::transmute(addr) };
    let mut run = |work: &mut [T], lwork: I, iwork: &mut [I], liwork: I| {
        let mut info = I::default();
        let (jobz, (pw, pi)) = (b'V', (work.as_mut_ptr(), iwork.as_mut_ptr()));
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
        Ok(vec![w, from_column_major(&z, n, n)?])
    }))
}

/// `?gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork,
/// info)`.
type Gesdd<T, I> = unsafe extern "C" fn(
    *const u8,
    *const I,
    *const I,
    *mut T,
    *const I,
    *mut T,
    *mut T,
    *const I,
    *mut T,
    *const I,
    *mut T,
    *const I,
    *mut I,
    *mut I,
    usize,
);

/// What `?gesdd` computes of a `rows`×`cols` C-ordered matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SvdPlan {
    /// `N` (values only), `A` (square U and Vh) or `S` (thin).
    jobz: u8,
    /// Columns of LAPACK's `u` and rows of its `vt`.
    u_cols: usize,
    vt_rows: usize,
}

/// LAPACK factors the column-major buffer, aᵀ (cols×rows): aᵀ = U' S V'ᵀ
/// gives a = V' S U'ᵀ, and both factors read C-ordered are already ours:
/// `vt` (V'ᵀ, vt_rows×rows column-major) is U (rows×vt_rows), `u` is Vh.
fn svd_plan(rows: usize, cols: usize, full_matrices: bool, compute_uv: bool) -> SvdPlan {
    let k = rows.min(cols);
    match (compute_uv, full_matrices) {
        (false, _) => SvdPlan {
            jobz: b'N',
            u_cols: 0,
            vt_rows: 0,
        },
        (true, true) => SvdPlan {
            jobz: b'A',
            u_cols: cols,
            vt_rows: rows,
        },
        (true, false) => SvdPlan {
            jobz: b'S',
            u_cols: k,
            vt_rows: k,
        },
    }
}

/// `[U, s, Vh]` (or `[s]`) of the `rows`×`cols` matrix whose C-ordered
/// elements are `a`, by `?gesdd` as NumPy's `svd`; `None` without a host
/// LAPACK (or for an empty or oversized matrix).
pub(super) fn svd<T: Real>(
    a: &[T],
    (rows, cols): (usize, usize),
    full_matrices: bool,
    compute_uv: bool,
) -> Option<Result<Vec<Tensor>>> {
    if rows == 0 || cols == 0 {
        return None;
    }
    let plan = svd_plan(rows, cols, full_matrices, compute_uv);
    with_routines::<T, 1, _>(["gesdd"], |[addr], ilp64| {
        if ilp64 {
            svd_with::<T, i64>(addr, a, (rows, cols), plan)
        } else {
            svd_with::<T, i32>(addr, a, (rows, cols), plan)
        }
    })
    .flatten()
}

fn svd_with<T: Real, I: Int>(
    addr: usize,
    a: &[T],
    (rows, cols): (usize, usize),
    plan: SvdPlan,
) -> Option<Result<Vec<Tensor>>> {
    let k = rows.min(cols);
    // LAPACK's m×n is cols×rows; leading dimensions are at least 1.
    let (m, n) = (int::<I>(cols)?, int::<I>(rows)?);
    let (ldu, ldvt) = (int::<I>(cols)?, int::<I>(plan.vt_rows.max(1))?);
    let mut at = a.to_vec();
    let mut s = vec![T::default(); k];
    let mut u = vec![T::default(); (cols * plan.u_cols).max(1)];
    let mut vt = vec![T::default(); (plan.vt_rows * rows).max(1)];
    let mut iwork = vec![I::default(); 8 * k];
    // SAFETY: `with_routines` found `?gesdd` for `T` in a library whose
    // integers are `I`; every buffer has the size its dimensions say.
    let gesdd: Gesdd<T, I> = unsafe { std::mem::transmute(addr) };
    let mut run = |work: &mut [T], lwork: I| {
        let mut info = I::default();
        let (pa, ps, pu, pv) = (
            at.as_mut_ptr(),
            s.as_mut_ptr(),
            u.as_mut_ptr(),
            vt.as_mut_ptr(),
        );
        unsafe {
            gesdd(
                &plan.jobz,
                &m,
                &n,
                pa,
                &m,
                ps,
                pu,
                &ldu,
                pv,
                &ldvt,
                work.as_mut_ptr(),
                &lwork,
                iwork.as_mut_ptr(),
                &mut info,
                1,
            )
        };
        info
    };
    let mut query = [T::default()];
    let info = run(&mut query, I::QUERY);
    if let Err(e) = check(info, "gesdd", |i| format!("workspace query failed ({i})")) {
        return Some(Err(e));
    }
    let lwork = query[0].size().max(1);
    let mut work = vec![T::default(); lwork];
    let info = run(&mut work, int(lwork)?);
    // LAPACK 3.10 on answers -4 (argument `a`) to a NaN in the input;
    // NumPy reports that as a failure to converge, as we do.
    let done = match info.into() {
        -4 => Err(Error::Value(
            "SVD did not converge (gesdd: NaN in the input)".to_string(),
        )),
        _ => check(info, "gesdd", |i| {
            format!("SVD did not converge (gesdd: {i})")
        }),
    };
    Some(done.and_then(|()| {
        let s = Tensor::from_vec(vec![k], s)?;
        if plan.jobz == b'N' {
            return Ok(vec![s]);
        }
        u.truncate(cols * plan.u_cols);
        vt.truncate(plan.vt_rows * rows);
        let big_u = Tensor::from_vec(vec![rows, plan.vt_rows], vt)?;
        let vh = Tensor::from_vec(vec![plan.u_cols, cols], u)?;
        Ok(vec![big_u, s, vh])
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
    fn svd_plans_read_the_transpose() {
        // 3×5: LAPACK sees 5×3; full U is 3×3 (its vt), Vh 5×5 (its u).
        assert_eq!(
            svd_plan(3, 5, true, true),
            SvdPlan {
                jobz: b'A',
                u_cols: 5,
                vt_rows: 3
            }
        );
        assert_eq!(
            svd_plan(3, 5, false, true),
            SvdPlan {
                jobz: b'S',
                u_cols: 3,
                vt_rows: 3
            }
        );
        assert_eq!(svd_plan(3, 5, false, false).jobz, b'N');
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
