//! Dense linear algebra: matrix products ([`blas`]) and decompositions
//! (`faer`, or the host's LAPACK where [`engine`] routes a family to it).

pub mod blas;
pub mod engine;
pub(crate) mod faer;
mod lapack;

pub use self::blas::gemm::dot;
pub use self::blas::matmul::matmul;
pub use self::faer::decompositions::{eigh, eigh_grad, eigvalsh, qr, qr_grad, svd};
pub use self::faer::{cholesky, cholesky_grad, det, inv, slogdet, solve};
