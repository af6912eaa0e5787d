//! `TensorVariable`'s math methods beyond the operators: the parts of
//! complex numbers (`x.real`, `x.imag`, `x.conj()`), rounding and `clip`,
//! as PyTensor's `_tensor_py_operators` has them.

use crate::errors::choice;
use crate::graph::tensor_variable::PyTensorVariable;
use crate::ops::make_node::{elemwise, tensor_type_of};
use oxtensor_core::scalar::{ScalarKind, ScalarOp};
use pyo3::prelude::*;

/// `round`'s `mode` values.
const ROUND_MODES: [(&str, ScalarKind); 2] = [
    ("half_to_even", ScalarKind::RoundHalfToEven),
    ("half_away_from_zero", ScalarKind::RoundHalfAwayFromZero),
];

type Out<'py> = PyResult<Bound<'py, PyAny>>;

fn apply<'py>(kind: ScalarKind, inputs: Vec<Bound<'py, PyAny>>) -> Out<'py> {
    let py = inputs[0].py();
    elemwise(py, ScalarOp::Kind(kind), inputs)
}

#[pymethods]
impl PyTensorVariable {
    /// The real part (`x` itself, converted, for real dtypes).
    #[getter]
    fn real<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        apply(ScalarKind::Real, vec![slf.clone().into_any()])
    }

    /// The imaginary part (zeros for real dtypes).
    #[getter]
    fn imag<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        apply(ScalarKind::Imag, vec![slf.clone().into_any()])
    }

    /// The complex conjugate; `x` itself when it is not complex.
    fn conj<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        if tensor_type_of(slf.as_any())?.dtype.is_complex() {
            apply(ScalarKind::Conj, vec![slf.clone().into_any()])
        } else {
            Ok(slf.clone().into_any())
        }
    }

    /// The complex conjugate (`conj`).
    fn conjugate<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        Self::conj(slf)
    }

    /// Rounded to integers: `mode` is `"half_to_even"` (the default) or
    /// `"half_away_from_zero"`.
    #[pyo3(signature = (mode = None))]
    fn round<'py>(slf: &Bound<'py, Self>, mode: Option<&str>) -> Out<'py> {
        let kind = choice(mode.unwrap_or("half_to_even"), &ROUND_MODES, |other| {
            format!(
                "round mode '{other}' is not implemented; expected 'half_to_even' or 'half_away_from_zero'"
            )
        })?;
        apply(kind, vec![slf.clone().into_any()])
    }

    /// Rounded towards zero.
    fn trunc<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        apply(ScalarKind::Trunc, vec![slf.clone().into_any()])
    }

    /// `clip(x, a_min, a_max)`.
    fn clip<'py>(
        slf: &Bound<'py, Self>,
        a_min: Bound<'py, PyAny>,
        a_max: Bound<'py, PyAny>,
    ) -> Out<'py> {
        apply(ScalarKind::Clip, vec![slf.clone().into_any(), a_min, a_max])
    }
}
