//! `Nonzero` as a Python class (`oxtensor.tensor.basic.Nonzero`).

use crate::ops::op::PyOp;
use crate::ops::props::{new_args, NewArgs};
use oxtensor_core::ops::nonzero::Nonzero;
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
