//! The change log between the core graph and the Python objects: a core
//! feature records each import, prune and input change; after each call
//! the log updates the Python objects and tells the Python features, in
//! order.

use super::PyFunctionGraph;

use crate::graph::variable::PyVariable;
use oxtensor_core::graph::{Client, Feature, FunctionGraph, InputChange, NodeId, VarId};
use oxtensor_core::Result as CoreResult;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyWeakrefReference};
use std::sync::{Arc, Mutex};

/// One change, recorded while the core works.
#[derive(Clone, Debug)]
pub(crate) enum Event {
    Import(NodeId, String),
    Prune(NodeId, String),
    Change(Client, VarId, VarId, String),
}

/// The core feature that records events for the Python side.
pub(crate) struct EventLog(pub(crate) Arc<Mutex<Vec<Event>>>);

impl EventLog {
    fn push(&self, e: Event) {
        if let Ok(mut log) = self.0.lock() {
            log.push(e);
        }
    }
}

impl Feature for EventLog {
    fn name(&self) -> &str {
        "EventLog"
    }
    fn on_import(&mut self, _fg: &FunctionGraph, node: NodeId, reason: &str) -> CoreResult<()> {
        self.push(Event::Import(node, reason.to_owned()));
        Ok(())
    }
    fn on_prune(&mut self, _fg: &FunctionGraph, node: NodeId, reason: &str) -> CoreResult<()> {
        self.push(Event::Prune(node, reason.to_owned()));
        Ok(())
    }
    fn on_change_input(&mut self, _fg: &FunctionGraph, change: &InputChange) -> CoreResult<()> {
        let InputChange {
            client: c,
            old,
            new,
            reason,
        } = *change;
        self.push(Event::Change(c, old, new, reason.to_owned()));
        Ok(())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

pub(crate) fn reason_str(reason: &Option<Bound<'_, PyAny>>) -> PyResult<String> {
    Ok(match reason {
        Some(r) if !r.is_none() => r.str()?.to_string(),
        _ => String::new(),
    })
}

/// Appends `reason` to the list `node.tag.<field>` (made if missing):
/// PyTensor's `imported_by` and `removed_by` record of what brought a node
/// into a graph and what took it out.
pub(crate) fn record_reason(node: &Bound<'_, PyAny>, field: &str, reason: &str) -> PyResult<()> {
    let tag = node.getattr("tag")?;
    if !tag.hasattr(field)? {
        tag.setattr(field, PyList::empty(node.py()))?;
    }
    tag.getattr(field)?.call_method1("append", (reason,))?;
    Ok(())
}

impl PyFunctionGraph {
    /// Gives a Python object to every variable and node in the graph that
    /// has none yet (what the core made: folded constants, rewritten
    /// nodes). Nodes that came and went inside one core call never get one.
    pub(crate) fn export_graph(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(fg) = self.fg.as_ref() else {
            return Ok(());
        };
        for &v in fg.outputs() {
            crate::convert::export::export_var(py, fg.graph(), &mut self.memo, v)?;
        }
        Ok(())
    }

    /// Gives Python objects to the variables an input change of a node
    /// that has one swapped (they may have left the graph since): the
    /// node's `inputs` and the features' callbacks show them. Exporting
    /// a variable can give its node an object, whose own changes then
    /// count too, so this repeats until nothing new is exported. `quiet`
    /// (no feature to tell): only a node's new input, which it shows.
    pub(crate) fn export_changed(
        &mut self,
        py: Python<'_>,
        events: &[Event],
        quiet: bool,
    ) -> PyResult<()> {
        let Some(fg) = self.fg.as_ref() else {
            return Ok(());
        };
        loop {
            let mut exported = false;
            for ev in events {
                let Event::Change(client, old, new, _) = ev else {
                    continue;
                };
                let shown = match client {
                    Client::Node(n, _) => self.memo.has_node(*n),
                    Client::Output(_) => !quiet,
                };
                if !shown {
                    continue;
                }
                let swapped: &[&VarId] = if quiet { &[new] } else { &[old, new] };
                for &&v in swapped {
                    if !self.memo.has_var(v) {
                        crate::convert::export::export_var(py, fg.graph(), &mut self.memo, v)?;
                        exported = true;
                    }
                }
            }
            if !exported {
                return Ok(());
            }
        }
    }

    /// Applies logged events to the Python objects and tells the Python
    /// features, one event at a time: a feature sees the objects as they
    /// were right after that change (PyTensor's `Add(Log.0, Exp.0)` in the
    /// anatomy's trace), not the final state. After a feature fails, the
    /// remaining events are still mirrored so the objects match the core.
    pub(crate) fn flush(slf: &Bound<'_, Self>) -> PyResult<()> {
        let py = slf.py();
        let events: Vec<Event> = std::mem::take(
            &mut *slf
                .borrow()
                .events
                .lock()
                .map_err(|_| PyRuntimeError::new_err("event log poisoned"))?,
        );
        if events.is_empty() {
            return Ok(());
        }
        let features = slf.borrow().python_features(py);
        // With no Python feature to tell, a change needs only the objects
        // that show it (a node's new input); exporting what was replaced
        // (after compiling: the whole graph before rewriting) would build
        // thousands of objects nobody reads.
        let quiet = features.is_empty();
        slf.borrow_mut().export_graph(py)?;
        slf.borrow_mut().export_changed(py, &events, quiet)?;
        let weak = PyWeakrefReference::new(slf)?;
        let mut first_error = None;
        for ev in &events {
            let Some(call) = slf.borrow().mirror(py, ev, &weak, quiet)? else {
                continue;
            };
            if first_error.is_none() {
                first_error = Self::notify(slf, &features, call).err();
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Calls one callback on every feature that defines it.
    pub(crate) fn notify<'py>(
        slf: &Bound<'py, Self>,
        features: &[Py<PyAny>],
        (name, args, reason): (&'static str, Vec<Bound<'py, PyAny>>, String),
    ) -> PyResult<()> {
        let py = slf.py();
        for f in features {
            let f = f.bind(py);
            if f.hasattr(name)? {
                let kwargs = PyDict::new(py);
                kwargs.set_item("reason", &reason)?;
                let mut all = vec![slf.clone().into_any()];
                all.extend(args.iter().cloned());
                f.call_method(name, PyTuple::new(py, all)?, Some(&kwargs))?;
            }
        }
        Ok(())
    }

    /// Updates the Python objects for one event and returns the callback to
    /// make; `None` for an event about a node that never had a Python
    /// object (the core made and dropped it within one call), and for an
    /// output's change when `quiet` (no feature to tell).
    #[allow(clippy::type_complexity)]
    pub(crate) fn mirror<'py>(
        &self,
        py: Python<'py>,
        ev: &Event,
        weak: &Bound<'py, PyWeakrefReference>,
        quiet: bool,
    ) -> PyResult<Option<(&'static str, Vec<Bound<'py, PyAny>>, String)>> {
        let known = |n: &NodeId| self.memo.has_node(*n);
        let skip = match ev {
            Event::Import(n, _) | Event::Prune(n, _) => !known(n),
            Event::Change(Client::Node(n, _), ..) => !known(n),
            Event::Change(Client::Output(_), ..) => quiet,
        };
        if skip {
            return Ok(None);
        }
        Ok(Some(match ev {
            Event::Import(n, reason) => {
                let node = self.memo.node(py, *n)?;
                for out in node.getattr("outputs")?.try_iter()? {
                    out?.cast::<PyVariable>()?.borrow_mut().fgraph =
                        Some(weak.clone().into_any().unbind());
                }
                record_reason(&node, "imported_by", reason)?;
                ("on_import", vec![node], reason.clone())
            }
            Event::Prune(n, reason) => {
                let node = self.memo.node(py, *n)?;
                record_reason(&node, "removed_by", reason)?;
                ("on_prune", vec![node], reason.clone())
            }
            Event::Change(c, old, new, reason) => {
                let new_obj = self.memo.var(py, *new)?;
                new_obj.cast::<PyVariable>()?.borrow_mut().fgraph =
                    Some(weak.clone().into_any().unbind());
                let (node, i) = match c {
                    Client::Node(n, i) => {
                        let node = self.memo.node(py, *n)?;
                        node.getattr("inputs")?.set_item(*i, &new_obj)?;
                        (node, *i)
                    }
                    Client::Output(i) => ("output".into_pyobject(py)?.into_any(), *i),
                };
                if quiet {
                    return Ok(None);
                }
                let old_obj = self.memo.var(py, *old)?;
                (
                    "on_change_input",
                    vec![node, i.into_pyobject(py)?.into_any(), old_obj, new_obj],
                    reason.clone(),
                )
            }
        }))
    }

    /// Runs a core mutation, then flushes its events.
    pub(crate) fn mutate<T>(
        slf: &Bound<'_, Self>,
        f: impl FnOnce(&mut PyFunctionGraph) -> PyResult<T>,
    ) -> PyResult<T> {
        let out = crate::errors::panics::guard(|| f(&mut slf.borrow_mut()));
        Self::flush(slf)?;
        out
    }
}
