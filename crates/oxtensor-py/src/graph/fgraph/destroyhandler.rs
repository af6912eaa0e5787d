//! `oxtensor.graph.destroyhandler`: the Python face of the core
//! `DestroyHandler`. Attaching one attaches the core feature to the core
//! graph (which then validates and orders every change); this object only
//! translates variables and nodes between the two sides.

use crate::errors::exceptions::AlreadyThere;
use crate::errors::IntoPyResult;
use crate::graph::fgraph::PyFunctionGraph;
use oxtensor_core::compile::protected_vars;
use oxtensor_core::graph::destroy::{
    fast_inplace_check as core_fast, inplace_candidates as core_candidates,
};
use oxtensor_core::graph::{DestroyHandler, FunctionGraph, NodeId, VarId};
use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyWeakrefReference};
use rustc_hash::FxHashSet;

/// `DestroyHandler(do_imports_on_attach=True, algo=None)`.
#[pyclass(module = "oxtensor.graph.destroyhandler", name = "DestroyHandler")]
pub struct PyDestroyHandler {
    /// A weak reference to the graph it serves (one handler serves one
    /// graph; weak, as the graph holds its features).
    served: Option<Py<PyAny>>,
}

/// The core graph behind a Python `FunctionGraph` argument.
fn graph_of<'py>(fgraph: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyFunctionGraph>> {
    Ok(fgraph.cast::<PyFunctionGraph>()?.clone())
}

/// The core ids of Python variables of `fg`; ones the graph does not know
/// are left out (they cannot be destroyed in it).
fn var_ids(fg: &Bound<'_, PyFunctionGraph>, vars: &Bound<'_, PyAny>) -> PyResult<Vec<VarId>> {
    let this = fg.borrow();
    let (_, memo) = this.parts()?;
    let mut out = Vec::new();
    for v in vars.try_iter()? {
        if let Some(id) = memo.var_id(&v?) {
            out.push(id);
        }
    }
    Ok(out)
}

/// Runs `f` on the graph's core handler (a `RuntimeError` if it has none).
fn with_core<T>(
    fg: &Bound<'_, PyFunctionGraph>,
    f: impl FnOnce(&FunctionGraph, &DestroyHandler) -> T,
) -> PyResult<T> {
    let this = fg.borrow();
    let (core, _) = this.parts()?;
    let dh = core
        .feature::<DestroyHandler>()
        .ok_or_else(|| PyRuntimeError::new_err("the graph has no DestroyHandler attached"))?;
    Ok(f(core, dh))
}

/// The Python objects of `ids` (nodes or variables), made by `object`
/// (`node_object`, `var_object`) where the graph has none yet.
fn objects_list<'py, Id: Copy>(
    fg: &Bound<'py, PyFunctionGraph>,
    ids: &[Id],
    object: fn(&mut PyFunctionGraph, Python<'py>, Id) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut this = fg.borrow_mut();
    let objs = ids
        .iter()
        .map(|&id| object(&mut this, fg.py(), id))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(fg.py(), objs)
}

fn nodes_list<'py>(
    fg: &Bound<'py, PyFunctionGraph>,
    ids: &[NodeId],
) -> PyResult<Bound<'py, PyList>> {
    objects_list(fg, ids, PyFunctionGraph::node_object)
}

fn vars_list<'py>(fg: &Bound<'py, PyFunctionGraph>, ids: &[VarId]) -> PyResult<Bound<'py, PyList>> {
    objects_list(fg, ids, PyFunctionGraph::var_object)
}

#[pymethods]
impl PyDestroyHandler {
    #[new]
    #[pyo3(signature = (do_imports_on_attach = true, algo = None))]
    pub(crate) fn new(do_imports_on_attach: bool, algo: Option<Bound<'_, PyAny>>) -> Self {
        // The core handler always registers existing nodes and has one
        // (incremental) algorithm: both arguments are accepted for PyTensor code.
        let _ = (do_imports_on_attach, algo);
        PyDestroyHandler { served: None }
    }

    /// The names the graph forwards to this handler (`fgraph.destroyers(r)`).
    #[classattr]
    fn provides(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        PyTuple::new(py, ["destroyers", "has_destroyers"])
    }

