//! Placeholder variables of the gradient machinery's marker types.

use crate::graph::types::PyDisconnectedType;
use crate::graph::variable::PyVariable;
use pyo3::prelude::*;

/// A fresh variable of `DisconnectedType` (`disconnected_type()`).
pub fn disconnected_variable(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let ty = Py::new(py, PyDisconnectedType::new())?.into_any();
    Ok(Bound::new(py, PyVariable::with(ty, None, None, None))?.into_any())
}
