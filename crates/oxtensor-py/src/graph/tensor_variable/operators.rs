//! `TensorVariable`'s Python operators (`x + y`, `2 * x`, `x < y`, `-x`,
//! `x @ y`): `Elemwise` nodes of the scalar op each operator names. (Written
//! out: PyO3's operator slots cannot come from a `macro_rules!` expansion.)

use super::{Out, PyTensorVariable};
use crate::errors::exceptions::ComplexError;
use crate::ops::make_node::{elemwise, tensor_type_of};
use oxtensor_core::scalar::{ScalarKind, ScalarOp};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

fn binary<'py>(kind: ScalarKind, a: &Bound<'py, PyAny>, b: Bound<'py, PyAny>) -> Out<'py> {
    elemwise(a.py(), ScalarOp::Kind(kind), vec![a.clone(), b])
}

fn reflected<'py>(kind: ScalarKind, a: &Bound<'py, PyAny>, b: Bound<'py, PyAny>) -> Out<'py> {
    elemwise(a.py(), ScalarOp::Kind(kind), vec![b, a.clone()])
}

/// `x % y` and `x // y`: NumPy dropped both for complex numbers, so, as in
/// PyTensor, building one on a complex input raises `ComplexError` at once
/// rather than when the function runs.
fn real_only<'py>(kind: ScalarKind, inputs: [&Bound<'py, PyAny>; 2]) -> Out<'py> {
    let out = elemwise(
        inputs[0].py(),
        ScalarOp::Kind(kind),
        inputs.iter().map(|&v| v.clone()).collect(),
    )?;
    let dtype = tensor_type_of(&out)?.dtype;
    if dtype.is_complex() {
        return Err(ComplexError::new_err(format!(
            "{} is not defined for complex numbers (the inputs upcast to {dtype})",
            kind.name()
        )));
    }
    Ok(out)
}

fn unary<'py>(kind: ScalarKind, a: &Bound<'py, PyAny>) -> Out<'py> {
    elemwise(a.py(), ScalarOp::Kind(kind), vec![a.clone()])
}

#[pymethods]
impl PyTensorVariable {
    fn __add__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Add, slf.as_any(), other)
    }
    fn __radd__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Add, slf.as_any(), other)
    }
    fn __sub__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Sub, slf.as_any(), other)
    }
    fn __rsub__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Sub, slf.as_any(), other)
    }
    fn __mul__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Mul, slf.as_any(), other)
    }
    fn __rmul__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Mul, slf.as_any(), other)
    }
    fn __truediv__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::TrueDiv, slf.as_any(), other)
    }
    fn __rtruediv__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::TrueDiv, slf.as_any(), other)
    }
    fn __floordiv__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        real_only(ScalarKind::IntDiv, [slf.as_any(), &other])
    }
    fn __rfloordiv__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        real_only(ScalarKind::IntDiv, [&other, slf.as_any()])
    }
    fn __mod__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        real_only(ScalarKind::Mod, [slf.as_any(), &other])
    }
    fn __rmod__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        real_only(ScalarKind::Mod, [&other, slf.as_any()])
    }
    /// `(self // other, self % other)`, as Python's `divmod`.
    fn __divmod__<'py>(
        slf: &Bound<'py, Self>,
        other: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let q = real_only(ScalarKind::IntDiv, [slf.as_any(), &other])?;
        let r = real_only(ScalarKind::Mod, [slf.as_any(), &other])?;
        PyTuple::new(slf.py(), [q, r])
    }
    fn __rdivmod__<'py>(
        slf: &Bound<'py, Self>,
        other: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let q = real_only(ScalarKind::IntDiv, [&other, slf.as_any()])?;
        let r = real_only(ScalarKind::Mod, [&other, slf.as_any()])?;
        PyTuple::new(slf.py(), [q, r])
    }
    fn __pow__<'py>(
        slf: &Bound<'py, Self>,
        other: Bound<'py, PyAny>,
        modulo: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        if modulo.is_some_and(|m| !m.is_none()) {
            return Err(PyTypeError::new_err(
                "pow() with a modulus is not supported for tensors",
            ));
        }
        binary(ScalarKind::Pow, slf.as_any(), other)
    }
    fn __rpow__<'py>(
        slf: &Bound<'py, Self>,
        other: Bound<'py, PyAny>,
        modulo: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        let _ = modulo;
        reflected(ScalarKind::Pow, slf.as_any(), other)
    }
    fn __and__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::And, slf.as_any(), other)
    }
    fn __rand__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::And, slf.as_any(), other)
    }
    fn __or__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Or, slf.as_any(), other)
    }
    fn __ror__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Or, slf.as_any(), other)
    }
    fn __xor__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Xor, slf.as_any(), other)
    }
    fn __rxor__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Xor, slf.as_any(), other)
    }
    fn __lt__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Lt, slf.as_any(), other)
    }
    fn __le__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Le, slf.as_any(), other)
    }
    fn __gt__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Gt, slf.as_any(), other)
    }
    fn __ge__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Ge, slf.as_any(), other)
    }
    fn __neg__<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        unary(ScalarKind::Neg, slf.as_any())
    }
    fn __abs__<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        unary(ScalarKind::Abs, slf.as_any())
    }
    fn __invert__<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        unary(ScalarKind::Invert, slf.as_any())
    }
    fn __matmul__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        crate::ops::matmul::matmul(slf.clone().into_any(), other)
    }
    fn __rmatmul__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        crate::ops::matmul::matmul(other, slf.clone().into_any())
    }
}
