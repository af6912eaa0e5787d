//! Constant data of non-tensor types (Python objects), seen from the core.

use oxtensor_core::graph::HostValue;
use pyo3::prelude::*;
use std::any::Any;
use std::mem::ManuallyDrop;

/// A Python object held as a value (a constant's, or a call's argument
/// of a non-tensor type).
#[derive(Debug)]
pub struct PyHostValue(ManuallyDrop<Py<PyAny>>);

impl PyHostValue {
    /// Holds `obj`.
    pub fn new(obj: Py<PyAny>) -> Self {
        PyHostValue(ManuallyDrop::new(obj))
    }

    /// The object.
    pub fn object(&self) -> &Py<PyAny> {
        &self.0
    }
}

impl Drop for PyHostValue {
    /// Released at once when this thread holds the GIL, even where PyO3
    /// does not know it (calls through `compile/vectorcall.rs`): PyO3 would queue
    /// the decrement until its next entry, and a loop of such calls never
    /// makes one, so the queue (and the objects) would grow per call.
    fn drop(&mut self) {
        // SAFETY: the field is taken once, here, and never used again.
        let obj = unsafe { ManuallyDrop::take(&mut self.0) };
        // SAFETY: `PyGILState_Check` may be called from any thread; a
        // decrement with the GIL held is always sound.
        unsafe {
            if pyo3::ffi::PyGILState_Check() == 1 {
                pyo3::ffi::Py_DecRef(obj.into_ptr());
            } else {
                drop(obj);
            }
        }
    }
}

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

    /// Python's `copy.deepcopy` of the object.
    fn deep_copy(&self) -> oxtensor_core::error::Result<std::sync::Arc<dyn HostValue>> {
        Python::attach(|py| {
            let copied = py
                .import("copy")?
                .call_method1("deepcopy", (self.0.bind(py),))?;
            Ok::<_, PyErr>(PyHostValue::new(copied.unbind()))
        })
        .map(|v| std::sync::Arc::new(v) as std::sync::Arc<dyn HostValue>)
        .map_err(crate::errors::from_pyerr)
    }
}
