//! Objects shared across the module: the Python classes defined in the
//! `oxtensor` package that Rust instantiates (`TensorConstant`, ...), and
//! caches of immutable objects (tensor types, built-in op instances).

use crate::graph::types::PyTensorType;
use oxtensor_core::types::TensorType;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use rustc_hash::FxHashMap;
use std::sync::Mutex;

static CLASSES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
/// Keyed with FxHash: a lookup happens for most variables built, where
/// SipHash was a measurable part of building a node, and the keys are not
/// attacker-chosen.
static TENSOR_TYPES: Mutex<Option<FxHashMap<TensorType, Py<PyTensorType>>>> = Mutex::new(None);
static AUTO_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

static AUTO_IDS: PyOnceLock<Py<AutoIds>> = PyOnceLock::new();

/// `Variable.__count__`: the iterator the `auto_N` numbers come from, as in
/// PyTensor, where tests replace it (`Variable.__count__ = count(n)`).
#[pyclass(module = "oxtensor.graph.basic", name = "_AutoIds")]
pub struct AutoIds;

#[pymethods]
impl AutoIds {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self) -> u64 {
        AUTO_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

/// Our counter, the initial `Variable.__count__`.
pub fn auto_ids(py: Python<'_>) -> PyResult<&Py<AutoIds>> {
    AUTO_IDS.get_or_try_init(py, || Py::new(py, AutoIds))
}

/// The next `auto_N` number, shared by every variable (as in PyTensor):
/// from the atomic counter, unless `Variable.__count__` was replaced by
/// another iterator, which then numbers the variables.
pub fn next_auto_id() -> u64 {
    Python::attach(|py| {
        let counter = py
            .get_type::<crate::graph::variable::PyVariable>()
            .getattr(pyo3::intern!(py, "__count__"));
        match counter {
            Ok(c) if auto_ids(py).is_ok_and(|ours| !c.is(ours)) => c
                .call_method0(pyo3::intern!(py, "__next__"))
                .and_then(|n| n.extract())
                .ok(),
            _ => None,
        }
    })
    .unwrap_or_else(|| AUTO_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

fn classes(py: Python<'_>) -> &Bound<'_, PyDict> {
    CLASSES
        .get_or_init(py, || PyDict::new(py).unbind())
        .bind(py)
}

/// Called by the Python package at import: the Python-defined classes Rust needs.
#[pyfunction]
pub fn _register(py: Python<'_>, name: &str, obj: Bound<'_, PyAny>) -> PyResult<()> {
    classes(py).set_item(name, obj)
}

/// A class or object registered by the Python package.
pub fn registered<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    classes(py).get_item(name)?.ok_or_else(|| {
        PyRuntimeError::new_err(format!(
            "oxtensor._core: '{name}' was not registered; import oxtensor first"
        ))
    })
}

/// The shared Python object of a tensor type.
pub fn tensor_type(py: Python<'_>, ty: &TensorType) -> PyResult<Py<PyTensorType>> {
    let mut guard = TENSOR_TYPES
        .lock()
        .map_err(|_| PyRuntimeError::new_err("type cache poisoned"))?;
    let cache = guard.get_or_insert_with(FxHashMap::default);
    if let Some(t) = cache.get(ty) {
        return Ok(t.clone_ref(py));
    }
    let obj = PyTensorType::create(py, ty.clone())?;
    cache.insert(ty.clone(), obj.clone_ref(py));
    Ok(obj)
}
