//! The one place where core errors become Python exceptions.

pub mod exceptions;
pub mod panics;

use crate::errors::exceptions::{
    AlreadyThere, DisconnectedInputError, InconsistencyError, MissingInputError, NullTypeGradError,
};
use oxtensor_core::Error;
use pyo3::exceptions::{
    PyAssertionError, PyException, PyIndexError, PyMemoryError, PyNotImplementedError,
    PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use std::any::Any;
use std::fmt;

/// A core error on its way to Python (a newtype for the orphan rule).
pub struct PyCoreError(pub Error);

impl From<Error> for PyCoreError {
    fn from(e: Error) -> Self {
        PyCoreError(e)
    }
}

impl From<PyCoreError> for PyErr {
    fn from(e: PyCoreError) -> PyErr {
        to_pyerr(e.0)
    }
}

/// Maps a core error to the exception class Python code expects.
pub fn to_pyerr(err: Error) -> PyErr {
    let msg = err.to_string();
    match err.root() {
        Error::Host(h) => host_pyerr(h.as_any(), &msg),
        Error::Type(_) => PyTypeError::new_err(msg),
        Error::Value(_) | Error::Shape(_) => PyValueError::new_err(msg),
        Error::LinAlg(_) => linalg_error(msg),
        Error::Memory(_) => PyMemoryError::new_err(msg),
        Error::Index(_) => PyIndexError::new_err(msg),
        Error::Inconsistency(_) => InconsistencyError::new_err(msg),
        Error::MissingInput(_) => MissingInputError::new_err(msg),
        Error::UnusedInput(_) => crate::compile::UnusedInputError::new_err(msg),
        Error::AlreadyThere(_) => AlreadyThere::new_err(msg),
        Error::Runtime(_) => PyRuntimeError::new_err(msg),
        Error::Assertion(_) => PyAssertionError::new_err(msg),
        Error::Integrity(_) => PyException::new_err(msg),
        Error::Disconnected(_) => DisconnectedInputError::new_err(msg),
        Error::OutOfScope(_) | Error::NotImplemented(_) => PyNotImplementedError::new_err(msg),
        Error::NullGradient(_) => NullTypeGradError::new_err(msg),
        Error::DebugMode(e) => crate::compile::debug_mode::debugmode_pyerr(e, msg),
        Error::Node { .. } | Error::Rewrite { .. } => PyException::new_err(msg),
    }
}

/// NumPy's `LinAlgError` (a `ValueError`), or a `ValueError` if NumPy's
/// module cannot be imported.
fn linalg_error(msg: String) -> PyErr {
    Python::attach(|py| {
        static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
        match CLASS.import(py, "numpy.linalg", "LinAlgError") {
            Ok(class) => PyErr::from_type(class.clone(), msg),
            Err(_) => PyValueError::new_err(msg),
        }
    })
}

/// A Python exception re-raised unchanged; context added on the way is a note.
fn host_pyerr(any: &dyn Any, msg: &str) -> PyErr {
    let Some(host) = any.downcast_ref::<HostPyErr>() else {
        return PyException::new_err(msg.to_owned());
    };
    Python::attach(|py| {
        let err = host.0.clone_ref(py);
        let own = err.to_string();
        if msg != own {
            let context = msg
                .strip_prefix(&own)
                .unwrap_or(msg)
                .trim_start()
                .to_owned();
            let _ = err.value(py).call_method1("add_note", (context,));
        }
        err
    })
}

/// A Python exception carried through the core.
pub struct HostPyErr(pub PyErr);

impl fmt::Debug for HostPyErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for HostPyErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl oxtensor_core::error::HostError for HostPyErr {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Wraps a Python exception so it can travel through the core.
pub fn from_pyerr(err: PyErr) -> Error {
    Error::Host(Box::new(HostPyErr(err)))
}

/// `Result<T, Error>` → `PyResult<T>`.
pub trait IntoPyResult<T> {
    /// Maps the error with [`to_pyerr`].
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for oxtensor_core::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_pyerr)
    }
}

/// The value a string argument names among `choices` (`("add",
/// CumMode::Add)`, ...), else a `ValueError` with the message `invalid`
/// writes from the string given (each worded as PyTensor words it).
pub fn choice<T: Copy>(
    given: &str,
    choices: &[(&str, T)],
    invalid: impl FnOnce(&str) -> String,
) -> PyResult<T> {
    match choices.iter().find(|(name, _)| *name == given) {
        Some((_, value)) => Ok(*value),
        None => Err(PyValueError::new_err(invalid(given))),
    }
}

/// The items of the iterable `obj`, which must number `n`, else a
/// `ValueError` with the message `mismatch` writes from the count found.
pub fn n_items<'py>(
    obj: &Bound<'py, PyAny>,
    n: usize,
    mismatch: impl FnOnce(usize) -> PyResult<String>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let items: Vec<Bound<'py, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
    if items.len() != n {
        return Err(PyValueError::new_err(mismatch(items.len())?));
    }
    Ok(items)
}

/// The name of `obj`'s class, for messages (empty if it has none).
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}
