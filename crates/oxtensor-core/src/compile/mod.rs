//! Compiling a function: a [`Mode`] (rewrites and link options) and the
//! [`FunctionMaker`] that turns a graph plus inputs, outputs, updates and
//! givens into the rewritten graph and the linked program. Rust programs
//! and the Python layer compile through the same code.

pub mod aliasing;
pub mod debug;
mod maker;
mod mode;
mod output_copies;

pub use aliasing::{add_supervisor_to_fgraph, protected_vars, Supervisor};
pub use maker::{compile, Built, Compiled, FunctionInput, FunctionMaker, FunctionSpec, OnUnused};
pub use mode::{Mode, Optimizer};
