//! The seeds' execution hooks of an op: constant folding, `prepare_node`,
//! `make_py_thunk`/`make_thunk`, and a built-in op's `infer_shape` and
//! `gufunc_signature`.

use super::PyOp;
use crate::ops::thunk::PyThunk;
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;
use pyo3::types::PyString;

#[pymethods]
impl PyOp {
    /// Whether constant folding may precompute this node (default `True`).
    pub(crate) fn do_constant_folding(
        &self,
        fgraph: Bound<'_, PyAny>,
        node: Bound<'_, PyAny>,
    ) -> bool {
        let _ = (fgraph, node);
        true
    }

    /// Hook called before thunks are made; does nothing by default.
    #[pyo3(signature = (node, storage_map, compute_map, r#impl))]
    pub(crate) fn prepare_node(
        &self,
        node: Bound<'_, PyAny>,
        storage_map: Bound<'_, PyAny>,
        compute_map: Bound<'_, PyAny>,
        r#impl: Bound<'_, PyAny>,
    ) {
        let _ = (node, storage_map, compute_map, r#impl);
    }

    /// A thunk that calls `perform` on the node's storage cells.
    #[pyo3(signature = (node, storage_map, compute_map, no_recycling, debug = false))]
    pub(crate) fn make_py_thunk<'py>(
        slf: &Bound<'py, Self>,
        node: Bound<'py, PyAny>,
        storage_map: Bound<'py, PyAny>,
        compute_map: Bound<'py, PyAny>,
        no_recycling: Bound<'py, PyAny>,
        debug: bool,
    ) -> PyResult<Bound<'py, PyThunk>> {
        let _ = no_recycling;
        let method = crate::ops::host_thunk::perform_name(slf, debug)?;
        let perform = slf.getattr(method).map_err(|_| {
            PyNotImplementedError::new_err(format!(
                "{} defines neither perform nor make_thunk",
                crate::errors::type_name(slf)
            ))
        })?;
        PyThunk::for_node(perform, &node, &storage_map, &compute_map)
    }

    /// `prepare_node`, then `make_py_thunk` (the seeds' `make_thunk`).
    #[pyo3(signature = (node, storage_map, compute_map, no_recycling, r#impl = None))]
    pub(crate) fn make_thunk<'py>(
        slf: &Bound<'py, Self>,
        node: Bound<'py, PyAny>,
        storage_map: Bound<'py, PyAny>,
        compute_map: Bound<'py, PyAny>,
        no_recycling: Bound<'py, PyAny>,
        r#impl: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let impl_ = r#impl.unwrap_or_else(|| PyString::new(slf.py(), "py").into_any());
        slf.call_method1("prepare_node", (&node, &storage_map, &compute_map, impl_))?;
        Ok(slf
            .call_method1(
                "make_py_thunk",
                (node, storage_map, compute_map, no_recycling),
            )?
            .into_any())
    }

    /// A built-in op's gufunc signature (`Det`: `"(m,m)->()"`), or the one a
    /// Python op set on itself; other ops have no such attribute, as in
    /// PyTensor.
    #[getter]
    fn gufunc_signature<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        if let Some(own) = own_attribute(slf.as_any(), "gufunc_signature")? {
            return Ok(own);
        }
        let core = slf.borrow().core.clone();
        match core.and_then(|c| c.gufunc_signature()) {
            Some(s) => Ok(pyo3::types::PyString::new(slf.py(), s).into_any()),
            None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "'{}' object has no attribute 'gufunc_signature'",
                slf.get_type().name()?
            ))),
        }
    }

    /// A Python op may set its own signature (kept in its `__dict__`).
    #[setter]
    fn set_gufunc_signature(slf: &Bound<'_, Self>, value: Bound<'_, PyAny>) -> PyResult<()> {
        slf.getattr("__dict__")?.set_item("gufunc_signature", value)
    }

    /// `infer_shape(fgraph, node, input_shapes)` (or PyTensor 3.x's
    /// `(node, input_shapes)`) of a built-in op, from its core rule. Ops
    /// written in Python define their own or have none, as in PyTensor.
    #[getter]
    pub(crate) fn infer_shape<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        if slf.borrow().core.is_none() {
            return Err(crate::ops::infer_shape::missing(slf.as_any()));
        }
        crate::ops::infer_shape::bound_method(slf.as_any())
    }
}

/// `name` from the instance's own `__dict__` (Python subclasses have one).
fn own_attribute<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    match obj
        .getattr("__dict__")
        .map(|d| d.cast_into::<pyo3::types::PyDict>())
    {
        Ok(Ok(d)) => d.get_item(name),
        _ => Ok(None),
    }
}
