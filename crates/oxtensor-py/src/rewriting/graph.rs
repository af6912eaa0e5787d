//! Graph rewriters from Python: `oxtensor.graph.rewriting.basic.GraphRewriter`
//! (a class users subclass with `apply(fgraph)`, or a view of a core pass:
//! a walk, an equilibrium, a sequence, merging, a database query) and
//! `HostGraphRewriter`, the core's view of one written in Python.

use super::bridge::{run_pass, with_python};
use super::failure;
use super::profile::PyRewriteProfile;
use crate::errors::choice;
use crate::graph::fgraph::PyFunctionGraph;
use oxtensor_core::error::Result as CoreResult;
use oxtensor_core::graph::FunctionGraph;
use oxtensor_core::rewrite::{
    Equilibrium, GraphRewriter, MergeRewriter, RunContext, Sequence, WalkOrder, Walking,
};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError};
use pyo3::prelude::*;
use std::sync::Arc;

/// A walking pass's `order` values (`dfs` is `in_to_out`).
const WALK_ORDERS: [(&str, WalkOrder); 3] = [
    ("in_to_out", WalkOrder::InToOut),
    ("dfs", WalkOrder::InToOut),
    ("out_to_in", WalkOrder::OutToIn),
];

/// A graph rewriter written in Python, as the core sees it.
pub struct HostGraphRewriter {
    obj: Py<PyAny>,
    name: String,
}

impl GraphRewriter for HostGraphRewriter {
    fn name(&self) -> &str {
        &self.name
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> CoreResult<()> {
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            if !obj.hasattr("add_requirements").unwrap_or(false) {
                return Ok(());
            }
            with_python(py, fg, |shell| {
                obj.call_method1("add_requirements", (shell,)).map(|_| ())
            })
        })
    }

    /// Calls `apply(fgraph)`; the graph changed if its change history grew.
    fn apply(&self, fg: &mut FunctionGraph, _run: &mut RunContext) -> CoreResult<bool> {
        let before = fg.checkpoint();
        Python::attach(|py| {
            with_python(py, fg, |shell| {
                self.obj.bind(py).call_method1("apply", (shell,))?;
                Ok(())
            })
        })?;
        Ok(fg.checkpoint() != before)
    }
}

/// A core pass, as Python code hands it to `GraphRewriter._set_core`.
#[pyclass(module = "oxtensor._core", name = "CorePass", frozen)]
pub struct PyCorePass {
    pub(crate) inner: Arc<dyn GraphRewriter>,
}

super::rewriter_base_class!(
    /// `GraphRewriter`: subclass it and define `apply(fgraph)`; the drivers
    /// and database queries are instances holding a core pass.
    PyGraphRewriter,
    "GraphRewriter",
    GraphRewriter
);

#[pymethods]
impl PyGraphRewriter {
    /// Makes this object run a core pass, or the pass another built-in
    /// graph rewriter runs (a class naming one of `optdb`'s passes).
    fn _set_core(&mut self, pass: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(p) = pass.cast::<PyCorePass>() {
            self.inner = Some(p.get().inner.clone());
            return Ok(());
        }
        let other = pass.cast::<PyGraphRewriter>()?.borrow();
        match &other.inner {
            Some(inner) => self.inner = Some(inner.clone()),
            None => {
                return Err(PyTypeError::new_err(format!(
                    "{} is a graph rewriter written in Python, not a core pass",
                    pass.repr()?
                )))
            }
        }
        Ok(())
    }

    /// Attaches what the pass needs to `fgraph` (nothing by default).
    fn add_requirements(&self, fgraph: &Bound<'_, PyFunctionGraph>) -> PyResult<()> {
        let _ = fgraph;
        Ok(())
    }

    /// Runs the pass on `fgraph` (in place).
    fn apply(&self, fgraph: &Bound<'_, PyFunctionGraph>) -> PyResult<PyRewriteProfile> {
        match &self.inner {
            Some(pass) => Ok(PyRewriteProfile::from(run_pass(pass.as_ref(), fgraph)?)),
            None => Err(PyNotImplementedError::new_err("GraphRewriter.apply")),
        }
    }

    /// `add_requirements`, then `apply` (PyTensor's `rewrite`).
    fn rewrite<'py>(
        slf: &Bound<'py, Self>,
        fgraph: &Bound<'py, PyFunctionGraph>,
    ) -> PyResult<Bound<'py, PyAny>> {
        slf.call_method1("add_requirements", (fgraph,))?;
        slf.call_method1("apply", (fgraph,))
    }

    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        fgraph: &Bound<'py, PyFunctionGraph>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Self::rewrite(slf, fgraph)
    }

    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        match &slf.borrow().inner {
            Some(p) => Ok(p.name().to_owned()),
            None => Ok(slf.get_type().name()?.to_string()),
        }
    }
}

