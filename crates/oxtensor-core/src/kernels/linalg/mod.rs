//! Dense linear algebra: matrix products ([`blas`]) and decompositions
//! (`faer`, or the host's LAPACK where [`engine`] routes a family to it).

pub mod blas;
pub mod engine;
mod faer;
mod lapack;

pub use self::blas::{dot, matmul};
pub use self::faer::{cholesky, cholesky_grad, det, expm, expm_grad, inv, slogdet, solve};
pub use self::faer::{eigh, eigh_grad, eigvalsh, qr, qr_grad, svd, svd_grad};
pub use self::faer::{lu_factor, lu_factor_grad, pivots_to_permutation};
pub use self::faer::{solve_structured, solve_triangular, Structure};
