//! The fused elementwise kernel: the loop behind `Elemwise(Composite)`
//! (and behind a `Sum` fused onto one, `CAReduce` with a composite
//! pre-map). It walks the output in blocks that stay in cache, running on
//! block-sized scratch the same elementwise kernels the separate nodes
//! would run, so results are bit-identical and no intermediate exists at
//! full size; large outputs run in parallel chunks of blocks, small ones
//! element by element (`tiny.rs`).
//!
//! `support.rs` says what it runs (the fusion rewrite reads it too),
//! `plan.rs` makes a node's program at link time, `run.rs` runs it along
//! `walk.rs`'s blocks in `order.rs`'s memory order, `sum.rs` and
//! `sqdiff.rs` reduce it, `interpret.rs` runs what the kernel does not.
//!
//! # Fusion is a rewrite; the block loop is this kernel
//!
//! Elementwise fusion is a rewrite; the block loop is `Composite`'s kernel.
//! As PyTensor's `FusionOptimizer`, the `elemwise_fusion` phase replaces groups
//! of float `Elemwise` nodes with one `Elemwise(Composite)` node (FAST_RUN
//! only; `excluding("fusion")` and FAST_COMPILE keep the nodes), so `dprint(f)`
//! and `profile=True` show and time the program that runs. Groups are found in
//! one reverse-toposort pass (linear, where PyTensor's convexity check is
//! quadratic): a node joins a reader's group when every other reader comes
//! after the group's root, its value then also being a composite output; a node
//! of a smaller broadcast pattern (a row in a matrix's group) joins only when
//! the group is its only reader, so it is not recomputed per element for other
//! readers (the kernel hoists it). The node's thunk is made once at link time
//! (`Op::make_thunk`): it runs per block of 2048 elements through the very
//! kernels the nodes use (bit-identical results), so intermediates never exist
//! at full size (a 20-op chain's extra peak memory is the output). Any layout
//! fuses: blocks stay inside *runs*, the trailing dimensions over which each
//! leaf is contiguous or constant (a bias row, `x - x.mean(axis=0)`, `x / s[:,
//! None]`: one run per row), so a leaf is read per block as a slice or its
//! single element; leaves strided within a run are gathered into block scratch,
//! or first copied by the tiled copy kernel when a cache line or more apart. A
//! `Sum` whose input is a composite read only there becomes
//! `CAReduce{Composite}` (`local_careduce_fusion`): each block is added into
//! the accumulator; its adding order differs from the sum kernel's for calls
//! above one block (fixed per shape, not per thread count; see
//! `sum.rs`); float32 accumulates in float64 as the kernel does.

mod granted;
pub(crate) mod interpret;
mod order;
mod plan;
mod run;
mod scalar_loop;
mod sqdiff;
mod sum;
pub(crate) mod support;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
mod thunk;
mod tiny;
mod walk;

pub use plan::{Arg, FusedKernel, Instr};
pub use thunk::FusedThunk;
