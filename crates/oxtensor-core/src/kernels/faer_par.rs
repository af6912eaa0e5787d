//! How many threads a faer decomposition may use, per decomposition: the
//! threads' hand-offs cost more than they save below a size that differs
//! from one algorithm to the next. Measured on the 2-core build machine
//! (best of 3, rayon against sequential in one process; lin2, 2025):
//!
//! - LU (`solve`, `det`, the factor of `inv`), Cholesky and QR: at 500×500
//!   sequential ran 1.1–2× faster (the parallel LU is what made `solve`
//!   lose to NumPy), so they spread only from 1000³ of work.
//! - eigh: 500×500 45.0 → 39.6 ms with rayon, and the tridiagonalisation
//!   already gains at 200×200, so it spreads from 200³.
//! - SVD: 500×500 84.9 → 78.1 ms with rayon; at 200×200 sequential wins,
//!   so it spreads from 400³.
//! - The inverse from the LU factors (triangular inverse and solve): 500×500
//!   gains with rayon, 200×200 loses, so it spreads from 400³.
//!
//! faer's high-level decompositions (`partial_piv_lu`, `qr`, …) take no
//! `Par` argument: they read one process-wide setting, so [`scoped`] sets it
//! just before each call; the low-level calls take [`for_shape`] directly.

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
            Kind::Lu | Kind::Cholesky | Kind::Qr | Kind::Grad => cube(1000),
            Kind::Eigh => cube(200),
            Kind::Svd | Kind::Inverse => cube(400),
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
        for kind in [Kind::Lu, Kind::Cholesky, Kind::Qr, Kind::Grad] {
            assert!(matches!(for_shape(kind, 500, 500), Par::Seq));
            assert!(matches!(for_shape(kind, 1000, 1000), Par::Rayon(_)));
        }
        for kind in [Kind::Eigh, Kind::Svd, Kind::Inverse] {
            assert!(matches!(for_shape(kind, 100, 100), Par::Seq));
            assert!(matches!(for_shape(kind, 500, 500), Par::Rayon(_)));
        }
        assert!(matches!(for_shape(Kind::Svd, 200, 200), Par::Seq));
        assert!(matches!(for_shape(Kind::Eigh, 0, 0), Par::Seq));
        assert!(matches!(for_shape(Kind::Svd, 100_000, 3), Par::Seq));
        assert!(matches!(for_shape(Kind::Lu, usize::MAX, 2), Par::Rayon(_)));
        let got = scoped(Kind::Lu, 10, 10, faer::get_global_parallelism);
        assert!(matches!(got, Par::Seq));
    }
}
