//! `Type`, `TensorType`, `NullType`, `DisconnectedType` as Python classes,
//! and the conversion between Python type objects and core [`Type`]s.

use crate::errors::IntoPyResult;
use crate::registry;
use oxtensor_core::dtype::DType;
use oxtensor_core::types::{HostType, TensorType, Type};
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

    /// Makes a variable of this type: `dmatrix("x")`.
    #[pyo3(signature = (name = None))]
    fn __call__(slf: &Bound<'_, Self>, name: Option<Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        Ok(slf.call_method1("make_variable", (name,))?.unbind())
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
    fn variable_type(py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py
            .get_type::<crate::graph::variable::PyVariable>()
            .into_any()
            .unbind())
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
        let is_super = slf.call_method1("is_super", (var.getattr("type")?,))?;
        if is_super.is_truthy()? {
            return Ok(var.unbind());
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

/// `oxtensor.tensor.type.TensorType(dtype, shape)`.
#[pyclass(extends = PyType_, subclass, frozen, module = "oxtensor.tensor.type", name = "TensorType")]
pub struct PyTensorType {
    /// The core type.
    pub inner: TensorType,
    name: Option<String>,
}

impl PyTensorType {
    /// A Python `TensorType` for a core type, shared per distinct type.
    pub fn get(py: Python<'_>, ty: &TensorType) -> PyResult<Py<PyTensorType>> {
        registry::tensor_type(py, ty)
    }

    /// Builds a fresh Python object (used by the registry's cache).
    pub fn create(py: Python<'_>, ty: TensorType) -> PyResult<Py<PyTensorType>> {
        Py::new(
            py,
            PyClassInitializer::from(PyType_).add_subclass(PyTensorType {
                inner: ty,
                name: None,
            }),
        )
    }
}

/// Reads a static shape: ints (>= 0), `None`, and PyTensor's legacy bools.
pub fn parse_shape(shape: &Bound<'_, PyAny>) -> PyResult<Vec<Option<u64>>> {
    let mut out = Vec::new();
    for item in shape.try_iter()? {
        let item = item?;
        if item.is_none() {
            out.push(None);
        } else if let Ok(b) = item.cast::<pyo3::types::PyBool>() {
            out.push(b.is_true().then_some(1));
        } else {
            let v: i64 = item.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "Shape entries must be int or None, got {}",
                    item.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            if v < 0 {
                return Err(PyValueError::new_err(format!(
                    "Shape entries must be non-negative, got {v}"
                )));
            }
            out.push(Some(v as u64));
        }
    }
    Ok(out)
}

/// Parses a dtype given as any spelling NumPy accepts: a string goes to
/// the core's parser as it is (`DType::from_numpy`: `"f8"`, `"float"`,
/// `"<f8"`, ...); anything else (`np.float64`, `float`, `np.dtype(...)`)
/// as NumPy's own name for it, the error naming what was passed.
pub fn parse_dtype(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(s) = obj.cast::<pyo3::types::PyString>() {
        return s.to_str()?.parse::<DType>().py();
    }
    let np = obj.py().import("numpy")?;
    let name = np.call_method1("dtype", (obj,))?.str()?.to_string();
    name.parse::<DType>().map_err(|e| {
        let what = obj.repr().map(|r| r.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!("{what} (NumPy dtype '{name}'): {e}"))
    })
}

#[pymethods]
impl PyTensorType {
    #[new]
    #[pyo3(signature = (dtype, shape = None, name = None, broadcastable = None))]
    fn new(
        dtype: Bound<'_, PyAny>,
        shape: Option<Bound<'_, PyAny>>,
        name: Option<String>,
        broadcastable: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let dtype = parse_dtype(&dtype)?;
        let dims = match (shape, broadcastable) {
            (Some(s), _) => parse_shape(&s)?,
            (None, Some(b)) => parse_shape(&b)?
                .into_iter()
                .map(|d| d.filter(|&v| v == 1))
                .collect(),
            (None, None) => Vec::new(),
        };
        let inner = TensorType::new(dtype, dims).py()?;
        Ok(PyClassInitializer::from(PyType_).add_subclass(PyTensorType { inner, name }))
    }

    /// The element type, as a string (`"float64"`).
    #[getter]
    fn dtype(&self) -> &'static str {
        self.inner.dtype.name()
    }

    /// Static shape, `None` where unknown.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape.iter().map(|d| d.map(|v| v as i64)))
    }

    /// Number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.ndim()
    }

    /// Which dimensions are statically 1.
    #[getter]
    fn broadcastable<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.broadcastable())
    }

    /// The type's name, if it was given one.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// A new `TensorVariable` of this type.
    #[pyo3(signature = (name = None))]
    fn make_variable<'py>(
        slf: &Bound<'py, Self>,
        name: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let name = match name.filter(|n| !n.is_none()) {
            Some(n) if n.is_instance_of::<pyo3::types::PyString>() => Some(n.unbind()),
            Some(n) => {
                return Err(PyTypeError::new_err(format!(
                    "name must be a string, got {}",
                    n.repr()?
                )))
            }
            None => None,
        };
        let cls = slf.getattr("variable_type")?;
        if cls.is(py.get_type::<crate::graph::tensor_variable::PyTensorVariable>()) {
            return crate::graph::construct::tensor_variable(
                py,
                slf.clone().into_any().unbind(),
                name,
            );
        }
        cls.call1((slf, py.None(), py.None(), name))
    }

    /// Makes a variable of this type: `dmatrix("x")`.
    #[pyo3(signature = (name = None))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        name: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Self::make_variable(slf, name)
    }

    /// Variables of this type are `TensorVariable`s.
    #[classattr]
    fn variable_type(py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py
            .get_type::<crate::graph::tensor_variable::PyTensorVariable>()
            .into_any()
            .unbind())
    }

    /// The props that define the type.
    #[classattr]
    fn __props__() -> (&'static str, &'static str) {
        ("dtype", "shape")
    }

    /// Checks (and, where lossless, converts) a value for this type.
    #[pyo3(signature = (data, strict = false, allow_downcast = None))]
    fn filter(
        slf: &Bound<'_, Self>,
        data: Bound<'_, PyAny>,
        strict: bool,
        allow_downcast: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        crate::convert::constant::filter_tensor(slf, data, strict, allow_downcast.unwrap_or(false))
    }

    /// Same shape (and dtype, unless `force_same_dtype=False`) and equal
    /// values, NaN matching NaN.
    #[pyo3(signature = (a, b, force_same_dtype = true))]
    fn values_eq(
        &self,
        a: Bound<'_, PyAny>,
        b: Bound<'_, PyAny>,
        force_same_dtype: bool,
    ) -> PyResult<bool> {
        crate::convert::constant::values_eq(&a, &b, force_same_dtype)
    }

    /// `values_eq` up to the dtype's tolerance (see `constant::values_eq_approx`).
    #[pyo3(signature = (a, b, allow_remove_inf = false, allow_remove_nan = false, rtol = None, atol = None))]
    fn values_eq_approx(
        &self,
        a: Bound<'_, PyAny>,
        b: Bound<'_, PyAny>,
        allow_remove_inf: bool,
        allow_remove_nan: bool,
        rtol: Option<f64>,
        atol: Option<f64>,
    ) -> PyResult<bool> {
        crate::convert::constant::values_eq_approx(
            &a,
            &b,
            allow_remove_inf,
            allow_remove_nan,
            (rtol, atol),
        )
    }

    /// `TensorType`'s `in_same_class`: same dtype and broadcastable pattern.
    fn in_same_class(&self, otype: Bound<'_, PyAny>) -> bool {
        otype
            .cast::<PyTensorType>()
            .is_ok_and(|o| self.inner.in_same_class(&o.get().inner))
    }

    /// Same dtype and rank, each static length of this type unknown or equal.
    fn is_super(&self, otype: Bound<'_, PyAny>) -> Option<bool> {
        let ok = otype
            .cast::<PyTensorType>()
            .is_ok_and(|o| self.inner.is_super(&o.get().inner));
        ok.then_some(true)
    }

    /// `var` itself when this type is a supertype of its type; a
    /// `specify_shape` of it when its type is less specific but compatible
    /// (same dtype and rank, no two known lengths differ); else `None`.
    fn convert_variable(&self, py: Python<'_>, var: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let vty = var.getattr("type")?;
        let Ok(other) = vty.cast::<PyTensorType>() else {
            return Ok(py.None());
        };
        let other = &other.get().inner;
        if self.inner.is_super(other) {
            return Ok(var.unbind());
        }
        let compatible = other.dtype == self.inner.dtype
            && other.ndim() == self.inner.ndim()
            && (other.shape.iter().zip(&self.inner.shape))
                .all(|(a, b)| a.is_none() || b.is_none() || a == b);
        if !compatible {
            return Ok(py.None());
        }
        let shape: Vec<Option<u64>> = self.inner.shape.to_vec();
        let specify = py
            .import("oxtensor.tensor.shape")?
            .getattr("specify_shape")?;
        Ok(specify.call1((var, shape))?.unbind())
    }

    /// A copy with another dtype and/or shape.
    #[pyo3(signature = (dtype = None, shape = None))]
    fn clone(
        &self,
        py: Python<'_>,
        dtype: Option<Bound<'_, PyAny>>,
        shape: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensorType>> {
        let dtype = dtype
            .map(|d| parse_dtype(&d))
            .transpose()?
            .unwrap_or(self.inner.dtype);
        let shape = shape
            .map(|s| parse_shape(&s))
            .transpose()?
            .unwrap_or_else(|| self.inner.shape.to_vec());
        Self::get(py, &TensorType::new(dtype, shape).py()?)
    }

    fn __eq__(&self, other: Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyTensorType>()
            .is_ok_and(|o| o.get().inner == self.inner && o.get_type().is(other.get_type()))
    }

    fn __hash__(&self) -> u64 {
        oxtensor_core::ops::props_hash(&self.inner)
    }

    fn __str__(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.inner.to_string())
    }

    fn __repr__(&self) -> String {
        self.inner.repr()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        let cls = py.get_type::<PyTensorType>().into_any();
        Ok((cls, (self.inner.dtype.name().to_owned(), self.shape(py)?)))
    }
}

