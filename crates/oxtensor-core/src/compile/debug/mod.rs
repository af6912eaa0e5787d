//! DebugMode: compiling a function so that every call checks what each op
//! does against what it declares, and the whole result against the same
//! graph compiled in `FAST_COMPILE` (PyTensor's `DebugMode`, with its
//! error names). A node runs on copies of its inputs; an input changed
//! without `destroy_map` is a `BadDestroyMap`, an output sharing memory
//! with an input without `view_map`/`destroy_map` a `BadViewMap`, an
//! output not of its type an `InvalidValueError`, and final outputs that
//! differ from `FAST_COMPILE`'s beyond the dtype's tolerance a
//! `BadThunkOutput`. Asked to (`check_preallocated_output`), each node
//! runs again with its outputs preallocated in PyTensor's kinds
//! (`prealloc.rs`), and a changed result is a `BadThunkOutput` too. The
//! compiler records the rewrites' replacements (`replacements.rs`), and
//! every call computes both sides of each (`witness.rs`): sides that
//! differ are a `BadOptimization` naming the rewriter.
//!
//! The checks run through the VM's checked-execution hook
//! ([`crate::vm::StepChecker`]): [`DebugChecker`] is DebugMode's, and
//! [`ViewMapChecker`] the cheap check any mode can switch on, which only
//! compares memory ranges after each node.

mod checkers;
mod compare;
mod errors;
mod memory;
mod prealloc;
mod replacements;
mod witness;

pub use checkers::{DebugChecker, ViewMapChecker};
pub use compare::{allclose, tolerance};
pub use errors::{DebugModeError, FieldValue};
pub use memory::{address_range, may_share_memory};
pub use prealloc::Prealloc;
pub use replacements::{attach_log, Replacement, ReplacementLog};
pub use witness::{link_witness, witness_graph};

use super::mode::Mode;
use std::sync::Arc;

impl Mode {
    /// `DebugMode`: `FAST_RUN`'s rewrites, every node checked, and results
    /// compared with `FAST_COMPILE`'s.
    pub fn debug_mode() -> Mode {
        Mode::debug_mode_with(Vec::new())
    }

    /// `DebugMode` running each node again with its outputs preallocated
    /// in each of these kinds (`check_preallocated_output`).
    pub fn debug_mode_with(prealloc: Vec<Prealloc>) -> Mode {
        let mut m = Mode::fast_run();
        m.name = "DebugMode".to_owned();
        m.link.checker = Some(Arc::new(DebugChecker { prealloc }));
        m
    }

    /// The DebugMode a host's `checks` string names: `debug`, or `debug:`
    /// followed by the kinds of preallocated output to check
    /// (`debug:previous:c_contiguous`, `debug:ALL`).
    pub fn debug_mode_for(checks: &str) -> crate::error::Result<Mode> {
        let kinds = checks.strip_prefix("debug").unwrap_or(checks);
        Ok(Mode::debug_mode_with(Prealloc::parse_list(kinds)?))
    }

    /// This mode with the cheap view-map check (unless it already checks
    /// more, as DebugMode does).
    pub fn with_view_map_checks(&self) -> Mode {
        let mut m = self.clone();
        if m.link.checker.is_none() {
            m.link.checker = Some(Arc::new(ViewMapChecker));
        }
        m
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod witness_tests;
