//! `Type`, `TensorType`, `NullType`, `DisconnectedType` as Python classes,
//! and the conversion between Python type objects and core [`Type`]s.

pub mod autocast;
mod marker_types;
mod scalar_type;
mod tensor_type;

pub use self::marker_types::{PyDisconnectedType, PyNullType};
pub use self::scalar_type::PyScalarType;
pub use self::tensor_type::{parse_dtype, PyTensorType};

use crate::registry;
use oxtensor_core::types::{HostType, Type};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::any::Any;
use std::sync::Arc;

/// `oxtensor.graph.type.Type`: the base of all types; subclass it in Python
/// and define `filter` (the seeds' `double` type does).
#[pyclass(subclass, dict, weakref, module = "oxtensor.graph.type", name = "Type")]
pub struct PyType_;

#[pymethods]
impl PyType_ {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyType_
    }

    /// Lets `copy` and `pickle` rebuild a type written in Python from its
    /// `__dict__` (CPython refuses native layouts without it).
    fn __getnewargs__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyTuple> {
        PyTuple::empty(slf.py())
    }

    /// Pickles with every protocol (see `reduce_ex_any_protocol`).
    fn __reduce_ex__<'py>(slf: &Bound<'py, Self>, protocol: i64) -> PyResult<Bound<'py, PyAny>> {
        crate::pickle::reduce_ex_any_protocol(slf.as_any(), protocol)
    }

    /// Makes a variable of this type: `dmatrix("x")`, with where it was
    /// made in `tag.trace`.
    #[pyo3(signature = (name = None))]
    fn __call__(slf: &Bound<'_, Self>, name: Option<Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let var = slf.call_method1("make_variable", (name,))?;
        Ok(add_tag_trace(&var)?.unbind())
    }

    /// A new variable of this type, of class `variable_type`.
    #[pyo3(signature = (name = None))]
    fn make_variable(slf: &Bound<'_, Self>, name: Option<Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let cls = slf.getattr("variable_type")?;
        Ok(cls
            .call1((slf, slf.py().None(), slf.py().None(), name))?
            .unbind())
    }

    /// A constant of this type holding `filter(value)`.
    #[pyo3(signature = (value, name = None))]
    fn make_constant(
        slf: &Bound<'_, Self>,
        value: Bound<'_, PyAny>,
        name: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let cls = slf.getattr("constant_type")?;
        Ok(cls.call1((slf, value, name))?.unbind())
    }

    /// The class of variables of this type.
    #[classattr]
    fn variable_type(py: Python<'_>) -> Py<pyo3::types::PyType> {
        py.get_type::<crate::graph::variable::PyVariable>().unbind()
    }

    /// The class of constants of this type: `Constant`, `TensorConstant` for
    /// tensors. A getter, not a class attribute, because both classes are
    /// defined in Python after this module loads; subclasses may override it.
    #[getter]
    fn constant_type<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let name = if slf.is_instance_of::<PyTensorType>() {
            "TensorConstant"
        } else {
            "Constant"
        };
        registry::registered(slf.py(), name)
    }

    /// Validates or converts a runtime value; every type must define it.
    #[pyo3(signature = (data, strict = false, allow_downcast = None))]
    fn filter(
        slf: &Bound<'_, Self>,
        data: Bound<'_, PyAny>,
        strict: bool,
        allow_downcast: Option<bool>,
    ) -> PyResult<()> {
        let _ = (data, strict, allow_downcast);
        Err(PyNotImplementedError::new_err(format!(
            "{} must define filter(data, strict=False, allow_downcast=None)",
            slf.get_type().name()?
        )))
    }

    /// `other` as a variable of this type: wraps raw data in a constant,
    /// converts a compatible variable, or raises `TypeError`.
    #[pyo3(signature = (other, allow_convert = true))]
    fn filter_variable(
        slf: &Bound<'_, Self>,
        other: Bound<'_, PyAny>,
        allow_convert: bool,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let other = if other.is_instance_of::<crate::graph::variable::PyVariable>() {
            other
        } else {
            slf.call_method1("make_constant", (other,))?
        };
        let oty = other.getattr("type")?;
        if oty.eq(slf)? {
            return Ok(other.unbind());
        }
        if allow_convert {
            let converted = slf.call_method1("convert_variable", (&other,))?;
            if !converted.is_none() {
                return Ok(converted.unbind());
            }
        }
        let _ = py;
        Err(PyTypeError::new_err(format!(
            "Cannot convert Type {} (of Variable {}) into Type {}. You can try to manually convert {} into a {}.",
            oty.str()?, other.str()?, slf.str()?, other.str()?, slf.str()?
        )))
    }

    /// `var` if this type is a supertype of its type, else `None`.
    fn convert_variable(slf: &Bound<'_, Self>, var: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let var_type = var.getattr("type")?;
        let is_super = slf.call_method1("is_super", (&var_type,))?;
        if is_super.is_truthy()? {
            return Ok(var.unbind());
        }
        // A less specific variable would need a conversion this base class
        // cannot make (`TensorType` wraps it in `specify_shape`).
        if var_type.call_method1("is_super", (slf,))?.is_truthy()? {
            return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
                "Cannot convert {} to the more specific type {}",
                var_type.str()?,
                slf.str()?
            )));
        }
        Ok(slf.py().None())
    }

    /// Whether `filter` accepts the value.
    #[pyo3(signature = (data, strict = true))]
    fn is_valid_value(
        slf: &Bound<'_, Self>,
        data: Bound<'_, PyAny>,
        strict: bool,
    ) -> PyResult<bool> {
        let py = slf.py();
        match slf.call_method1("filter", (data, strict)) {
            Ok(_) => Ok(true),
            Err(e)
                if e.is_instance_of::<PyTypeError>(py) || e.is_instance_of::<PyValueError>(py) =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Same class of types (default: equality).
    fn in_same_class(slf: &Bound<'_, Self>, otype: Bound<'_, PyAny>) -> PyResult<bool> {
        slf.eq(otype)
    }

    /// `True` if every value of `otype` is a value of this type, else `None`.
    fn is_super(slf: &Bound<'_, Self>, otype: Bound<'_, PyAny>) -> PyResult<Option<bool>> {
        let same = slf.call_method1("in_same_class", (otype,))?.is_truthy()?;
        Ok(same.then_some(true))
    }

    /// Whether two values are equal.
    fn values_eq(&self, a: Bound<'_, PyAny>, b: Bound<'_, PyAny>) -> PyResult<bool> {
        a.eq(b)
    }

    /// Whether two values are approximately equal (default: `values_eq`).
    fn values_eq_approx(
        slf: &Bound<'_, Self>,
        a: Bound<'_, PyAny>,
        b: Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        slf.call_method1("values_eq", (a, b))?.is_truthy()
    }

    /// A new instance built with the given arguments.
    #[pyo3(signature = (*args, **kwargs))]
    fn clone(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        Ok(slf.get_type().call(args, kwargs)?.unbind())
    }
}

/// `TensorType.__reduce__`'s value: the class and `(dtype, shape)`.
pub(crate) type Reduced<'py> = (Bound<'py, PyAny>, (String, Bound<'py, PyTuple>));

/// A Python type object seen by the core: equality and hash go back to Python.
#[derive(Debug)]
pub struct HostTypeAdapter {
    /// The Python type object.
    pub obj: Py<PyAny>,
    hash: u64,
    text: String,
}

impl HostType for HostTypeAdapter {
    fn host_eq(&self, other: &dyn HostType) -> bool {
        let other = other.as_any().downcast_ref::<HostTypeAdapter>();
        other.is_some_and(|o| crate::ops::host_op::python_eq(&self.obj, &o.obj))
    }

    fn host_hash(&self) -> u64 {
        self.hash
    }

    fn host_str(&self) -> String {
        self.text.clone()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The core type of a Python type object.
pub fn core_type(ty: &Bound<'_, PyAny>) -> PyResult<Type> {
    if let Ok(t) = ty.cast::<PyTensorType>() {
        return Ok(Type::Tensor(t.get().inner.clone()));
    }
    if let Ok(t) = ty.cast::<PyScalarType>() {
        return Ok(Type::Scalar(t.get().dtype));
    }
    if let Ok(t) = ty.cast::<PyNullType>() {
        return Ok(Type::Null(Arc::from(t.get().why.as_str())));
    }
    if ty.is_instance_of::<PyDisconnectedType>() {
        return Ok(Type::Disconnected);
    }
    let hash = ty.hash().map(|h| h as u64).unwrap_or(0);
    let text = ty.str()?.to_string();
    Ok(Type::Host(Arc::new(HostTypeAdapter {
        obj: ty.clone().unbind(),
        hash,
        text,
    })))
}

/// The Python type object of a core type.
pub fn py_type(py: Python<'_>, ty: &Type) -> PyResult<Py<PyAny>> {
    Ok(match ty {
        Type::Tensor(t) => PyTensorType::get(py, t)?.into_any(),
        Type::Null(why) => Py::new(py, PyNullType::new(why.to_string()))?.into_any(),
        Type::Disconnected => Py::new(py, PyDisconnectedType::new())?.into_any(),
        Type::Scalar(d) => PyScalarType::create(py, *d)?.into_any(),
        Type::Host(h) => match h.as_any().downcast_ref::<HostTypeAdapter>() {
            Some(a) => a.obj.clone_ref(py),
            None => {
                return Err(PyTypeError::new_err(format!(
                    "type {ty} has no Python form"
                )))
            }
        },
    })
}

/// `oxtensor.graph.utils.add_tag_trace(var)`: records the user's stack
/// (`config.traceback__limit` frames) in `var.tag.trace`, as PyTensor's
/// `Type.__call__` does. Reading the Python stack is Python's business.
pub fn add_tag_trace<'py>(var: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static ADD: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    ADD.import(var.py(), "oxtensor.graph.utils", "add_tag_trace")?
        .call1((var,))
}
