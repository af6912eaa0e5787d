//! Constant data of non-tensor types (Python objects), seen from the core.

use oxtensor_core::graph::HostValue;
use pyo3::prelude::*;
use std::any::Any;

/// A Python object held as a constant's value.
#[derive(Debug)]
pub struct PyHostValue(pub Py<PyAny>);

impl HostValue for PyHostValue {
    fn host_eq(&self, other: &dyn HostValue) -> bool {
        let Some(other) = other.as_any().downcast_ref::<PyHostValue>() else {
            return false;
        };
        Python::attach(|py| self.0.bind(py).eq(other.0.bind(py)).unwrap_or(false))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
