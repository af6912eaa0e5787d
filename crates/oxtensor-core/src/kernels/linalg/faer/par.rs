//! How many threads a faer decomposition may use, per decomposition: the
//! threads' hand-offs cost more than they save below a size that differs
//! from one algorithm to the next. The numbers behind each threshold (2-core
//! build machine, wall ms, sequential/rayon, best of 15 interleaved runs at
//! 200–500 and of 4 at 1000, load average 5–6 from other jobs, which
//! handicaps rayon; "quiet" marks an earlier A/B on an idle machine):
//!
//! - LU (`solve`, `det`): 200: 0.27/0.45, 500: 2.9/4.1, 1000: 34.5/48.2;
//!   quiet, 500 ran 1.1–2x faster sequential (the parallel LU is what made
//!   `solve` lose to NumPy). Spreads from 1000³ of work.
//! - Cholesky: 200: 0.19/0.28, 500: 1.6/1.9, 1000: 15.4/25.9. From 1000³.
//! - QR (with Q): 200: 2.0/6.5, 500: 13.9/25.3, 1000: 148/203. From 1000³.
//! - inv (LU, then the getri steps): 200: 0.69/1.19, 500: 7.8/12.9,
//!   1000: 96/113. From 1000³.
//! - eigh: 200: 5.4/5.6, 300: 14.9/15.2, 500: 51/59 loaded but 45.0/39.6
//!   quiet. From 400³, so 500×500 spreads.
//! - SVD: 200: 9.2/9.4, 300: 26/38, 500: 100/90 loaded and 84.9/78.1 quiet.
//!   From 400³.
//!
//! faer's high-level decompositions (`partial_piv_lu`, `determinant`, …)
//! take no `Par` argument: they read one process-wide setting, so
//! [`scoped`] sets it just before each call; the low-level calls take
//! [`for_shape`] directly.
//!
//! # One thread below ~1000³
//!
//! Decompositions run on one thread below ~1000³ work (`faer_par`): at
//! 500×500 on 2 cores, sequential LU, Cholesky, eigh, SVD and QR ran 1.2–2×
//! faster than threaded (Cholesky again on this Zen 5 at load ~6: 0.52 ms
//! sequential against 0.78 threaded at 500², 3.6 against 4.4 at 1000²). The LU
//! family (`solve`, `inv`, `det`, `slogdet`) factors the C-ordered buffer read
//! column-major (`aᵀ`) and answers through a transposed solve or a transposed
//! copy-out, saving a transposing copy in (`det(aᵀ) = det(a)`: one plain copy).
//! Cholesky factors a column-major matrix too: through a row-major view faer
//! took 0.91 ms at 500² against 0.52, so the lower factor takes a transposing
//! copy in and comes out as a column-major view. The host's `det`/`slogdet`
//! keep NumPy's transposing copy, so their values stay NumPy's bit for bit: it
//! costs 0.03 ms of ~2 ms at 500² and ~5 ms of ~100 ms at 2000².

use faer::Par;

/// A decomposition whose threading threshold is tuned on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// LU with partial pivoting (`solve`, `det`, the factor of `inv`).
    Lu,
    /// The inverse from LU factors: triangular inverse and solve.
    Inverse,
    Cholesky,
    Eigh,
    Svd,
    Qr,
    /// Gradients: a few matrix products and triangular solves.
    Grad,
}

impl Kind {
    /// From this much work (multiply-adds of an n×n factorisation, n³), the
    /// decomposition spreads over every rayon thread (see the module notes).
    fn parallel_work(self) -> usize {
        let cube = |n: usize| n * n * n;
        match self {
            Kind::Lu | Kind::Inverse | Kind::Cholesky | Kind::Qr | Kind::Grad => cube(1000),
            Kind::Eigh | Kind::Svd => cube(400),
        }
    }
}

/// The parallelism for a `kind` decomposition of a `rows`×`cols` matrix:
/// its work grows as rows · cols · min(rows, cols).
pub(crate) fn for_shape(kind: Kind, rows: usize, cols: usize) -> Par {
    let work = rows.saturating_mul(cols).saturating_mul(rows.min(cols));
    if work >= kind.parallel_work() {
        Par::rayon(0)
    } else {
        Par::Seq
    }
}

/// Runs `f`, a call into faer's high-level decompositions, with the
/// parallelism [`for_shape`] picks for a `kind` of `rows`×`cols` input.
/// Calls from other threads at the same moment may run with each other's
/// setting: that changes their speed and at most their rounding, never
/// their shapes or their success.
pub(crate) fn scoped<R>(kind: Kind, rows: usize, cols: usize, f: impl FnOnce() -> R) -> R {
    faer::set_global_parallelism(for_shape(kind, rows, cols));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_runs_alone_large_spreads() {
        for kind in [
            Kind::Lu,
            Kind::Inverse,
            Kind::Cholesky,
            Kind::Qr,
            Kind::Grad,
        ] {
            assert!(matches!(for_shape(kind, 500, 500), Par::Seq));
            assert!(matches!(for_shape(kind, 1000, 1000), Par::Rayon(_)));
        }
        for kind in [Kind::Eigh, Kind::Svd] {
            assert!(matches!(for_shape(kind, 300, 300), Par::Seq));
            assert!(matches!(for_shape(kind, 500, 500), Par::Rayon(_)));
        }
        assert!(matches!(for_shape(Kind::Eigh, 0, 0), Par::Seq));
        assert!(matches!(for_shape(Kind::Svd, 100_000, 3), Par::Seq));
        assert!(matches!(for_shape(Kind::Lu, usize::MAX, 2), Par::Rayon(_)));
        let got = scoped(Kind::Lu, 10, 10, faer::get_global_parallelism);
        assert!(matches!(got, Par::Seq));
    }
}
