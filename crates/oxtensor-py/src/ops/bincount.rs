//! `Bincount` as a Python class (`oxtensor.tensor.extra_ops.Bincount`).

use crate::ops::op::PyOp;
use crate::ops::props::{core_props, op_args};
use oxtensor_core::ops::bincount::Bincount;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// `Bincount(minlength=0)`: inputs are the integer vector and optionally
/// the weights.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.extra_ops", name = "Bincount")]
pub struct PyBincount;

op_args!(PyBincount, ["minlength"], []);

#[pymethods]
impl PyBincount {
    #[new]
    #[pyo3(signature = (minlength = 0))]
    fn new(minlength: i64) -> PyResult<PyClassInitializer<Self>> {
        let minlength = usize::try_from(minlength).map_err(|_| {
            PyValueError::new_err(format!(
                "bincount: minlength must be non-negative, got {minlength}"
            ))
        })?;
        Ok(PyOp::builtin(Arc::new(Bincount { minlength })).add_subclass(PyBincount))
    }
}

core_props!(
    PyBincount,
    Bincount {
        /// The least number of bins.
        minlength: usize,
    }
);
