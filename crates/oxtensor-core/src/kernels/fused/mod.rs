//! The fused elementwise kernel: the loop behind `Elemwise(Composite)`
//! (and behind a `Sum` fused onto one, `CAReduce` with a composite
//! pre-map). It walks the output in blocks that stay in cache, running on
//! block-sized scratch the same elementwise kernels the separate nodes
//! would run, so results are bit-identical and no intermediate exists at
//! full size; large outputs run in parallel chunks of blocks, small ones
//! element by element (`kernels/tiny.rs`).
//!
//! `support.rs` says what it runs (the fusion rewrite reads it too),
//! `plan.rs` makes a node's program at link time, `run.rs` runs it along
//! `walk.rs`'s blocks in `order.rs`'s memory order, `sum.rs` and
//! `sqdiff.rs` reduce it, `interpret.rs` runs what the kernel does not.

mod tiny;

mod granted;
pub mod interpret;
mod order;
mod plan;
mod run;
mod sqdiff;
mod sum;
pub mod support;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
mod thunk;
mod walk;

pub use plan::{Arg, FusedKernel, Instr};
pub use thunk::FusedThunk;
