//! The virtual machine: a scheduled function graph becomes a flat list of
//! thunks over numbered storage slots. Native thunks call their op's
//! `perform`; hosts (Python) supply their own thunks for their ops.

mod argmin_link;
mod chain;
mod destroy_order;
mod donation;
pub mod fork;
mod fusion;
mod fusion_sum;
mod fusion_thunk;
mod fusion_walk;
mod lazy;
pub mod native_stack;
mod profile;
mod program;
mod thunk;

pub use profile::{NodeStats, Profile};
pub use program::{LinkOptions, Program};
pub use thunk::{OpThunk, Thunk};
mod fusion_order;
mod fusion_sqdiff;
mod variance_link;
