//! The gradient machinery's marker types: `NullType` (an undefined
//! gradient, `oxtensor.graph.null_type`) and `DisconnectedType`
//! (`oxtensor.gradient`).

use super::PyType_;
use pyo3::exceptions::{PyAssertionError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// What a marker type is: every instance equals every other (with one
/// fixed hash), prints as its class name, and refuses every value with
/// the error `$refuse` makes (`filter`, `filter_variable`).
macro_rules! marker_type {
    ($cls:ident, $name:literal, $hash:literal, $refuse:expr) => {
        #[pymethods]
        impl $cls {
            #[pyo3(signature = (data, strict = false, allow_downcast = None))]
            fn filter(
                &self,
                data: Bound<'_, PyAny>,
                strict: bool,
                allow_downcast: Option<bool>,
            ) -> PyResult<()> {
                let _ = (data, strict, allow_downcast);
                Err($refuse)
            }

            #[pyo3(signature = (other, allow_convert = true))]
            fn filter_variable(
                &self,
                other: Bound<'_, PyAny>,
                allow_convert: bool,
            ) -> PyResult<()> {
                let _ = (other, allow_convert);
                Err($refuse)
            }

            fn __eq__(&self, other: Bound<'_, PyAny>) -> bool {
                other.is_instance_of::<$cls>()
            }

            fn __hash__(&self) -> u64 {
                $hash
            }

            fn __str__(&self) -> &'static str {
                $name
            }

            fn __repr__(&self) -> &'static str {
                $name
            }
        }
    };
}

/// `NullType(why_null)`: the type of undefined gradients.
#[pyclass(extends = PyType_, subclass, frozen, module = "oxtensor.graph.null_type", name = "NullType")]
pub struct PyNullType {
    pub(crate) why: String,
}

#[pymethods]
impl PyNullType {
    #[new]
    #[pyo3(signature = (why_null = "(no explanation given)".to_owned()))]
    pub(crate) fn new(why_null: String) -> PyClassInitializer<Self> {
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

    fn values_eq(&self, a: Bound<'_, PyAny>, b: Bound<'_, PyAny>) -> PyResult<bool> {
        let _ = (a, b);
        Err(PyValueError::new_err("NullType has no values to compare"))
    }
}

marker_type!(
    PyNullType,
    "NullType",
    0x4e75_6c6c,
    PyValueError::new_err("No values may be assigned to a NullType")
);

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
}

marker_type!(
    PyDisconnectedType,
    "DisconnectedType",
    0x4469_7363,
    PyAssertionError::new_err(
        "If you're assigning to a DisconnectedType you're doing something wrong. \
         It should only be used as a symbolic placeholder."
    )
);
