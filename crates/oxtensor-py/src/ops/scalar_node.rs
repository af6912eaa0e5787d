//! Nodes on scalar variables: `as_scalar` (a value or 0-d tensor as a
//! scalar variable), the node of a scalar op on scalars (`add(x, y)`), and
//! the `ScalarFromTensor` / `TensorFromScalar` ops as Python classes with
//! their shared instances. Types are checked by the core ops.

use crate::convert::constant::as_tensor_variable;
use crate::errors::IntoPyResult;
use crate::graph::apply::PyApply;
use crate::graph::construct;
use crate::graph::types::{core_type, py_type, PyScalarType, PyTensorType};
use crate::graph::variable::PyVariable;
use crate::ops::props::unit_op;
use crate::registry;
use oxtensor_core::ops::scalar_tensor::{ScalarFromTensor, TensorFromScalar};
use oxtensor_core::ops::OpRef;
use oxtensor_core::types::Type;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyTuple};
use std::sync::Arc;

unit_op!(
    PyScalarFromTensor,
    ScalarFromTensor,
    "oxtensor.tensor.basic",
    "ScalarFromTensor",
    "`ScalarFromTensor()`: a 0-d tensor as a scalar."
);

unit_op!(
    PyTensorFromScalar,
    TensorFromScalar,
    "oxtensor.tensor.basic",
    "TensorFromScalar",
    "`TensorFromScalar()`: a scalar as a 0-d tensor."
);

#[pymethods]
impl PyScalarFromTensor {
    /// The node reading `x`, a 0-d tensor (or data made one).
    fn make_node<'py>(slf: &Bound<'py, Self>, x: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let x = as_tensor_variable(x, None, None, None)?;
        typed_node(
            slf.as_any(),
            &(Arc::new(ScalarFromTensor) as OpRef),
            vec![x],
        )
    }
}

#[pymethods]
impl PyTensorFromScalar {
    /// The node reading `s`, a scalar (or data made a scalar constant).
    fn make_node<'py>(slf: &Bound<'py, Self>, s: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let s = if s.is_instance_of::<PyVariable>() {
            s
        } else {
            as_scalar(s)?
        };
        typed_node(
            slf.as_any(),
            &(Arc::new(TensorFromScalar) as OpRef),
            vec![s],
        )
    }
}

/// The shared `scalar_from_tensor` instance (what `as_scalar` applies).
fn scalar_from_tensor(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    static SHARED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let op = SHARED.get_or_try_init(py, || {
        Ok::<_, PyErr>(Py::new(py, PyScalarFromTensor::new())?.into_any())
    })?;
    Ok(op.bind(py).clone())
}

/// `oxtensor._core.scalar_from_tensor_op()`: the shared instance, which
/// `oxtensor.tensor.basic.scalar_from_tensor` is.
#[pyfunction]
pub fn scalar_from_tensor_op(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    scalar_from_tensor(py)
}

/// `oxtensor.scalar.as_scalar(x)`: a scalar variable as it is, a 0-d
/// tensor through `scalar_from_tensor`, a number as a `ScalarConstant`
/// of the dtype it gets as a tensor constant.
#[pyfunction]
pub fn as_scalar(x: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    let py = x.py();
    if let Ok(v) = x.cast::<PyVariable>() {
        let ty = v.borrow().ty(py);
        if ty.is_instance_of::<PyScalarType>() {
            return Ok(x);
        }
        if let Ok(t) = ty.cast::<PyTensorType>() {
            if t.get().inner.ndim() == 0 {
                return scalar_from_tensor(py)?.call1((x,));
            }
        }
        return Err(PyTypeError::new_err(format!(
            "Cannot convert {} of type {} to a scalar type",
            x.str()?,
            ty.str()?
        )));
    }
    let t = as_tensor_variable(x.clone(), None, None, None).map_err(|e| {
        PyTypeError::new_err(format!(
            "Cannot convert {} to a scalar type: {}",
            x.repr().map(|r| r.to_string()).unwrap_or_default(),
            e.value(py)
        ))
    })?;
    let tt = t.getattr("type")?.cast_into::<PyTensorType>()?;
    if tt.get().inner.ndim() != 0 {
        return Err(PyTypeError::new_err(format!(
            "Cannot convert {} to a scalar type: it has {} dimensions",
            x.repr()?,
            tt.get().inner.ndim()
        )));
    }
    let ty = PyScalarType::create(py, tt.get().inner.dtype)?;
    let data = t.getattr("data")?.get_item(PyTuple::empty(py))?;
    registry::registered(py, "ScalarConstant")?.call1((ty, data))
}

/// The node of scalar op `op` (core `core`) on `inputs`, each made a
/// scalar by [`as_scalar`].
pub fn scalar_op_node<'py>(
    op: &Bound<'py, PyAny>,
    core: &OpRef,
    inputs: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let inputs = inputs.iter().map(as_scalar).collect::<PyResult<Vec<_>>>()?;
    typed_node(op, core, inputs)
}

/// The node of `op` on variables `inputs`, its output types from the core op.
fn typed_node<'py>(
    op: &Bound<'py, PyAny>,
    core: &OpRef,
    inputs: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = op.py();
    let types = inputs
        .iter()
        .map(|i| core_type(&i.getattr("type")?))
        .collect::<PyResult<Vec<Type>>>()?;
    let refs: Vec<&Type> = types.iter().collect();
    let out_types = crate::errors::panics::guard(|| core.output_types(&refs).py())?;
    let outputs = out_types
        .iter()
        .map(|t| new_variable(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    let node = PyApply::create(
        py,
        op.clone().unbind(),
        PyList::new(py, inputs)?,
        PyList::new(py, outputs)?,
    )?;
    Ok(node.into_any())
}

/// A fresh variable of core type `ty`, of its Python type's variable class.
fn new_variable<'py>(py: Python<'py>, ty: &Type) -> PyResult<Bound<'py, PyAny>> {
    let ty_obj = py_type(py, ty)?;
    match ty {
        Type::Tensor(_) => construct::tensor_variable(py, ty_obj, None),
        Type::Scalar(_) => {
            let cls =
                registry::registered(py, "ScalarVariable")?.cast_into::<pyo3::types::PyType>()?;
            construct::variable_of_class(py, &cls, PyVariable::with(ty_obj, None, None, None))
        }
        _ => ty_obj.bind(py).call0(),
    }
}
