//! The Python objects of a `FunctionGraph`'s arena ids, both ways, and
//! moving the core graph in and out (compilation, core passes).

use super::events::EventLog;
use super::PyFunctionGraph;
use crate::convert::import::Memo;
use crate::graph::fgraph::destroyhandler::PyDestroyHandler;
use crate::graph::variable::PyVariable;
use oxtensor_core::graph::{DestroyHandler, Feature, FunctionGraph, NodeId, VarId};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyWeakrefReference;
use std::sync::{Arc, Mutex};

impl PyFunctionGraph {
    /// Imports a Python variable into the arena (not yet into the graph).
    pub(crate) fn arena_var(&mut self, var: &Bound<'_, PyAny>) -> PyResult<VarId> {
        if !var.is_instance_of::<PyVariable>() {
            return Err(PyTypeError::new_err(format!(
                "Expected a Variable, got {}",
                var.repr()?
            )));
        }
        let fg = self
            .fg
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("FunctionGraph.__init__ was not called"))?;
        self.memo.import_var(fg.graph_mut(), var)
    }

    pub(crate) fn node_id(&self, node: &Bound<'_, PyAny>) -> PyResult<NodeId> {
        self.memo
            .node_id(node)
            .filter(|n| self.fg.as_ref().is_some_and(|fg| fg.has_node(*n)))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{} is not in this FunctionGraph",
                    node.str().map(|s| s.to_string()).unwrap_or_default()
                ))
            })
    }

    /// A graph that will hold a core graph the core is about to build
    /// (compilation): the memo knows the Python objects the core graph
    /// comes from; `feature()` is the log to attach to that graph so the
    /// Python objects made while it is rewritten follow its changes.
    pub(crate) fn shell(
        py: Python<'_>,
        memo: Memo,
    ) -> PyResult<(Bound<'_, Self>, Box<dyn Feature>)> {
        let events = Arc::new(Mutex::new(Vec::new()));
        let log: Box<dyn Feature> = Box::new(EventLog(events.clone()));
        let obj = Bound::new(
            py,
            PyFunctionGraph {
                fg: None,
                memo,
                events,
                features: Vec::new(),
                update_mapping: None,
            },
        )?;
        Ok((obj, log))
    }

    /// Puts the core graph into a shell: every variable and node gets its
    /// Python object, marked as belonging to this graph.
    pub(crate) fn adopt(slf: &Bound<'_, Self>, fg: FunctionGraph) -> PyResult<()> {
        let py = slf.py();
        let in_graph: Vec<VarId> = fg.variables().chain(fg.inputs().iter().copied()).collect();
        let destroys = fg.feature::<DestroyHandler>().is_some();
        slf.borrow_mut().fg = Some(fg);
        Self::flush(slf)?;
        slf.borrow_mut().export_graph(py)?;
        if destroys {
            // The maker attached the core handler: `fgraph.destroy_handler`.
            Self::attach_feature(
                slf,
                Bound::new(py, PyDestroyHandler::new(true, None))?.into_any(),
            )?;
        }
        let weak = PyWeakrefReference::new(slf)?.into_any().unbind();
        let this = slf.borrow();
        for v in in_graph {
            if let Ok(o) = this.memo.var(py, v) {
                if let Ok(var) = o.cast::<PyVariable>() {
                    var.borrow_mut().fgraph = Some(weak.clone_ref(py));
                }
            }
        }
        Ok(())
    }

    /// Moves the core graph out (a core pass is about to run on it).
    pub(crate) fn take_core(&mut self) -> PyResult<FunctionGraph> {
        self.fg
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("FunctionGraph.__init__ was not called"))
    }

    /// Moves a core graph back in, and mirrors what changed in it.
    pub(crate) fn put_core(slf: &Bound<'_, Self>, fg: FunctionGraph) -> PyResult<()> {
        slf.borrow_mut().fg = Some(fg);
        Self::flush(slf)
    }

    /// The Python object of a node, made if it has none yet.
    pub(crate) fn node_object<'py>(
        &mut self,
        py: Python<'py>,
        n: NodeId,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !self.memo.has_node(n) {
            let fg = self
                .fg
                .as_ref()
                .ok_or_else(|| PyRuntimeError::new_err("FunctionGraph.__init__ was not called"))?;
            let out = *fg.graph().node(n).outputs.first().ok_or_else(|| {
                PyValueError::new_err(format!("{} has no output", fg.graph().describe_node(n)))
            })?;
            crate::convert::export::export_var(py, fg.graph(), &mut self.memo, out)?;
        }
        self.memo.node(py, n)
    }

    /// The Python object of a variable, made if it has none yet.
    pub(crate) fn var_object<'py>(
        &mut self,
        py: Python<'py>,
        v: VarId,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fg = self
            .fg
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("FunctionGraph.__init__ was not called"))?;
        crate::convert::export::export_var(py, fg.graph(), &mut self.memo, v)
    }

    /// The id of a node of this graph.
    pub(crate) fn node_id_of(&self, node: &Bound<'_, PyAny>) -> PyResult<NodeId> {
        self.node_id(node)
    }

    /// The arena id of a Python variable, imported into the arena (not
    /// the graph) if it is new.
    pub(crate) fn arena_id(&mut self, var: &Bound<'_, PyAny>) -> PyResult<VarId> {
        self.arena_var(var)
    }
}

impl PyFunctionGraph {
    /// The core graph and memo, for printing and utilities.
    pub fn parts(&self) -> PyResult<(&FunctionGraph, &Memo)> {
        Ok((self.core()?, &self.memo))
    }
}
