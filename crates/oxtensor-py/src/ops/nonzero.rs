//! `Nonzero` as a Python class (`oxtensor.tensor.basic.Nonzero`).

use crate::ops::props::unit_op;
use oxtensor_core::ops::nonzero::Nonzero;
use pyo3::prelude::*;

unit_op!(
    PyNonzero,
    Nonzero,
    "oxtensor.tensor.basic",
    "Nonzero",
    "`Nonzero()`: the coordinates of the nonzero elements, one vector per axis."
);
