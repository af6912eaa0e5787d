//! `Dot22` and `Gemv` (`oxtensor.tensor.blas`) as Python classes holding
//! their core ops.

use crate::ops::inc_subtensor::destroy_map_of;
use crate::ops::op::PyOp;
use crate::ops::props::unit_op;
use crate::ops::props::{core_of, op_args};
use oxtensor_core::ops::blas::Dot22;
use oxtensor_core::ops::gemv::Gemv;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

unit_op!(
    PyDot22,
    Dot22,
    "oxtensor.tensor.blas",
    "Dot22",
    "`Dot22`: the product of two matrices."
);

/// `Gemv(inplace)`: `beta * y + alpha * dot(A, x)` of the inputs
/// `(y, alpha, A, x, beta)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.blas", name = "Gemv")]
pub struct PyGemv;

op_args!(PyGemv, ["inplace"], []);

#[pymethods]
impl PyGemv {
    #[new]
    #[pyo3(signature = (inplace = false))]
    fn new(inplace: bool) -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Gemv { inplace })).add_subclass(PyGemv)
    }

    /// Whether `y` may be overwritten.
    #[getter]
    fn inplace(slf: PyRef<'_, Self>) -> PyResult<bool> {
        Ok(core_of::<Gemv>(slf.as_super())?.inplace)
    }

    /// `{0: [0]}` when inplace (the output may take `y`'s memory).
    #[getter]
    fn destroy_map<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        destroy_map_of(py, core_of::<Gemv>(slf.as_super())?.inplace)
    }
}
