//! `Choose` and `PermuteRowElements` as Python classes
//! (`oxtensor.tensor.basic`): picking elements by integer arrays.

use crate::errors::to_pyerr;
use crate::ops::op::PyOp;
use crate::ops::props::{core_props, op_args, unit_op};
use oxtensor_core::ops::choose::{Choose, ChooseMode};
use oxtensor_core::ops::permute_rows::PermuteRowElements;
use pyo3::prelude::*;
use std::sync::Arc;

unit_op!(
    PyPermuteRowElements,
    PermuteRowElements,
    "oxtensor.tensor.basic",
    "PermuteRowElements",
    "`PermuteRowElements`: inputs are `x`, the permutations `y` and `inverse`."
);

/// `Choose(mode='raise')`: inputs are the integer array and the stacked choices.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.basic", name = "Choose")]
pub struct PyChoose;

op_args!(PyChoose, ["mode"], []);

#[pymethods]
impl PyChoose {
    #[new]
    #[pyo3(signature = (mode = "raise"))]
    fn new(mode: &str) -> PyResult<PyClassInitializer<Self>> {
        let mode = ChooseMode::parse(mode).map_err(to_pyerr)?;
        Ok(PyOp::builtin(Arc::new(Choose { mode })).add_subclass(PyChoose))
    }
}

core_props!(PyChoose, Choose {
    /// What an out-of-range index does: `raise`, `wrap` or `clip`.
    mode: &'static str = |c| c.mode.as_str(),
});
