//! `Scratchpad`: the attribute bag behind every `tag`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// `tag`: accepts any attribute.
#[pyclass(dict, module = "oxtensor.graph.utils", name = "Scratchpad")]
#[derive(Default)]
pub struct Scratchpad;

/// A graph object's `tag`, made (empty) the first time it is read.
pub(crate) fn lazy_tag(py: Python<'_>, tag: &mut Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
    if let Some(t) = tag {
        return Ok(t.clone_ref(py));
    }
    let t = Py::new(py, Scratchpad)?.into_any();
    *tag = Some(t.clone_ref(py));
    Ok(t)
}

#[pymethods]
impl Scratchpad {
    #[new]
    fn new() -> Self {
        Scratchpad
    }

    /// Lets `copy` and `pickle` rebuild a tag from its `__dict__` (CPython
    /// refuses native classes without it); the Rust side holds no state.
    fn __getnewargs__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyTuple> {
        PyTuple::empty(slf.py())
    }

    /// Pickles with every protocol (see `reduce_ex_any_protocol`).
    fn __reduce_ex__<'py>(slf: &Bound<'py, Self>, protocol: i64) -> PyResult<Bound<'py, PyAny>> {
        crate::pickle::reduce_ex_any_protocol(slf.as_any(), protocol)
    }

    /// Copies another scratchpad's (or dict's) attributes into this one.
    fn __update__(slf: &Bound<'_, Self>, other: Bound<'_, PyAny>) -> PyResult<()> {
        let items = match other.cast::<PyDict>() {
            Ok(d) => d.clone(),
            Err(_) => other.getattr("__dict__")?.cast_into::<PyDict>()?,
        };
        for (k, v) in items.iter() {
            slf.setattr(k.str()?, v)?;
        }
        Ok(())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!("scratchpad{}", slf.getattr("__dict__")?.str()?))
    }

    /// Prints the attributes, one per line.
    fn info(slf: &Bound<'_, Self>) -> PyResult<()> {
        let d = slf.getattr("__dict__")?;
        let py = slf.py();
        let print = py.import("builtins")?.getattr("print")?;
        print.call1((format!(
            "<oxtensor.graph.utils.scratchpad instance at {}>",
            slf.as_ptr() as usize
        ),))?;
        for item in d.call_method0("items")?.try_iter()? {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
            print.call1((format!("  {}: {}", k.str()?, v.str()?),))?;
        }
        Ok(())
    }
}

/// A copy of a tag (shallow), as `Variable.clone` and `Apply.clone` make.
pub fn copy_tag(py: Python<'_>, tag: &Option<Py<PyAny>>) -> PyResult<Option<Py<PyAny>>> {
    let Some(tag) = tag else { return Ok(None) };
    let copy = py.import("copy")?.call_method1("copy", (tag.bind(py),))?;
    Ok(Some(copy.unbind()))
}
