//! The singular value decomposition through the host's LAPACK (`?gesdd`,
//! NumPy's routine), when one is installed and serves SVDs (see
//! [`crate::kernels::linalg::engine`]); `None` otherwise, and the caller falls back to faer.

use super::{by_int_width, check, int, with_routines, Int};
use crate::error::{Error, Result};
use crate::kernels::linalg::engine::Family;
use crate::kernels::linalg::faer::Real;
use crate::tensor::Tensor;

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
pub(crate) struct SvdPlan {
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
pub(crate) fn svd<T: Real>(
    a: &[T],
    (rows, cols): (usize, usize),
    full_matrices: bool,
    compute_uv: bool,
) -> Option<Result<Vec<Tensor>>> {
    let plan = svd_plan(rows, cols, full_matrices, compute_uv);
    with_routines::<T, 1, _>(
        rows == 0 || cols == 0,
        Family::Svd,
        ["gesdd"],
        |[addr], ilp64| by_int_width!(ilp64, svd_with::<T>(addr, a, (rows, cols), plan)),
    )
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
        // SAFETY: `with_routines` found ?gesdd for `T` in a library whose integers are `I`; the buffers hold the sizes the routine is told.
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
}
