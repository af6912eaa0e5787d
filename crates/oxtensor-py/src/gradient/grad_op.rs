//! `GradOp` (`oxtensor.gradient`): the gradient-shaping identities
//! (`zero_grad`, `grad_clip`, ...) as one class.

use crate::ops::op::PyOp;
use crate::ops::props::view_of_input;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The gradient-shaping identities (`zero_grad`, `grad_clip`, ...): one
/// class, its `str` naming the kind (`ZeroGrad`, `GradClip{lower=-1.0, upper=1.0}`).
#[pyclass(extends = PyOp, subclass, module = "oxtensor.gradient", name = "GradOp")]
pub struct PyGradOp;

#[pymethods]
impl PyGradOp {
    #[classattr]
    fn __props__<'py>(py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }

    /// A view of the input.
    #[getter]
    fn view_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        view_of_input(py)
    }
}
