//! `Dot22` and `Gemv` (`oxtensor.tensor.blas`) as Python classes holding
//! their core ops.

use crate::ops::op::PyOp;
use crate::ops::props::{inplace_props, op_args, unit_op};
use oxtensor_core::ops::blas::Dot22;
use oxtensor_core::ops::gemv::Gemv;
use pyo3::prelude::*;
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
}

// Inplace, the output takes `y`'s memory.
inplace_props!(PyGemv, Gemv, "Whether `y` may be overwritten.");
