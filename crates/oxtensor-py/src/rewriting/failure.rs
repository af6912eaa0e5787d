//! A driver's `failure_callback` written in Python, as the core sees it:
//! called as PyTensor calls it, `callback(exc, nav, repl_pairs,
//! node_rewriter, node)`, with the Python exception, the driver, the
//! proposed `(old, new)` pairs, the rewriter object and the `Apply`.

use super::bridge::with_python;
use super::node;
use crate::errors::to_pyerr;
use crate::graph::fgraph::PyFunctionGraph;
use oxtensor_core::error::{Error, Result as CoreResult};
use oxtensor_core::graph::FunctionGraph;
use oxtensor_core::rewrite::{FailureCallback, FailureSite, NodeRewriter, OnFailure};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::Arc;

/// The core rewriters of a driver, each with its Python object.
pub type Members = Vec<(Arc<dyn NodeRewriter>, Py<PyAny>)>;

/// The core forms of `rewriters`, each kept with its Python object.
pub fn members(rewriters: &Bound<'_, PyAny>) -> PyResult<Members> {
    rewriters
        .try_iter()?
        .map(|r| {
            let r = r?;
            Ok((node::to_core(&r)?, r.unbind()))
        })
        .collect()
}

/// A Python `failure_callback`.
pub struct HostFailureCallback {
    callback: Py<PyAny>,
    /// A weak reference to the Python driver (`nav`): the driver holds
    /// this callback, so a strong one would be a cycle.
    nav: Option<Py<PyAny>>,
    rewriters: Members,
}

/// The callback for a driver, or `None` when `callback` is `None`.
pub fn on_failure(
    py: Python<'_>,
    callback: Option<Bound<'_, PyAny>>,
    nav: Option<Bound<'_, PyAny>>,
    rewriters: &Members,
) -> OnFailure {
    let callback = callback.filter(|c| !c.is_none())?;
    Some(Arc::new(HostFailureCallback {
        callback: callback.unbind(),
        nav: nav.filter(|n| !n.is_none()).map(Bound::unbind),
        rewriters: rewriters
            .iter()
            .map(|(c, o)| (c.clone(), o.clone_ref(py)))
            .collect(),
    }))
}

impl HostFailureCallback {
    /// The Python object of the core rewriter that failed (its name if it
    /// is not one of the driver's own, a member of a nested group say).
    fn rewriter_object<'py>(&self, py: Python<'py>, rw: &dyn NodeRewriter) -> Bound<'py, PyAny> {
        let found = self
            .rewriters
            .iter()
            .find(|(c, _)| std::ptr::addr_eq(Arc::as_ptr(c), rw as *const dyn NodeRewriter));
        match found {
            Some((_, obj)) => obj.bind(py).clone(),
            None => pyo3::types::PyString::new(py, rw.name()).into_any(),
        }
    }

    fn call(
        &self,
        shell: &Bound<'_, PyFunctionGraph>,
        error: Error,
        site: &FailureSite<'_>,
    ) -> PyResult<()> {
        let py = shell.py();
        let exc = to_pyerr(error).into_value(py);
        let node = shell.borrow_mut().node_object(py, site.node)?;
        let mut pairs = Vec::with_capacity(site.pairs.len());
        for &(old, new) in &site.pairs {
            let old = shell.borrow_mut().var_object(py, old)?;
            let new = match new {
                Some(v) => shell.borrow_mut().var_object(py, v)?,
                None => py.None().into_bound(py),
            };
            pairs.push(PyTuple::new(py, [old, new])?);
        }
        let nav = match &self.nav {
            Some(weak) => weak.bind(py).call0()?,
            None => py.None().into_bound(py),
        };
        let rw = self.rewriter_object(py, site.rewriter);
        self.callback
            .bind(py)
            .call1((exc, nav, PyList::new(py, pairs)?, rw, node))?;
        Ok(())
    }
}

impl FailureCallback for HostFailureCallback {
    fn on_failure(
        &self,
        fg: &mut FunctionGraph,
        error: Error,
        site: &FailureSite<'_>,
    ) -> CoreResult<()> {
        Python::attach(|py| with_python(py, fg, |shell| self.call(shell, error, site)))
    }
}
