//! How many threads a faer decomposition may use. Below a few hundred rows
//! the threads' hand-offs cost more than they save: at 500×500 on 2 cores,
//! sequential LU, Cholesky, eigh, SVD and QR each ran 1.2–2× faster than
//! with rayon (the parallel LU is what made `solve` lose to NumPy).
//!
//! faer's high-level decompositions (`partial_piv_lu`, `self_adjoint_eigen`,
//! `svd`, `qr`, …) take no `Par` argument: they read one process-wide
//! setting, so [`scoped`] sets it just before each call.

use faer::Par;

/// From this much work (multiply-adds of an n×n factorisation, n³), a
/// decomposition spreads over every rayon thread.
const PARALLEL_WORK: usize = 1000 * 1000 * 1000;

/// The parallelism for a decomposition of a `rows`×`cols` matrix: its work
/// grows as rows · cols · min(rows, cols).
pub(crate) fn for_shape(rows: usize, cols: usize) -> Par {
    let work = rows.saturating_mul(cols).saturating_mul(rows.min(cols));
    if work >= PARALLEL_WORK {
        Par::rayon(0)
    } else {
        Par::Seq
    }
}

/// Runs `f`, a call into faer's high-level decompositions, with the
/// parallelism [`for_shape`] picks for a `rows`×`cols` input. Calls from
/// other threads at the same moment may run with each other's setting:
/// that changes their speed and at most their rounding, never their shapes
/// or their success.
pub(crate) fn scoped<R>(rows: usize, cols: usize, f: impl FnOnce() -> R) -> R {
    faer::set_global_parallelism(for_shape(rows, cols));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_runs_alone_large_spreads() {
        assert!(matches!(for_shape(500, 500), Par::Seq));
        assert!(matches!(for_shape(0, 0), Par::Seq));
        assert!(matches!(for_shape(100_000, 3), Par::Seq));
        assert!(matches!(for_shape(1000, 1000), Par::Rayon(_)));
        assert!(matches!(for_shape(usize::MAX, 2), Par::Rayon(_)));
        let got = scoped(10, 10, || faer::get_global_parallelism());
        assert!(matches!(got, Par::Seq));
    }
}
