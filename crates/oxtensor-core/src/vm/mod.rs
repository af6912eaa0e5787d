//! The virtual machine: a scheduled function graph becomes a flat list of
//! thunks over numbered storage slots. Native thunks call their op's
//! `perform` (or are the op's own, `Op::make_thunk`); hosts (Python) supply
//! their own thunks for their ops. Fusion is a rewrite (`Composite`), not
//! the VM's business.

mod checked;
mod destroy_grant;
mod destroy_order;
mod donation;
pub mod fork;
mod lazy;
mod link;
pub mod native_stack;
mod node_check;
mod profile;
mod program;
mod step;
mod thunk;

pub use checked::{NodeView, StepChecker, Witness, WitnessPair};
pub use profile::{NodeStats, Profile};
pub use program::{LinkOptions, Program};
pub(crate) use thunk::NodeTypes;
pub use thunk::{OpThunk, Thunk};
