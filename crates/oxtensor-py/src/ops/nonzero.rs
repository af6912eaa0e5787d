//! `Nonzero` as a Python class (`oxtensor.tensor.basic.Nonzero`).

use crate::ops::op::PyOp;
use crate::ops::props::op_args;
use oxtensor_core::ops::nonzero::Nonzero;
use pyo3::prelude::*;
use std::sync::Arc;

/// `Nonzero()`: the coordinates of the nonzero elements, one vector per axis.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.basic", name = "Nonzero")]
pub struct PyNonzero;

op_args!(PyNonzero, [], []);

#[pymethods]
impl PyNonzero {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Nonzero)).add_subclass(PyNonzero)
    }
}
