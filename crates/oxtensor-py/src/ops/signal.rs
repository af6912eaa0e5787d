//! The signal-processing op classes: `Convolve1d`
//! (`oxtensor.tensor.signal.conv`), holding its core op.

use crate::ops::props::unit_op;
use oxtensor_core::ops::convolve::Convolve1d;
use pyo3::prelude::*;

unit_op!(
    PyConvolve1d,
    Convolve1d,
    "oxtensor.tensor.signal.conv",
    "Convolve1d",
    "`Convolve1d`: inputs in1, in2 (vectors) and full_mode (a boolean scalar)."
);
