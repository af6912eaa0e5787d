//! `TensorType` (`oxtensor.tensor.type`): dtype and static shape, the
//! variables and constants it makes, `filter` and value comparison, and
//! the parsing of dtype and shape arguments.

use super::{PyType_, Reduced};
use crate::errors::IntoPyResult;
use crate::registry;
use oxtensor_core::dtype::DType;
use oxtensor_core::types::TensorType;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

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
            // A `ValueError`, as PyTensor's (and with its message).
            let v: i64 = item.extract().map_err(|_| {
                PyValueError::new_err(format!(
                    "TensorType broadcastable/shape must be a boolean, integer or None, got {}",
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

/// The static shape a deprecated `broadcastable=` pattern stands for (1
/// where true, unknown elsewhere), with PyTensor's `DeprecationWarning`.
fn shape_from_broadcastable(b: &Bound<'_, PyAny>) -> PyResult<Vec<Option<u64>>> {
    let py = b.py();
    PyErr::warn(
        py,
        &py.get_type::<pyo3::exceptions::PyDeprecationWarning>(),
        c"The `broadcastable` keyword is deprecated; use `shape` (1 for a broadcastable dimension, None otherwise).",
        1,
    )?;
    b.try_iter()?
        .map(|flag| Ok(flag?.is_truthy()?.then_some(1)))
        .collect()
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
            (None, Some(b)) => shape_from_broadcastable(&b)?,
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

    /// Makes a variable of this type: `dmatrix("x")`, with where it was
    /// made in `tag.trace`.
    #[pyo3(signature = (name = None))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        name: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        super::add_tag_trace(&Self::make_variable(slf, name)?)
    }

    /// Variables of this type are `TensorVariable`s.
    #[classattr]
    fn variable_type(py: Python<'_>) -> Py<pyo3::types::PyType> {
        py.get_type::<crate::graph::tensor_variable::PyTensorVariable>()
            .unbind()
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
        crate::convert::filter::filter_tensor(slf, data, strict, allow_downcast.unwrap_or(false))
    }

    /// Same shape (and dtype, unless `force_same_dtype=False`) and equal
    /// values, NaN matching NaN. Static, as PyTensor's: tests call it on the
    /// class (`TensorType.values_eq(a, b)`).
    #[staticmethod]
    #[pyo3(signature = (a, b, force_same_dtype = true))]
    fn values_eq(
        a: Bound<'_, PyAny>,
        b: Bound<'_, PyAny>,
        force_same_dtype: bool,
    ) -> PyResult<bool> {
        crate::convert::filter::values_eq(&a, &b, force_same_dtype)
    }

    /// `values_eq` up to the dtype's tolerance (see `constant::values_eq_approx`);
    /// static, as `values_eq`.
    #[staticmethod]
    #[pyo3(signature = (a, b, allow_remove_inf = false, allow_remove_nan = false, rtol = None, atol = None))]
    fn values_eq_approx(
        a: Bound<'_, PyAny>,
        b: Bound<'_, PyAny>,
        allow_remove_inf: bool,
        allow_remove_nan: bool,
        rtol: Option<f64>,
        atol: Option<f64>,
    ) -> PyResult<bool> {
        crate::convert::filter::values_eq_approx(
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
    #[pyo3(signature = (dtype = None, shape = None, broadcastable = None))]
    fn clone(
        &self,
        py: Python<'_>,
        dtype: Option<Bound<'_, PyAny>>,
        shape: Option<Bound<'_, PyAny>>,
        broadcastable: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensorType>> {
        let dtype = dtype
            .map(|d| parse_dtype(&d))
            .transpose()?
            .unwrap_or(self.inner.dtype);
        let shape = match (shape, broadcastable) {
            (Some(s), _) => parse_shape(&s)?,
            (None, Some(b)) => shape_from_broadcastable(&b)?,
            (None, None) => self.inner.shape.to_vec(),
        };
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
