//! Panics at the boundary: a panic in the core is a bug in oxtensor, and
//! reaches Python as `oxtensor.InternalError` (an `Exception` that says
//! so), not as PyO3's `PanicException`, which derives from `BaseException`
//! and escapes `except Exception`. The hook installed with the module
//! keeps stderr quiet unless `RUST_BACKTRACE` asks for the trace.

use crate::errors::exceptions::InternalError;
use pyo3::prelude::*;
use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};

thread_local! {
    /// Where this thread's last panic happened (`file:line:col`), kept by
    /// the hook for the exception's message.
    static LAST_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Whether the environment asks for Rust's own panic report.
fn backtrace_requested() -> bool {
    std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0")
}

/// Installs the quiet panic hook: it records the location for
/// [`internal_error`] and prints Rust's report (message and backtrace)
/// only when `RUST_BACKTRACE` is set and not `0`. Called once, when the
/// extension module is initialised.
pub fn install_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
        let location = info.location().map(|l| l.to_string());
        LAST_LOCATION.with(|last| *last.borrow_mut() = location);
        if backtrace_requested() {
            default(info);
        }
    }));
}

/// The message a panic carried (`panic!`'s formatted text), if any.
fn payload_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// `InternalError` for a caught panic, naming its message and (when it
/// happened on this thread) its location.
pub fn internal_error(payload: &(dyn Any + Send)) -> PyErr {
    let what = payload_message(payload);
    let at = LAST_LOCATION
        .with(|last| last.borrow_mut().take())
        .map(|l| format!(" at {l}"))
        .unwrap_or_default();
    InternalError::new_err(format!(
        "oxtensor internal error (a bug in oxtensor, not in your code; please report it): \
         {what}{at}"
    ))
}

/// Runs `f`, turning a panic into [`internal_error`]. Wraps the places
/// where the extension hands control to the core: compiled calls,
/// compilation, building nodes, gradients and function-graph edits.
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(internal_error(payload.as_ref())),
    }
}

/// `_core._panic(message)`: panics inside the extension with `message`
/// behind [`guard`], as a core bug would; the test suite checks that it
/// reaches Python as `InternalError` with nothing on stderr.
#[pyfunction]
pub fn _panic(message: &str) -> PyResult<()> {
    guard(|| panic!("{message}"))
}
