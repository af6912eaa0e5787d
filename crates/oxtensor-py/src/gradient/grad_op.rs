//! `GradOp` (`oxtensor.gradient`): the gradient-shaping identities
//! (`zero_grad`, `grad_clip`, ...) as one class.

use crate::errors::to_pyerr;
use crate::ops::op::PyOp;
use crate::ops::props::{core_of, core_props, view_of_input};
use oxtensor_core::ops::grad_ops::GradOp;
use oxtensor_core::ops::Op;
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

    /// Whether the output's gradient reaches the input: not for
    /// `disconnected_grad`, always for the others.
    fn connection_pattern(
        slf: PyRef<'_, Self>,
        node: Bound<'_, PyAny>,
    ) -> PyResult<Vec<Vec<bool>>> {
        let _ = node;
        let op = core_of::<GradOp>(slf.as_super())?;
        let pattern = op.connection_pattern(1).map_err(to_pyerr)?;
        Ok(pattern.unwrap_or_else(|| vec![vec![true]]))
    }
}

core_props!(
    PyGradOp,
    GradOp {
        /// The kind's class name in PyTensor (`GradClip`, `ZeroGrad`, ...), which
        /// `isinstance(op, oxtensor.gradient.GradClip)` reads.
        kind: String = |c| c.name().to_string(),
    }
);