/// `TensorType.__reduce__`'s value: the class and `(dtype, shape)`.
type Reduced<'py> = (Bound<'py, PyAny>, (String, Bound<'py, PyTuple>));

/// `NullType(why_null)`: the type of undefined gradients.
#[pyclass(extends = PyType_, subclass, frozen, module = "oxtensor.graph.null_type", name = "NullType")]
pub struct PyNullType {
    why: String,
}

#[pymethods]
impl PyNullType {
    #[new]
    #[pyo3(signature = (why_null = "(no explanation given)".to_owned()))]
    fn new(why_null: String) -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyType_).add_subclass(PyNullType { why: why_null })
    }

    /// Why the gradient is undefined.
    #[getter]
    fn why_null(&self) -> &str {
        &self.why
    }

    /// `NullType(why_null)` rebuilds it.
    fn __getnewargs__(&self) -> (String,) {
        (self.why.clone(),)
    }

    #[pyo3(signature = (data, strict = false, allow_downcast = None))]
    fn filter(
        &self,
        data: Bound<'_, PyAny>,
        strict: bool,
        allow_downcast: Option<bool>,
    ) -> PyResult<()> {
        let _ = (data, strict, allow_downcast);
        Err(PyValueError::new_err(
            "No values may be assigned to a NullType",
        ))
    }

    #[pyo3(signature = (other, allow_convert = true))]
    fn filter_variable(&self, other: Bound<'_, PyAny>, allow_convert: bool) -> PyResult<()> {
        let _ = (other, allow_convert);
        Err(PyValueError::new_err(
            "No values may be assigned to a NullType",
        ))
    }

    fn values_eq(&self, a: Bound<'_, PyAny>, b: Bound<'_, PyAny>) -> PyResult<bool> {
        let _ = (a, b);
        Err(PyValueError::new_err("NullType has no values to compare"))
    }

    fn __eq__(&self, other: Bound<'_, PyAny>) -> bool {
        other.is_instance_of::<PyNullType>()
    }

    fn __hash__(&self) -> u64 {
        0x4e75_6c6c
    }

    fn __str__(&self) -> &'static str {
        "NullType"
    }

    fn __repr__(&self) -> &'static str {
        "NullType"
    }
}

