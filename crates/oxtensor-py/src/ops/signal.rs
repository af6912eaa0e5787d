//! The signal-processing op classes: `Convolve1d`
//! (`oxtensor.tensor.signal.conv`) and the real FFTs `RFFTOp`, `IRFFTOp`
//! and their gradients (`oxtensor.tensor.fft`), each holding its core op.

use crate::ops::props::unit_op;
use oxtensor_core::ops::convolve::Convolve1d;
use oxtensor_core::ops::fft::{IRFFTGrad, IRFFTOp, RFFTGrad, RFFTOp};
use pyo3::prelude::*;

unit_op!(
    PyConvolve1d,
    Convolve1d,
    "oxtensor.tensor.signal.conv",
    "Convolve1d",
    "`Convolve1d`: inputs in1, in2 (vectors) and full_mode (a boolean scalar)."
);
unit_op!(
    PyRFFTOp,
    RFFTOp,
    "oxtensor.tensor.fft",
    "RFFTOp",
    "`RFFTOp`: inputs a (batch axis first) and s (the transform lengths)."
);
unit_op!(
    PyIRFFTOp,
    IRFFTOp,
    "oxtensor.tensor.fft",
    "IRFFTOp",
    "`IRFFTOp`: the unnormalised inverse of `RFFTOp` (inputs a, s)."
);
unit_op!(
    PyRFFTGrad,
    RFFTGrad,
    "oxtensor.tensor.fft",
    "RFFTGrad",
    "`RFFTGrad`: the gradient of `RFFTOp` (inputs gz, s)."
);
unit_op!(
    PyIRFFTGrad,
    IRFFTGrad,
    "oxtensor.tensor.fft",
    "IRFFTGrad",
    "`IRFFTGrad`: the gradient of `IRFFTOp` (inputs gz, s)."
);