    /// Attaches the core handler; `AlreadyThere` when the graph has one.
    fn on_attach(slf: &Bound<'_, Self>, fgraph: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        if let Some(served) = &slf.borrow().served {
            let graph = served.bind(py).call0()?;
            if !graph.is_none() && !graph.is(fgraph) {
                return Err(PyException::new_err(
                    "A DestroyHandler instance can only serve one FunctionGraph",
                ));
            }
        }
        let fg = graph_of(fgraph)?;
        if fgraph.hasattr("destroy_handler")? {
            return Err(AlreadyThere::new_err(
                "DestroyHandler feature is already present or in conflict with another plugin.",
            ));
        }
        fg.borrow_mut()
            .core_mut()?
            .attach_feature(Box::new(DestroyHandler::new()))
            .py()?;
        fgraph.setattr("destroy_handler", slf)?;
        slf.borrow_mut().served = Some(PyWeakrefReference::new(fgraph)?.into_any().unbind());
        Ok(())
    }

    /// Detaches the core handler too.
    fn on_detach(slf: &Bound<'_, Self>, fgraph: &Bound<'_, PyAny>) -> PyResult<()> {
        let fg = graph_of(fgraph)?;
        fg.borrow_mut()
            .core_mut()?
            .remove_feature_of::<DestroyHandler>()
            .py()?;
        if fgraph.hasattr("destroy_handler")? {
            fgraph.delattr("destroy_handler")?;
        }
        slf.borrow_mut().served = None;
        Ok(())
    }

    /// Nothing to do: the core handler validated with the graph's core
    /// features, before the Python features are asked.
    fn on_validate(&self, _fgraph: &Bound<'_, PyAny>) {}

    /// Checks the graph: `InconsistencyError` naming the nodes and value.
    fn validate(&self, fgraph: &Bound<'_, PyAny>) -> PyResult<()> {
        graph_of(fgraph)?.borrow_mut().core_mut()?.validate().py()
    }

    /// `{destroyer: [nodes that must run before it]}`.
    #[pyo3(signature = (fgraph, ordered = true))]
    fn orderings<'py>(
        &self,
        fgraph: &Bound<'py, PyAny>,
        ordered: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let _ = ordered;
        let fg = graph_of(fgraph)?;
        let ords = with_core(&fg, |core, dh| dh.orderings(core))?.py()?;
        let d = PyDict::new(fgraph.py());
        for (n, before) in ords {
            let key = nodes_list(&fg, &[n])?.get_item(0)?;
            d.set_item(key, nodes_list(&fg, &before)?)?;
        }
        Ok(d)
    }

    /// The nodes that destroy `r` or any alias of it.
    fn destroyers<'py>(
        &self,
        fgraph: &Bound<'py, PyAny>,
        r: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let fg = graph_of(fgraph)?;
        let ids = var_ids(&fg, PyList::new(fgraph.py(), [r])?.as_any())?;
        let nodes = match ids.first() {
            Some(&v) => with_core(&fg, |_, dh| dh.destroyers(v))?,
            None => Vec::new(),
        };
        nodes_list(&fg, &nodes)
    }

    /// Whether any of `protected_list`, or an alias of one, is destroyed.
    fn has_destroyers(
        &self,
        fgraph: &Bound<'_, PyAny>,
        protected_list: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let fg = graph_of(fgraph)?;
        let ids = var_ids(&fg, protected_list)?;
        with_core(&fg, |_, dh| dh.has_destroyers(&ids))
    }

    /// `{view: viewed variable}` (PyTensor's `view_i`).
    fn view_i<'py>(&self, fgraph: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let fg = graph_of(fgraph)?;
        let pairs = with_core(&fg, |_, dh| dh.view_pairs())?;
        let d = PyDict::new(fgraph.py());
        for (view, viewed) in pairs {
            let both = vars_list(&fg, &[view, viewed])?;
            d.set_item(both.get_item(0)?, both.get_item(1)?)?;
        }
        Ok(d)
    }

    /// A new handler for a cloned graph.
    fn clone(&self) -> Self {
        PyDestroyHandler { served: None }
    }

    /// Pickles as a new handler: its state is the graph's.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        PyTuple::new(
            py,
            [slf.get_type().into_any(), PyTuple::empty(py).into_any()],
        )
    }

    /// Serves an unpickled graph (whose instance dict already holds
    /// `destroy_handler`): attaches the core handler again.
    fn unpickle(slf: &Bound<'_, Self>, fgraph: &Bound<'_, PyAny>) -> PyResult<()> {
        graph_of(fgraph)?
            .borrow_mut()
            .core_mut()?
            .attach_feature(Box::new(DestroyHandler::new()))
            .py()?;
        slf.borrow_mut().served = Some(PyWeakrefReference::new(fgraph)?.into_any().unbind());
        Ok(())
    }

    fn __repr__(&self) -> &'static str {
        "DestroyHandler()"
    }
}

/// The protected set: the given variables, the Supervisor's and the outputs.
fn protected(
    fg: &Bound<'_, PyFunctionGraph>,
    given: Option<&Bound<'_, PyAny>>,
) -> PyResult<FxHashSet<VarId>> {
    let mut out = {
        let this = fg.borrow();
        protected_vars(this.parts()?.0)
    };
    if let Some(given) = given.filter(|g| !g.is_none()) {
        out.extend(var_ids(fg, given)?);
    }
    Ok(out)
}

/// The inputs `check` (the core's `inplace_candidates` or
/// `fast_inplace_check`) lets an inplace rewrite try to destroy, none of
/// them protected (see [`protected`]).
fn candidates<'py>(
    fgraph: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    protected_inputs: Option<&Bound<'py, PyAny>>,
    check: fn(&FunctionGraph, &DestroyHandler, &[VarId], &FxHashSet<VarId>) -> Vec<VarId>,
) -> PyResult<Bound<'py, PyList>> {
    let fg = graph_of(fgraph)?;
    let ids = var_ids(&fg, inputs)?;
    let prot = protected(&fg, protected_inputs)?;
    let out = with_core(&fg, |core, dh| check(core, dh, &ids, &prot))?;
    vars_list(&fg, &out)
}

/// `inplace_candidates(fgraph, inputs, protected_inputs=None)`: the inputs
/// an inplace rewrite may try to destroy (validation still decides).
#[pyfunction]
#[pyo3(signature = (fgraph, inputs, protected_inputs = None))]
pub fn inplace_candidates<'py>(
    fgraph: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    protected_inputs: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    candidates(fgraph, inputs, protected_inputs, core_candidates)
}

/// `fast_inplace_check(fgraph, inputs)`: the older, weaker candidate check.
#[pyfunction]
pub fn fast_inplace_check<'py>(
    fgraph: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    candidates(fgraph, inputs, None, core_fast)
}
