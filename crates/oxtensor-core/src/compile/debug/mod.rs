//! DebugMode: compiling a function so that every call checks what each op
//! does against what it declares, and the whole result against the same
//! graph compiled in `FAST_COMPILE` (PyTensor's `DebugMode`, with its
//! error names). A node runs on copies of its inputs; an input changed
//! without `destroy_map` is a `BadDestroyMap`, an output sharing memory
//! with an input without `view_map`/`destroy_map` a `BadViewMap`, an
//! output not of its type an `InvalidValueError`, and final outputs that
//! differ from `FAST_COMPILE`'s beyond the dtype's tolerance a
//! `BadThunkOutput`.
//!
//! The checks run through the VM's checked-execution hook
//! ([`crate::vm::StepChecker`]): [`DebugChecker`] is DebugMode's, and
//! [`ViewMapChecker`] the cheap check any mode can switch on, which only
//! compares memory ranges after each node.

mod checkers;
mod compare;
mod errors;
mod memory;

pub use checkers::{DebugChecker, ViewMapChecker};
pub use compare::{allclose, tolerance};
pub use errors::DebugModeError;
pub use memory::{address_range, may_share_memory};

use super::mode::Mode;
use std::sync::Arc;

impl Mode {
    /// `DebugMode`: `FAST_RUN`'s rewrites, every node checked, and results
    /// compared with `FAST_COMPILE`'s.
    pub fn debug_mode() -> Mode {
        let mut m = Mode::fast_run();
        m.name = "DebugMode".to_owned();
        m.link.checker = Some(Arc::new(DebugChecker));
        m
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