/// `DisconnectedType`: marks a gradient that is zero because the cost does not depend on it.
#[pyclass(extends = PyType_, subclass, frozen, module = "oxtensor.gradient", name = "DisconnectedType")]
pub struct PyDisconnectedType;

#[pymethods]
impl PyDisconnectedType {
    #[new]
    pub fn new() -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyType_).add_subclass(PyDisconnectedType)
    }

    /// `DisconnectedType()` rebuilds it.
    fn __getnewargs__<'py>(&self, py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }

    #[pyo3(signature = (data, strict = false, allow_downcast = None))]
    fn filter(
        &self,
        data: Bound<'_, PyAny>,
        strict: bool,
        allow_downcast: Option<bool>,
    ) -> PyResult<()> {
        let _ = (data, strict, allow_downcast);
        Err(pyo3::exceptions::PyAssertionError::new_err("If you're assigning to a DisconnectedType you're doing something wrong. It should only be used as a symbolic placeholder."))
    }

    #[pyo3(signature = (other, allow_convert = true))]
    fn filter_variable(&self, other: Bound<'_, PyAny>, allow_convert: bool) -> PyResult<()> {
        let _ = (other, allow_convert);
        Err(pyo3::exceptions::PyAssertionError::new_err("If you're assigning to a DisconnectedType you're doing something wrong. It should only be used as a symbolic placeholder."))
    }

    fn __eq__(&self, other: Bound<'_, PyAny>) -> bool {
        other.is_instance_of::<PyDisconnectedType>()
    }

    fn __hash__(&self) -> u64 {
        0x4469_7363
    }

    fn __str__(&self) -> &'static str {
        "DisconnectedType"
    }

    fn __repr__(&self) -> &'static str {
        "DisconnectedType"
    }
}

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
        let Some(other) = other.as_any().downcast_ref::<HostTypeAdapter>() else {
            return false;
        };
        Python::attach(|py| self.obj.bind(py).eq(other.obj.bind(py)).unwrap_or(false))
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
        // Only a composite's inner graph has scalar variables.
        Type::Scalar(_) => {
            return Err(PyTypeError::new_err(format!(
                "scalar type {ty} has no Python form"
            )))
        }
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
