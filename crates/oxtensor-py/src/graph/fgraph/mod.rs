//! `oxtensor.graph.fg.FunctionGraph`: a core `FunctionGraph` over imported
//! Python objects. Core changes are logged by a core feature; after each
//! call the log updates the Python objects (`node.inputs`) and is delivered,
//! in order, to the features written in Python.

pub mod destroyhandler;

use crate::convert::import::Memo;
use crate::errors::exceptions::AlreadyThere;
use crate::errors::IntoPyResult;
use crate::graph::fgraph::destroyhandler::PyDestroyHandler;
use crate::graph::variable::PyVariable;
use oxtensor_core::graph::{
    Client, DestroyHandler, Feature, FunctionGraph, Graph, NodeId, Orderings, VarId,
};
use oxtensor_core::Result as CoreResult;
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySet, PyTuple, PyWeakrefReference};
use pyo3::{PyTraverseError, PyVisit};
use std::sync::{Arc, Mutex};

/// One change, recorded while the core works.
#[derive(Clone, Debug)]
enum Event {
    Import(NodeId, String),
    Prune(NodeId, String),
    Change(Client, VarId, VarId, String),
}

/// The core feature that records events for the Python side.
struct EventLog(Arc<Mutex<Vec<Event>>>);

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
    fn on_change_input(
        &mut self,
        _fg: &FunctionGraph,
        c: Client,
        old: VarId,
        new: VarId,
        reason: &str,
    ) -> CoreResult<()> {
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

/// `FunctionGraph(inputs=None, outputs=None, features=None, clone=True, update_mapping=None)`.
#[pyclass(
    subclass,
    dict,
    weakref,
    module = "oxtensor.graph.fg",
    name = "FunctionGraph"
)]
pub struct PyFunctionGraph {
    fg: Option<FunctionGraph>,
    memo: Memo,
    events: Arc<Mutex<Vec<Event>>>,
    features: Vec<Py<PyAny>>,
    update_mapping: Option<Py<PyAny>>,
}

fn reason_str(reason: &Option<Bound<'_, PyAny>>) -> PyResult<String> {
    Ok(match reason {
        Some(r) if !r.is_none() => r.str()?.to_string(),
        _ => String::new(),
    })
}

