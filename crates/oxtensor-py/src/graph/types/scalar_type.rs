//! `ScalarType` (`oxtensor.scalar.basic`): the type of a single number of a
//! dtype, the core's `Type::Scalar`. Its values are NumPy scalars
//! (`np.float64(1.5)`); at run time the core holds them as 0-d tensors.

use super::{PyTensorType, PyType_};
use crate::convert::constant::numpy;
use crate::registry;
use oxtensor_core::dtype::DType;
use oxtensor_core::types::TensorType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `oxtensor.scalar.basic.ScalarType(dtype)`.
#[pyclass(extends = PyType_, subclass, frozen, module = "oxtensor.scalar.basic", name = "ScalarType")]
pub struct PyScalarType {
    /// The element dtype.
    pub dtype: DType,
}

impl PyScalarType {
    /// A new Python object for a scalar type of `dtype`.
    pub fn create(py: Python<'_>, dtype: DType) -> PyResult<Py<PyScalarType>> {
        Py::new(
            py,
            PyClassInitializer::from(PyType_).add_subclass(PyScalarType { dtype }),
        )
    }

    /// The 0-d tensor type whose values this type's values convert from.
    fn tensor_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTensorType>> {
        let tt = TensorType::new(self.dtype, Vec::new())
            .map_err(|e| PyTypeError::new_err(e.to_string()))?;
        Ok(PyTensorType::get(py, &tt)?.into_bound(py))
    }

    /// The NumPy scalar class of the dtype (`np.float64`).
    fn numpy_class<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy(py)?.getattr(self.dtype.name())
    }
}

#[pymethods]
impl PyScalarType {
    #[new]
    fn new(dtype: Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let dtype = super::parse_dtype(&dtype)?;
        Ok(PyClassInitializer::from(PyType_).add_subclass(PyScalarType { dtype }))
    }

    /// The dtype, as a string (`"float64"`).
    #[getter]
    fn dtype(&self) -> &'static str {
        self.dtype.name()
    }

    /// A scalar has no dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        0
    }

    /// The empty static shape.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }

    /// The props that define the type.
    #[classattr]
    fn __props__() -> (&'static str,) {
        ("dtype",)
    }

    /// Variables of this type are `ScalarVariable`s (defined in Python).
    #[getter]
    fn variable_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        registry::registered(py, "ScalarVariable")
    }

    /// Constants of this type are `ScalarConstant`s.
    #[getter]
    fn constant_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        registry::registered(py, "ScalarConstant")
    }

    /// The value as a NumPy scalar of the dtype. `strict`: it must already
    /// be one; otherwise it is converted when no value changes (or
    /// `allow_downcast`, or a Python float for a floatX type).
    #[pyo3(signature = (data, strict = false, allow_downcast = None))]
    fn filter<'py>(
        slf: &Bound<'py, Self>,
        data: Bound<'py, PyAny>,
        strict: bool,
        allow_downcast: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
        let cls = this.numpy_class(py)?;
        if strict {
            if data.is_exact_instance(cls.cast::<pyo3::types::PyType>()?) {
                return Ok(data);
            }
            return Err(PyTypeError::new_err(format!(
                "{} expected a NumPy {} scalar, got {} ({})",
                this.dtype,
                this.dtype,
                data.repr()?,
                data.get_type().name()?
            )));
        }
        let tt = this.tensor_type(py)?;
        let arr = crate::convert::filter::filter_tensor(
            &tt,
            data.clone(),
            false,
            allow_downcast.unwrap_or(false),
        )
        .map_err(|e| {
            PyTypeError::new_err(format!(
                "Could not convert {} (value={}) to {}: {}",
                crate::errors::type_name(&data),
                data.repr().map(|r| r.to_string()).unwrap_or_default(),
                this.dtype,
                e.value(py)
            ))
        })?;
        arr.bind(py).get_item(PyTuple::empty(py))
    }

    /// Equal values (NaN equal to NaN); `force_same_dtype` also compares dtypes.
    #[pyo3(signature = (a, b, force_same_dtype = false))]
    fn values_eq(
        &self,
        a: Bound<'_, PyAny>,
        b: Bound<'_, PyAny>,
        force_same_dtype: bool,
    ) -> PyResult<bool> {
        let np = numpy(a.py())?;
        let a = np.call_method1("asarray", (a,))?;
        let b = np.call_method1("asarray", (b,))?;
        crate::convert::filter::values_eq(&a, &b, force_same_dtype)
    }

    /// A scalar type holds the values of another when both have the same dtype.
    fn is_super(&self, otype: Bound<'_, PyAny>) -> Option<bool> {
        otype
            .cast::<PyScalarType>()
            .ok()
            .and_then(|o| (o.get().dtype == self.dtype).then_some(true))
    }

    fn __eq__(&self, other: Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyScalarType>()
            .is_ok_and(|o| o.get().dtype == self.dtype)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        ("ScalarType", self.dtype).hash(&mut h);
        h.finish()
    }

    /// PyTensor prints a scalar type as its dtype.
    fn __str__(&self) -> &'static str {
        self.dtype.name()
    }

    fn __repr__(&self) -> String {
        format!("ScalarType({})", self.dtype)
    }

    /// `ScalarType(dtype)` rebuilds it (pickle, copy).
    fn __getnewargs__(&self) -> (&'static str,) {
        (self.dtype.name(),)
    }
}
