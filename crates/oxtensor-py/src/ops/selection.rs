//! `Choose` and `PermuteRowElements` as Python classes
//! (`oxtensor.tensor.basic`): picking elements by integer arrays.

use crate::errors::to_pyerr;
use crate::ops::props::{core_props, str_op, unit_op};
use oxtensor_core::ops::choose::{Choose, ChooseMode};
use oxtensor_core::ops::permute_rows::PermuteRowElements;
use pyo3::prelude::*;

unit_op!(
    PyPermuteRowElements,
    PermuteRowElements,
    "oxtensor.tensor.basic",
    "PermuteRowElements",
    "`PermuteRowElements`: inputs are `x`, the permutations `y` and `inverse`."
);

str_op!(
    /// `Choose(mode='raise')`: inputs are the integer array and the stacked choices.
    PyChoose("oxtensor.tensor.basic", "Choose"),
    mode = "raise" => choose
);

/// The core op of `Choose(mode)`.
fn choose(mode: &str) -> PyResult<Choose> {
    let mode = ChooseMode::parse(mode).map_err(to_pyerr)?;
    Ok(Choose { mode })
}

core_props!(PyChoose, Choose {
    /// What an out-of-range index does: `raise`, `wrap` or `clip`.
    mode: &'static str = |c| c.mode.as_str(),
});