impl PyFunctionGraph {
    pub(crate) fn core(&self) -> PyResult<&FunctionGraph> {
        self.fg
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("FunctionGraph.__init__ was not called"))
    }

    pub(crate) fn core_mut(&mut self) -> PyResult<&mut FunctionGraph> {
        self.fg
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("FunctionGraph.__init__ was not called"))
    }

    /// The Python form of a client: `(apply, i)` or `("output", i)`.
    fn client_obj<'py>(&self, py: Python<'py>, c: Client) -> PyResult<Bound<'py, PyTuple>> {
        match c {
            Client::Node(n, i) => PyTuple::new(
                py,
                [self.memo.node(py, n)?, i.into_pyobject(py)?.into_any()],
            ),
            Client::Output(i) => PyTuple::new(
                py,
                [
                    "output".into_pyobject(py)?.into_any(),
                    i.into_pyobject(py)?.into_any(),
                ],
            ),
        }
    }

    fn vars_list<'py>(&self, py: Python<'py>, ids: &[VarId]) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            ids.iter()
                .map(|&v| self.memo.var(py, v))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// Imports a Python variable into the arena (not yet into the graph).
    fn arena_var(&mut self, var: &Bound<'_, PyAny>) -> PyResult<VarId> {
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

    fn node_id(&self, node: &Bound<'_, PyAny>) -> PyResult<NodeId> {
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

    /// Gives a Python object to every variable and node in the graph that
    /// has none yet (what the core made: folded constants, rewritten
    /// nodes). Nodes that came and went inside one core call never get one.
    fn export_graph(&mut self, py: Python<'_>) -> PyResult<()> {
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
    /// count too, so this repeats until nothing new is exported.
    fn export_changed(&mut self, py: Python<'_>, events: &[Event]) -> PyResult<()> {
        let Some(fg) = self.fg.as_ref() else {
            return Ok(());
        };
        loop {
            let mut exported = false;
            for ev in events {
                let Event::Change(client, old, new, _) = ev else {
                    continue;
                };
                if matches!(client, Client::Node(n, _) if !self.memo.has_node(*n)) {
                    continue;
                }
                for &v in [old, new] {
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

    /// Applies logged events to the Python objects and tells the Python
    /// features, one event at a time: a feature sees the objects as they
    /// were right after that change (PyTensor's `Add(Log.0, Exp.0)` in the
    /// anatomy's trace), not the final state. After a feature fails, the
    /// remaining events are still mirrored so the objects match the core.
    fn flush(slf: &Bound<'_, Self>) -> PyResult<()> {
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
        slf.borrow_mut().export_graph(py)?;
        slf.borrow_mut().export_changed(py, &events)?;
        let weak = PyWeakrefReference::new(slf)?;
        let features: Vec<Py<PyAny>> = slf
            .borrow()
            .features
            .iter()
            .map(|f| f.clone_ref(py))
            .collect();
        let mut first_error = None;
        for ev in &events {
            let Some(call) = slf.borrow().mirror(py, ev, &weak)? else {
                continue;
            };
            if first_error.is_none() {
                first_error = Self::notify(slf, &features, call).err();
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Calls one callback on every feature that defines it.
    fn notify<'py>(
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
    /// object (the core made and dropped it within one call).
    #[allow(clippy::type_complexity)]
    fn mirror<'py>(
        &self,
        py: Python<'py>,
        ev: &Event,
        weak: &Bound<'py, PyWeakrefReference>,
    ) -> PyResult<Option<(&'static str, Vec<Bound<'py, PyAny>>, String)>> {
        let known = |n: &NodeId| self.memo.has_node(*n);
        let skip = match ev {
            Event::Import(n, _) | Event::Prune(n, _) => !known(n),
            Event::Change(Client::Node(n, _), ..) => !known(n),
            Event::Change(Client::Output(_), ..) => false,
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
                ("on_import", vec![node], reason.clone())
            }
            Event::Prune(n, reason) => ("on_prune", vec![self.memo.node(py, *n)?], reason.clone()),
            Event::Change(c, old, new, reason) => {
                let (new_obj, old_obj) = (self.memo.var(py, *new)?, self.memo.var(py, *old)?);
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
                (
                    "on_change_input",
                    vec![node, i.into_pyobject(py)?.into_any(), old_obj, new_obj],
                    reason.clone(),
                )
            }
        }))
    }

    /// Runs a core mutation, then flushes its events.
    fn mutate<T>(
        slf: &Bound<'_, Self>,
        f: impl FnOnce(&mut PyFunctionGraph) -> PyResult<T>,
    ) -> PyResult<T> {
        let out = crate::errors::panics::guard(|| f(&mut slf.borrow_mut()));
        Self::flush(slf)?;
        out
    }

    fn python_orderings(slf: &Bound<'_, Self>) -> PyResult<Orderings> {
        let py = slf.py();
        let mut all = Orderings::new();
        let features: Vec<Py<PyAny>> = slf
            .borrow()
            .features
            .iter()
            .map(|f| f.clone_ref(py))
            .collect();
        for f in features {
            let f = f.bind(py);
            // The destroy handler's orderings come from its core feature.
            if !f.hasattr("orderings")? || f.is_instance_of::<PyDestroyHandler>() {
                continue;
            }
            let ords = f.call_method1("orderings", (slf,))?;
            let this = slf.borrow();
            for item in ords.call_method0("items")?.try_iter()? {
                let (node, before): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
                let n = this.node_id(&node)?;
                for b in before.try_iter()? {
                    all.entry(n).or_default().push(this.node_id(&b?)?);
                }
            }
        }
        Ok(all)
    }
}

impl PyFunctionGraph {
    /// Imports `inputs` and `outputs` (not cloned) as this graph, with no
    /// features yet: the part of `__init__` that unpickling repeats.
    pub(crate) fn build(
        slf: &Bound<'_, Self>,
        inputs: &Bound<'_, PyList>,
        outputs: &Bound<'_, PyList>,
        update_mapping: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let py = slf.py();
        let mut memo = Memo::default();
        let mut g = Graph::new();
        let in_ids = memo.import_vars(&mut g, inputs.as_any())?;
        let out_ids = memo.import_vars(&mut g, outputs.as_any())?;
        let mut fg = FunctionGraph::new(g, in_ids, out_ids).py()?;
        let events = Arc::new(Mutex::new(Vec::new()));
        fg.attach_feature(Box::new(EventLog(events.clone()))).py()?;
        let weak = PyWeakrefReference::new(slf)?.into_any().unbind();
        for v in memo.all_vars() {
            v.bind(py).cast::<PyVariable>()?.borrow_mut().fgraph = Some(weak.clone_ref(py));
        }
        {
            let mut this = slf.borrow_mut();
            this.fg = Some(fg);
            this.memo = memo;
            this.events = events;
            this.update_mapping = update_mapping.filter(|u| !u.is_none()).map(Bound::unbind);
        }
        Ok(())
    }

    /// The features written in Python, in attach order.
    pub(crate) fn python_features(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.features.iter().map(|f| f.clone_ref(py)).collect()
    }

    /// Sets the feature list without calling `on_attach` (unpickling: the
    /// features' own state already describes this graph).
    pub(crate) fn set_python_features(&mut self, features: Vec<Py<PyAny>>) {
        self.features = features;
    }

    /// Whether `__init__` (or `__setstate__`) has run.
    pub(crate) fn is_built(&self) -> bool {
        self.fg.is_some()
    }
}

#[pymethods]
impl PyFunctionGraph {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyFunctionGraph {
            fg: None,
            memo: Memo::default(),
            events: Arc::default(),
            features: Vec::new(),
            update_mapping: None,
        }
    }

    #[pyo3(signature = (inputs = None, outputs = None, features = None, clone = true, update_mapping = None, **clone_kwds))]
    fn __init__(
        slf: &Bound<'_, Self>,
        inputs: Option<Bound<'_, PyAny>>,
        outputs: Option<Bound<'_, PyAny>>,
        features: Option<Bound<'_, PyAny>>,
        clone: bool,
        update_mapping: Option<Bound<'_, PyAny>>,
        clone_kwds: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let py = slf.py();
        let outputs = outputs
            .filter(|o| !o.is_none())
            .ok_or_else(|| PyValueError::new_err("No outputs specified"))?;
        let outputs = PyList::new(py, outputs.try_iter()?.collect::<PyResult<Vec<_>>>()?)?;
        let inputs = match inputs.filter(|i| !i.is_none()) {
            Some(i) => PyList::new(py, i.try_iter()?.collect::<PyResult<Vec<_>>>()?)?,
            None => crate::graph::utils::explicit_inputs(&outputs)?,
        };
        let (inputs, outputs) = if clone {
            crate::graph::utils::clone_io(&inputs, &outputs, clone_kwds)?
        } else {
            (inputs, outputs)
        };
        Self::build(slf, &inputs, &outputs, update_mapping)?;
        if let Some(features) = features.filter(|f| !f.is_none()) {
            for f in features.try_iter()? {
                Self::attach_feature(slf, f?)?;
            }
        }
        Ok(())
    }

    /// The declared inputs.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.vars_list(py, self.core()?.inputs())
    }

    /// The outputs.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.vars_list(py, self.core()?.outputs())
    }

    /// The `Apply` nodes in the graph.
    #[getter]
    fn apply_nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PySet>> {
        let nodes: Vec<_> = self
            .core()?
            .apply_nodes()
            .map(|n| self.memo.node(py, n))
            .collect::<PyResult<_>>()?;
        PySet::new(py, nodes)
    }

    /// The variables the outputs depend on (unused inputs excluded).
    #[getter]
    fn variables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PySet>> {
        let vars: Vec<_> = self
            .core()?
            .variables()
            .map(|v| self.memo.var(py, v))
            .collect::<PyResult<_>>()?;
        PySet::new(py, vars)
    }

    /// `{variable: [(apply, i) or ("output", i), ...]}`.
    #[getter(clients)]
    fn clients_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let fg = self.core()?;
        let d = PyDict::new(py);
        for v in fg.client_keys() {
            let list = PyList::new(
                py,
                fg.clients(v)
                    .iter()
                    .map(|&c| self.client_obj(py, c))
                    .collect::<PyResult<Vec<_>>>()?,
            )?;
            d.set_item(self.memo.var(py, v)?, list)?;
        }
        Ok(d)
    }

    /// The clients of one variable.
    fn get_clients<'py>(
        &self,
        py: Python<'py>,
        var: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let fg = self.core()?;
        let Some(v) = self.memo.var_id(&var) else {
            return Ok(PyList::empty(py));
        };
        PyList::new(
            py,
            fg.clients(v)
                .iter()
                .map(|&c| self.client_obj(py, c))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// `{output index: input index}` for updates, if given.
    #[getter]
    fn update_mapping(&self, py: Python<'_>) -> Py<PyAny> {
        self.update_mapping
            .as_ref()
            .map_or_else(|| py.None(), |u| u.clone_ref(py))
    }

    /// The attached Python features.
    #[getter]
    fn _features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.features.iter().map(|f| f.clone_ref(py)))
    }

    /// Runs constant folding on the graph (what compiling does); returns
    /// the number of nodes folded.
    pub fn _constant_fold(slf: &Bound<'_, Self>) -> PyResult<usize> {
        Self::mutate(slf, |this| {
            oxtensor_core::rewrite::constant_fold(this.core_mut()?).py()
        })
    }

    /// The nodes in dependency order (features' orderings included).
    fn toposort<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        let extra = Self::python_orderings(slf)?;
        let this = slf.borrow();
        let order = this.core()?.toposort_with(&extra).py()?;
        PyList::new(
            py,
            order
                .into_iter()
                .map(|n| this.memo.node(py, n))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// `{node: [nodes that must run first]}` from every feature.
    fn orderings<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let mut all = Self::python_orderings(slf)?;
        let this = slf.borrow();
        for (n, before) in this.core()?.orderings().py()? {
            all.entry(n).or_default().extend(before);
        }
        let d = PyDict::new(py);
        for (n, before) in all {
            d.set_item(
                this.memo.node(py, n)?,
                PyList::new(
                    py,
                    before
                        .into_iter()
                        .map(|b| this.memo.node(py, b))
                        .collect::<PyResult<Vec<_>>>()?,
                )?,
            )?;
        }
        Ok(d)
    }

    /// Replaces every use of `var` by `new_var` (which must have a compatible type).
    #[pyo3(signature = (var, new_var, reason = None, verbose = None, import_missing = false))]
    fn replace(
        slf: &Bound<'_, Self>,
        var: Bound<'_, PyAny>,
        new_var: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        verbose: Option<bool>,
        import_missing: bool,
    ) -> PyResult<()> {
        let new_var = var
            .getattr("type")?
            .call_method1("filter_variable", (&new_var, true))?;
        let reason = reason_str(&reason)?;
        if verbose.unwrap_or(false) {
            // Through `sys.stdout`, as `print` would, so redirection works.
            let line = format!(
                "rewriting: rewrite {reason} replaces {} of {} with {} of {}\n",
                var.str()?,
                var.getattr("owner")?.str()?,
                new_var.str()?,
                new_var.getattr("owner")?.str()?
            );
            let stdout = slf.py().import("sys")?.getattr("stdout")?;
            stdout.call_method1("write", (line,))?;
        }
        Self::mutate(slf, |this| {
            let Some(old) = this
                .memo
                .var_id(&var)
                .filter(|v| this.fg.as_ref().is_some_and(|fg| fg.has_var(*v)))
            else {
                return Ok(());
            };
            let new = this.arena_var(&new_var)?;
            this.core_mut()?
                .replace(old, new, &reason, import_missing)
                .py()
        })
    }

    /// `replace` for each `(var, new_var)` pair.
    #[pyo3(signature = (pairs, reason = None, **_kwargs))]
    fn replace_all(
        slf: &Bound<'_, Self>,
        pairs: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        for pair in pairs.try_iter()? {
            let (v, n): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair?.extract()?;
            Self::replace(slf, v, n, reason.clone(), None, false)?;
        }
        Ok(())
    }

    /// `replace_all`, then `validate`; everything is reverted if either fails.
    #[pyo3(signature = (replacements, reason = None, verbose = None, **_kwargs))]
    fn replace_all_validate(
        slf: &Bound<'_, Self>,
        replacements: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        verbose: Option<bool>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<usize> {
        let _ = verbose;
        let chk = Self::checkpoint(&slf.borrow())?;
        let result =
            Self::replace_all(slf, replacements, reason, None).and_then(|()| Self::validate(slf));
        if let Err(err) = result {
            Self::revert(slf, chk)?;
            return Err(err);
        }
        Ok(chk)
    }

    /// `replace_all_validate` for one pair.
    #[pyo3(signature = (r, new_r, reason = None))]
    fn replace_validate(
        slf: &Bound<'_, Self>,
        r: Bound<'_, PyAny>,
        new_r: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let pairs = PyList::new(slf.py(), [PyTuple::new(slf.py(), [r, new_r])?])?;
        Self::replace_all_validate(slf, pairs.into_any(), reason, None, None)
    }

    /// Makes input `i` of `node` (or output `i` when `node` is `"output"`) read `new_var`.
    #[pyo3(signature = (node, i, new_var, reason = None, import_missing = false, check = true))]
    fn change_node_input(
        slf: &Bound<'_, Self>,
        node: Bound<'_, PyAny>,
        i: usize,
        new_var: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        import_missing: bool,
        check: bool,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let client = if node.extract::<String>().is_ok_and(|s| s == "output") {
                Client::Output(i)
            } else {
                Client::Node(this.node_id(&node)?, i)
            };
            let new = this.arena_var(&new_var)?;
            this.core_mut()?
                .change_node_input(client, new, &reason, import_missing, check)
                .py()
        })
    }

    /// Brings a variable (and what computes it) into the graph.
    #[pyo3(signature = (var, reason = None, import_missing = false))]
    fn import_var(
        slf: &Bound<'_, Self>,
        var: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        import_missing: bool,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let id = this.arena_var(&var)?;
            this.core_mut()?
                .import_var(id, &reason, import_missing)
                .py()
        })
    }

    /// Brings a node (and what it needs) into the graph.
    #[pyo3(signature = (apply_node, check = true, reason = None, import_missing = false))]
    fn import_node(
        slf: &Bound<'_, Self>,
        apply_node: Bound<'_, PyAny>,
        check: bool,
        reason: Option<Bound<'_, PyAny>>,
        import_missing: bool,
    ) -> PyResult<()> {
        let _ = check;
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let first = apply_node.getattr("outputs")?.get_item(0)?;
            this.arena_var(&first)?;
            let n = this
                .memo
                .node_id(&apply_node)
                .ok_or_else(|| PyValueError::new_err("node was not imported"))?;
            this.core_mut()?
                .import_node(n, &reason, import_missing)
                .py()
        })
    }

    /// Declares another input.
    #[pyo3(signature = (var, check = true))]
    fn add_input(slf: &Bound<'_, Self>, var: Bound<'_, PyAny>, check: bool) -> PyResult<()> {
        let _ = check;
        Self::mutate(slf, |this| {
            let id = this.arena_var(&var)?;
            this.core_mut()?.add_input(id).py()
        })?;
        let weak = PyWeakrefReference::new(slf)?.into_any().unbind();
        var.cast::<PyVariable>()?.borrow_mut().fgraph = Some(weak);
        Ok(())
    }

    /// Appends an output.
    #[pyo3(signature = (var, reason = None, import_missing = false))]
    fn add_output(
        slf: &Bound<'_, Self>,
        var: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        import_missing: bool,
    ) -> PyResult<()> {
        let _ = import_missing;
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let id = this.arena_var(&var)?;
            this.core_mut()?.add_output(id, &reason).py()
        })
    }

    /// Removes output `idx`.
    #[pyo3(signature = (idx, reason = None))]
    fn remove_output(
        slf: &Bound<'_, Self>,
        idx: usize,
        reason: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            this.core_mut()?.remove_output(idx, &reason).py()
        })
    }

    /// Attaches a feature; one whose `on_attach` raises `AlreadyThere` is skipped.
    fn attach_feature(slf: &Bound<'_, Self>, feature: Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        for f in &slf.borrow().features {
            if f.bind(py).eq(&feature)? {
                return Ok(());
            }
        }
        if feature.hasattr("on_attach")? {
            if let Err(e) = feature.call_method1("on_attach", (slf,)) {
                if e.is_instance_of::<AlreadyThere>(py) {
                    return Ok(());
                }
                return Err(e);
            }
        }
        slf.borrow_mut().features.push(feature.unbind());
        Ok(())
    }

    /// Detaches a feature, calling its `on_detach`.
    fn remove_feature(slf: &Bound<'_, Self>, feature: Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let pos = slf
            .borrow()
            .features
            .iter()
            .position(|f| f.bind(py).is(&feature));
        let Some(pos) = pos else { return Ok(()) };
        slf.borrow_mut().features.remove(pos);
        if feature.hasattr("on_detach")? {
            feature.call_method1("on_detach", (slf,))?;
        }
        Ok(())
    }

    /// A token for `revert`.
    fn checkpoint(&self) -> PyResult<usize> {
        Ok(self.core()?.checkpoint())
    }

    /// Undoes the input changes made since `checkpoint`.
    fn revert(slf: &Bound<'_, Self>, checkpoint: usize) -> PyResult<()> {
        Self::mutate(slf, |this| this.core_mut()?.revert(checkpoint).py())
    }

    /// Asks every feature (core and Python) to accept the current graph.
    fn validate(slf: &Bound<'_, Self>) -> PyResult<()> {
        Self::mutate(slf, |this| this.core_mut()?.validate().py())?;
        let py = slf.py();
        let features: Vec<Py<PyAny>> = slf
            .borrow()
            .features
            .iter()
            .map(|f| f.clone_ref(py))
            .collect();
        for f in features {
            if f.bind(py).hasattr("on_validate")? {
                f.bind(py).call_method1("on_validate", (slf,))?;
            }
        }
        Ok(())
    }

    /// Whether `validate` passes.
    fn consistent(slf: &Bound<'_, Self>) -> PyResult<bool> {
        match Self::validate(slf) {
            Ok(()) => Ok(true),
            Err(e)
                if e.is_instance_of::<crate::errors::exceptions::InconsistencyError>(slf.py()) =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Checks that clients, nodes and variables agree; raises `Exception` if not.
    fn check_integrity(slf: &Bound<'_, Self>) -> PyResult<()> {
        let py = slf.py();
        slf.borrow().core()?.check_integrity().py()?;
        let this = slf.borrow();
        let fg = this.core()?;
        for n in fg.apply_nodes() {
            let node = this.memo.node(py, n)?;
            for (i, inp) in node.getattr("inputs")?.try_iter()?.enumerate() {
                if this.memo.var_id(&inp?) != Some(fg.graph().node(n).inputs[i]) {
                    return Err(pyo3::exceptions::PyException::new_err(format!(
                        "Inconsistent clients list: input {i} of {} differs from the graph's",
                        node.str()?
                    )));
                }
            }
        }
        Ok(())
    }

    /// A copy of this graph with cloned variables and nodes, and `equiv`
    /// mapping each old variable and node to its copy.
    #[pyo3(signature = (check_integrity = true, attach_feature = true))]
    fn clone_get_equiv<'py>(
        slf: &Bound<'py, Self>,
        check_integrity: bool,
        attach_feature: bool,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let py = slf.py();
        let (inputs, outputs) = (
            slf.getattr("inputs")?.cast_into::<PyList>()?,
            slf.getattr("outputs")?.cast_into::<PyList>()?,
        );
        let equiv = crate::graph::utils::clone_get_equiv(&inputs, &outputs, true, true, None)?;
        let new_in = PyList::new(
            py,
            inputs
                .iter()
                .map(|v| crate::graph::utils::lookup(&equiv, &v))
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        let new_out = PyList::new(
            py,
            outputs
                .iter()
                .map(|v| crate::graph::utils::lookup(&equiv, &v))
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("clone", false)?;
        let new_fg = slf.get_type().call((new_in, new_out), Some(&kwargs))?;
        if check_integrity {
            new_fg.call_method0("check_integrity")?;
        }
        if attach_feature {
            for f in slf
                .borrow()
                .features
                .iter()
                .map(|f| f.clone_ref(py))
                .collect::<Vec<_>>()
            {
                let f = f.bind(py);
                let copy = if f.hasattr("clone")? {
                    f.call_method0("clone")?
                } else {
                    f.clone()
                };
                new_fg.call_method1("attach_feature", (copy,))?;
            }
        }
        Ok((new_fg, equiv))
    }

    /// A copy of this graph (see `clone_get_equiv`).
    #[pyo3(signature = (check_integrity = true))]
    fn clone<'py>(slf: &Bound<'py, Self>, check_integrity: bool) -> PyResult<Bound<'py, PyAny>> {
        Ok(Self::clone_get_equiv(slf, check_integrity, true)?.0)
    }

    /// `debugprint(self, **kwargs)`.
    #[pyo3(signature = (**kwargs))]
    fn dprint<'py>(
        slf: &Bound<'py, Self>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::graph::print::dprint_method(slf.as_any(), kwargs)
    }

    fn __contains__(&self, obj: Bound<'_, PyAny>) -> PyResult<bool> {
        let fg = self.core()?;
        if let Some(v) = self.memo.var_id(&obj) {
            return Ok(fg.has_var(v));
        }
        Ok(self.memo.node_id(&obj).is_some_and(|n| fg.has_node(n)))
    }

    fn __str__(&self) -> PyResult<String> {
        Ok(format!(
            "FunctionGraph({})",
            oxtensor_core::print::as_string(self.core()?)
        ))
    }

    fn __repr__(&self) -> PyResult<String> {
        self.__str__()
    }

    /// Calls provided by features (`provides`) are forwarded to them.
    fn __getattr__<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        for f in slf.borrow().features.iter() {
            let f = f.bind(py);
            let provides = f.getattr("provides").ok();
            let listed = match provides {
                Some(p) => p.contains(name).unwrap_or(false),
                None => false,
            };
            if listed {
                let functools = py.import("functools")?;
                return functools.call_method1("partial", (f.getattr(name)?, slf));
            }
        }
        Err(PyAttributeError::new_err(format!(
            "'FunctionGraph' object has no attribute '{name}'"
        )))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // The GC may visit the object before its fields are written; `fg` is
        // `None` in zeroed memory and is set last in `__init__`.
        if self.fg.is_none() {
            return Ok(());
        }
        for f in &self.features {
            visit.call(f)?;
        }
        self.memo.traverse(&visit)?;
        visit.call(&self.update_mapping)
    }

    /// Breaks cycles: the graph is unusable afterwards (it is being freed).
    fn __clear__(&mut self) {
        self.features.clear();
        self.update_mapping = None;
        self.memo = Memo::default();
        self.fg = None;
    }
}

impl PyFunctionGraph {
    /// The core graph and memo, for printing and utilities.
    pub fn parts(&self) -> PyResult<(&FunctionGraph, &Memo)> {
        Ok((self.core()?, &self.memo))
    }
}

impl PyFunctionGraph {
    /// Links the graph for the VM: Python ops get host thunks, built-in ops
    /// run natively.
    pub fn link(
        &self,
        py: Python<'_>,
        opts: &oxtensor_core::vm::LinkOptions,
    ) -> PyResult<oxtensor_core::vm::Program> {
        let fg = self.core()?;
        let debug = opts.checker.as_ref().is_some_and(|c| c.debug_host());
        let mut thunks: std::collections::HashMap<NodeId, Box<dyn oxtensor_core::vm::Thunk>> =
            std::collections::HashMap::new();
        for n in fg.apply_nodes() {
            if fg
                .graph()
                .node(n)
                .op
                .as_any()
                .is::<crate::ops::host_op::HostOp>()
            {
                thunks.insert(
                    n,
                    crate::ops::host_thunk::host_thunk(&self.memo.node(py, n)?, debug)?,
                );
            }
        }
        crate::errors::panics::guard(|| oxtensor_core::vm::Program::link(fg, thunks, opts).py())
    }
}
