//! The core's process settings that `oxtensor.config` pushes down when an
//! option changes (`floatX`, `cast_policy`).

use crate::errors::IntoPyResult;
use oxtensor_core::dtype::{floatx, set_cast_policy, set_floatx, DType};
use pyo3::prelude::*;

/// Sets the core's `floatX` ("float32" or "float64").
#[pyfunction]
fn _set_floatx(name: &str) -> PyResult<()> {
    set_floatx(name.parse::<DType>().py()?).py()
}

/// The core's `floatX`.
#[pyfunction]
fn _floatx() -> &'static str {
    floatx().name()
}

/// Sets the core's `cast_policy` ("custom" or "numpy+floatX").
#[pyfunction]
fn _set_cast_policy(name: &str) -> PyResult<()> {
    set_cast_policy(name).py()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_set_floatx, m)?)?;
    m.add_function(wrap_pyfunction!(_set_cast_policy, m)?)?;
    m.add_function(wrap_pyfunction!(_floatx, m)?)
}
