//! `Nonzero` as a Python class (`oxtensor.tensor.basic.Nonzero`).

use crate::ops::builtin::{new_args, NewArgs};
use crate::ops::op::PyOp;
use oxtensor_core::ops::nonzero::Nonzero;
use oxtensor_core::ops::OpRef;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// `Nonzero()`: the coordinates of the nonzero elements, one vector per axis.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.basic", name = "Nonzero")]
pub struct PyNonzero;

#[pymethods]
impl PyNonzero {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Nonzero)).add_subclass(PyNonzero)
    }

    /// `Nonzero()` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &[], &[])
    }

    #[classattr]
    fn __props__<'py>(py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }
}

/// The Python object of a `Nonzero` core op; `None` for other ops.
pub fn family_object(py: Python<'_>, core: &OpRef) -> Option<PyResult<Py<PyAny>>> {
    if !core.as_any().is::<Nonzero>() {
        return None;
    }
    let obj = PyOp::builtin(core.clone()).add_subclass(PyNonzero);
    Some(Py::new(py, obj).map(Py::into_any))
}

/// Adds the class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNonzero>()
}
