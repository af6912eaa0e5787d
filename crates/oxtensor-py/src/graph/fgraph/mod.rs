//! `oxtensor.graph.fg.FunctionGraph`: a core `FunctionGraph` over imported
//! Python objects. Core changes are logged by a core feature; after each
//! call the log updates the Python objects (`node.inputs`) and is delivered,
//! in order, to the features written in Python.

mod clone;
pub mod destroy_no_output;
pub mod destroyhandler;
mod edits;
pub(crate) mod events;
mod features;
mod freeze;
mod objects;
mod queries;

use self::events::{Event, EventLog};
use crate::convert::import::Memo;
use crate::errors::IntoPyResult;
use crate::graph::variable::PyVariable;
use oxtensor_core::graph::{FunctionGraph, Graph};
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyWeakrefReference};
use pyo3::{PyTraverseError, PyVisit};
use std::sync::{Arc, Mutex};

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
        // The log was attached after the first import: record it here.
        for n in fg.apply_nodes() {
            events::record_reason(memo.node(py, n)?.as_any(), "imported_by", "init")?;
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

    /// Whether `__init__` (or `__setstate__`) has run.
    pub(crate) fn is_built(&self) -> bool {
        self.fg.is_some()
    }
}

/// `inputs` or `outputs` as a list; a single variable is refused with
/// Python's own message for it (`'Variable' object is not iterable`, not
/// the extension class's dotted name).
fn var_list<'py>(seq: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let items = seq.try_iter().map_err(|err| {
        if !err.is_instance_of::<PyTypeError>(seq.py()) {
            return err;
        }
        match seq.get_type().name() {
            Ok(name) => PyTypeError::new_err(format!("'{name}' object is not iterable")),
            Err(e) => e,
        }
    })?;
    PyList::new(seq.py(), items.collect::<PyResult<Vec<_>>>()?)
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
        let outputs = var_list(&outputs)?;
        let inputs = match inputs.filter(|i| !i.is_none()) {
            Some(i) => var_list(&i)?,
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
        // As in PyTensor, every graph has one: it provides the validated
        // replacements (`replace_all_validate_remove`, ...) to rewriters.
        let rv = py
            .import("oxtensor.graph.features")?
            .getattr("ReplaceValidate")?
            .call0()?;
        Self::attach_feature(slf, rv)
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
