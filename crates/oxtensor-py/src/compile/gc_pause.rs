//! Python's cyclic garbage collector paused while a function compiles.
//! Compiling makes thousands of Python objects at once (the rewritten
//! graph's variables and nodes); each few hundred start a collection, and
//! the older generations' collections walk every object of the user's
//! graph again, which measured a third of the compile time of a
//! 1,000-node chain. Nothing compiling makes is garbage until it returns,
//! so one collection later, at Python's own pace, does the same work once.

use pyo3::ffi;
use pyo3::Python;

/// Re-enables the collector on drop, if it was enabled before.
/// It holds the GIL token, so it cannot outlive or leave the call.
pub(crate) struct GcPause<'py> {
    _py: Python<'py>,
    was_enabled: bool,
}

impl<'py> GcPause<'py> {
    /// Pauses the collector.
    pub(crate) fn new(py: Python<'py>) -> Self {
        // SAFETY: the GIL is held (`py`); `PyGC_Disable` only flips the
        // interpreter's flag and returns its previous value.
        let was_enabled = unsafe { ffi::PyGC_Disable() } != 0;
        GcPause {
            _py: py,
            was_enabled,
        }
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: the GIL is still held: `self` borrows its token.
            unsafe { ffi::PyGC_Enable() };
        }
    }
}