/// The core form of a Python graph rewriter.
pub fn to_core(obj: &Bound<'_, PyAny>) -> PyResult<Arc<dyn GraphRewriter>> {
    if let Ok(rw) = obj.cast::<PyGraphRewriter>() {
        if let Some(inner) = &rw.borrow().inner {
            return Ok(inner.clone());
        }
    }
    Ok(Arc::new(HostGraphRewriter {
        obj: obj.clone().unbind(),
        name: obj.str()?.to_string(),
    }))
}

fn graph_list(rewriters: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Arc<dyn GraphRewriter>>> {
    match rewriters.filter(|r| !r.is_none()) {
        Some(rs) => rs.try_iter()?.map(|r| to_core(&r?)).collect(),
        None => Ok(Vec::new()),
    }
}

fn pass(inner: impl GraphRewriter + 'static) -> PyCorePass {
    PyCorePass {
        inner: Arc::new(inner),
    }
}

/// A walk over node rewriters (`WalkingGraphRewriter`); failures go to
/// `failure_callback(exc, nav(), pairs, rewriter, node)` when one is given
/// (`nav` is a weak reference to the Python driver).
#[pyfunction]
#[pyo3(signature = (rewriters, order, ignore_newtrees, name, failure_callback=None, nav=None))]
pub fn walking_pass(
    rewriters: &Bound<'_, PyAny>,
    order: &str,
    ignore_newtrees: bool,
    name: String,
    failure_callback: Option<Bound<'_, PyAny>>,
    nav: Option<Bound<'_, PyAny>>,
) -> PyResult<PyCorePass> {
    let order = choice(order, &WALK_ORDERS, |other| {
        format!("order must be 'in_to_out', 'out_to_in' or 'dfs', got '{other}'")
    })?;
    let members = failure::members(rewriters)?;
    let cb = failure::on_failure(rewriters.py(), failure_callback, nav, &members);
    let list = members.into_iter().map(|(c, _)| c).collect();
    let walk = Walking::new(name, list, order)
        .ignore_newtrees(ignore_newtrees)
        .on_failure(cb);
    Ok(pass(walk))
}

/// An equilibrium (`EquilibriumGraphRewriter`): node rewriters, and graph
/// rewriters run at the start of each round, at its end, or after each
/// change; `max_use_ratio` overrides `optdb__max_use_ratio`'s bound, and
/// `failure_callback` is called as a walk's is.
#[pyfunction]
#[pyo3(signature = (
    node_rewriters, global_rewriters, final_rewriters, cleanup_rewriters, name,
    max_use_ratio=None, failure_callback=None, nav=None
))]
#[allow(clippy::too_many_arguments)]
pub fn equilibrium_pass(
    node_rewriters: &Bound<'_, PyAny>,
    global_rewriters: Option<&Bound<'_, PyAny>>,
    final_rewriters: Option<&Bound<'_, PyAny>>,
    cleanup_rewriters: Option<&Bound<'_, PyAny>>,
    name: String,
    max_use_ratio: Option<f64>,
    failure_callback: Option<Bound<'_, PyAny>>,
    nav: Option<Bound<'_, PyAny>>,
) -> PyResult<PyCorePass> {
    let members = failure::members(node_rewriters)?;
    let cb = failure::on_failure(node_rewriters.py(), failure_callback, nav, &members);
    let list = members.into_iter().map(|(c, _)| c).collect();
    let eq = Equilibrium::new(name, list)
        .with_global(graph_list(global_rewriters)?)
        .with_final(graph_list(final_rewriters)?)
        .with_cleanup(graph_list(cleanup_rewriters)?)
        .with_max_use_ratio(max_use_ratio)
        .on_failure(cb);
    Ok(pass(eq))
}

/// Graph rewriters in order (`SequentialGraphRewriter`).
#[pyfunction]
pub fn sequential_pass(rewriters: &Bound<'_, PyAny>, name: String) -> PyResult<PyCorePass> {
    Ok(pass(Sequence::new(name, graph_list(Some(rewriters))?)))
}

/// Merging (`MergeOptimizer`).
#[pyfunction]
pub fn merge_pass() -> PyCorePass {
    pass(MergeRewriter)
}
