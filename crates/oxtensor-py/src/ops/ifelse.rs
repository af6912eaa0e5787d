//! `IfElse` (`oxtensor.ifelse`): the lazy choice between two branches.

use crate::ops::op::PyOp;
use crate::ops::props::{core_props, op_args};
use oxtensor_core::ops::ifelse::IfElse;
use pyo3::prelude::*;
use std::sync::Arc;

/// `IfElse(n_outs)`: lazy choice between two branches (`if{}`).
#[pyclass(extends = PyOp, subclass, module = "oxtensor.ifelse", name = "IfElse")]
pub struct PyIfElse;

op_args!(PyIfElse, ["n_outs"], []);

#[pymethods]
impl PyIfElse {
    #[new]
    #[pyo3(signature = (n_outs, as_view = false, name = None))]
    fn new(n_outs: usize, as_view: bool, name: Option<String>) -> PyClassInitializer<Self> {
        let _ = (as_view, name);
        PyOp::builtin(Arc::new(IfElse { n_outs })).add_subclass(PyIfElse)
    }
}

core_props!(
    PyIfElse,
    IfElse {
        /// Number of outputs.
        n_outs: usize,
    }
);
