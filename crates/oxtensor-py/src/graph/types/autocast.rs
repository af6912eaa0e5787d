//! The float autocaster's dtypes (`oxtensor.scalar.autocast_float.dtypes`),
//! the core's setting (`oxtensor_core::scalar::autocast`).

use super::parse_dtype;
use crate::errors::IntoPyResult;
use oxtensor_core::scalar::autocast;
use pyo3::prelude::*;

/// `_core._autocast_float_dtypes()`: the dtypes tried, as strings.
#[pyfunction]
pub fn _autocast_float_dtypes() -> Vec<&'static str> {
    autocast::autocast_float_dtypes()
        .into_iter()
        .map(|d| d.name())
        .collect()
}

/// `_core._set_autocast_float_dtypes(dtypes)`: sets them (float dtypes).
#[pyfunction]
pub fn _set_autocast_float_dtypes(dtypes: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
    let parsed = dtypes
        .iter()
        .map(parse_dtype)
        .collect::<PyResult<Vec<_>>>()?;
    autocast::set_autocast_float_dtypes(&parsed).py()
}
