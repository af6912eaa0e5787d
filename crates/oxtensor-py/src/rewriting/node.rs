//! Node rewriters from Python: `oxtensor.graph.rewriting.basic.NodeRewriter`
//! (a class users subclass, or a view of a built-in core rewriter) and
//! `HostNodeRewriter`, the core's view of one written in Python: the core
//! driver asks it about the nodes it tracks, and it calls the Python
//! `transform(fgraph, node)` and brings the answer back into the arena.

use super::bridge::{with_core, with_python};
use crate::errors::from_pyerr;
use crate::graph::fgraph::PyFunctionGraph;
use crate::ops::host_op::HostOp;
use crate::ops::op::PyOp;
use oxtensor_core::error::Result as CoreResult;
use oxtensor_core::graph::{FunctionGraph, NodeId, VarId};
use oxtensor_core::rewrite::{
    NodeRewriter, OpTracker, Rewrite, SequentialNodeRewriter, Substitution, Track, Tracks,
    BASE_CLASS,
};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};
use std::sync::Arc;

/// A node rewriter written in Python, as the core sees it.
pub struct HostNodeRewriter {
    obj: Py<PyAny>,
    name: String,
    tracks: Tracks,
}

impl HostNodeRewriter {
    /// Reads the rewriter's name and what it tracks, once.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(HostNodeRewriter {
            obj: obj.clone().unbind(),
            name: obj.str()?.to_string(),
            tracks: tracks_of(&obj.call_method0("tracks")?)?,
        })
    }
}

/// PyTensor's `tracks()`: `None` (every node), or Op classes (their
/// subclasses' instances too) and Op instances (nodes of equal ops).
pub fn tracks_of(tracks: &Bound<'_, PyAny>) -> PyResult<Tracks> {
    if tracks.is_none() {
        return Ok(Tracks::All);
    }
    let mut out = Vec::new();
    for item in tracks.try_iter()? {
        let item = item?;
        if let Ok(cls) = item.cast::<PyType>() {
            // The base `Op` class is every op's, the core's ops included.
            if cls.is(item.py().get_type::<PyOp>()) {
                out.push(Track::Class(BASE_CLASS.to_owned()));
            } else {
                out.push(Track::Class(cls.name()?.to_string()));
            }
        } else if item.is_instance_of::<PyOp>() {
            out.push(Track::Op(op_ref(&item)?));
        } else if let Ok(class) = item.getattr("op_type") {
            // An `OpPattern` tracks the class it tests for.
            out.push(Track::Class(class.cast::<PyType>()?.name()?.to_string()));
        } else {
            return Err(PyTypeError::new_err(format!(
                "tracks must hold Op instances or Op subclasses, got {}",
                item.repr()?
            )));
        }
    }
    Ok(Tracks::Some(out))
}

impl NodeRewriter for HostNodeRewriter {
    fn name(&self) -> &str {
        &self.name
    }

    fn tracks(&self) -> Tracks {
        self.tracks.clone()
    }

    fn transform(&self, fg: &mut FunctionGraph, node: NodeId) -> CoreResult<Option<Rewrite>> {
        Python::attach(|py| {
            with_python(py, fg, |shell| {
                let node_obj = shell.borrow_mut().node_object(py, node)?;
                let out = self
                    .obj
                    .bind(py)
                    .call_method1("transform", (shell, &node_obj))?;
                answer(shell, &out, &self.name)
            })
        })
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> CoreResult<()> {
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            if !obj.hasattr("add_requirements").map_err(from_pyerr)? {
                return Ok(());
            }
            with_python(py, fg, |shell| {
                obj.call_method1("add_requirements", (shell,)).map(|_| ())
            })
        })
    }
}

/// The core form of what `transform` returned: `None`/`False` (no
/// change), a list with one replacement (or `None`) per output, or a dict
/// of replacements whose `"remove"` entry lists what must disappear.
fn answer(
    shell: &Bound<'_, PyFunctionGraph>,
    out: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Option<Rewrite>> {
    if out.is_none() || out.is_instance_of::<pyo3::types::PyBool>() && !out.is_truthy()? {
        return Ok(None);
    }
    let mut this = shell.borrow_mut();
    let mut id = |v: &Bound<'_, PyAny>| this.arena_id(v);
    if let Ok(d) = out.cast::<PyDict>() {
        let (mut pairs, mut remove) = (Vec::new(), Vec::new());
        for (k, v) in d.iter() {
            if k.extract::<String>().is_ok_and(|s| s == "remove") {
                remove = v.try_iter()?.map(|r| id(&r?)).collect::<PyResult<_>>()?;
            } else {
                pairs.push((id(&k)?, id(&v)?));
            }
        }
        return Ok(Some(Rewrite::Pairs { pairs, remove }));
    }
    if out.is_instance_of::<PyList>() || out.is_instance_of::<PyTuple>() {
        let news: Vec<Option<VarId>> = out
            .try_iter()?
            .map(|v| {
                let v = v?;
                if v.is_none() {
                    Ok(None)
                } else {
                    id(&v).map(Some)
                }
            })
            .collect::<PyResult<_>>()?;
        return Ok(Some(Rewrite::Outputs(news)));
    }
    Err(PyTypeError::new_err(format!(
        "the node rewriter {name} returned {}; expected None, False, a list of replacements \
         (one per output) or a dict",
        out.repr()?
    )))
}

super::rewriter_base_class!(
    /// `NodeRewriter`: subclass it and define `tracks()` and
    /// `transform(fgraph, node)`; built-in rewriters are instances holding
    /// their core rewriter.
    PyNodeRewriter,
    "NodeRewriter",
    NodeRewriter
);

#[pymethods]
impl PyNodeRewriter {
    /// Makes this object the group of `rewriters`, asked in turn
    /// (`SequentialNodeRewriter`).
    fn _set_sequence(&mut self, rewriters: &Bound<'_, PyAny>, name: String) -> PyResult<()> {
        let members = rewriters
            .try_iter()?
            .map(|r| to_core(&r?))
            .collect::<PyResult<Vec<_>>>()?;
        self.inner = Some(Arc::new(SequentialNodeRewriter::new(name, members)));
        Ok(())
    }

    /// Makes this object `op1(*inputs) -> op2(*inputs)` for nodes of `op1`,
    /// whatever their number of outputs (`SubstitutionNodeRewriter`).
    fn _set_substitution(
        &mut self,
        op1: &Bound<'_, PyAny>,
        op2: &Bound<'_, PyAny>,
        name: String,
    ) -> PyResult<()> {
        let sub = Substitution::new(name, op_ref(op1)?, op_ref(op2)?);
        self.inner = Some(Arc::new(sub));
        Ok(())
    }

    /// Makes this object the pattern rewriter `in_pattern -> out_pattern`
    /// (`PatternNodeRewriter`).
    #[pyo3(signature = (in_pattern, out_pattern, allow_multiple_clients, name, allow_cast))]
    fn _set_pattern(
        &mut self,
        in_pattern: &Bound<'_, PyAny>,
        out_pattern: &Bound<'_, PyAny>,
        allow_multiple_clients: bool,
        name: String,
        allow_cast: bool,
    ) -> PyResult<()> {
        self.inner = Some(super::pattern::pattern_rewriter(
            in_pattern,
            out_pattern,
            allow_multiple_clients,
            name,
            allow_cast,
        )?);
        Ok(())
    }

    /// What the rewriter tracks: `None` for every node.
    fn tracks(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.inner {
            Some(_) => Ok(py.None()),
            None => Err(PyNotImplementedError::new_err("NodeRewriter.tracks")),
        }
    }

    /// The replacements for `node`'s outputs (`None`: no change).
    fn transform<'py>(
        &self,
        fgraph: &Bound<'py, PyFunctionGraph>,
        node: &Bound<'py, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let Some(rw) = &self.inner else {
            return Err(PyNotImplementedError::new_err("NodeRewriter.transform"));
        };
        core_transform(rw.as_ref(), fgraph, node)
    }

    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        match &slf.borrow().inner {
            Some(rw) => Ok(rw.name().to_owned()),
            None => Ok(slf.get_type().name()?.to_string()),
        }
    }
}

/// A built-in rewriter's `transform` called from Python: its proposal as
/// Python variables (it is not applied).
fn core_transform(
    rw: &dyn NodeRewriter,
    fgraph: &Bound<'_, PyFunctionGraph>,
    node: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let py = fgraph.py();
    let n = fgraph.borrow().node_id_of(node)?;
    let proposal = with_core(fgraph, |fg| rw.transform(fg, n));
    let Some(rewrite) = proposal? else {
        return Ok(py.None());
    };
    let mut this = fgraph.borrow_mut();
    let vars = match rewrite {
        Rewrite::Outputs(news) => news,
        Rewrite::Pairs { pairs, .. } => pairs.into_iter().map(|(_, v)| Some(v)).collect(),
    };
    let objs = vars
        .into_iter()
        .map(|v| match v {
            Some(v) => this.var_object(py, v).map(Bound::unbind),
            None => Ok(py.None()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, objs)?.into_any().unbind())
}

/// The core form of a Python node rewriter: its own core rewriter if it
/// is a built-in one, else a host adapter.
pub fn to_core(obj: &Bound<'_, PyAny>) -> PyResult<Arc<dyn NodeRewriter>> {
    if let Ok(rw) = obj.cast::<PyNodeRewriter>() {
        if let Some(inner) = &rw.borrow().inner {
            return Ok(inner.clone());
        }
    }
    Ok(Arc::new(HostNodeRewriter::new(obj)?))
}

/// The core form of a Python op (its own core op, else a host op).
fn op_ref(op: &Bound<'_, PyAny>) -> PyResult<oxtensor_core::ops::OpRef> {
    let Ok(o) = op.cast::<PyOp>() else {
        return Err(PyTypeError::new_err(format!(
            "expected an Op instance, got {}",
            op.repr()?
        )));
    };
    let core = o.borrow().core.clone();
    match core {
        Some(c) => Ok(c),
        None => Ok(Arc::new(HostOp::new(op)?)),
    }
}

/// The positions in `rewriters` of those that track `op`, in the order a
/// driver asks them (PyTensor's `OpToRewriterTracker.get_trackers`).
#[pyfunction]
pub fn rewriters_for_op(
    rewriters: &Bound<'_, PyAny>,
    op: &Bound<'_, PyAny>,
) -> PyResult<Vec<usize>> {
    let members = rewriters
        .try_iter()?
        .map(|r| to_core(&r?))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(OpTracker::new(members).candidates(&op_ref(op)?).to_vec())
}

/// PyTensor's `constant_folding` node rewriter (the core's): a node whose
/// inputs are all constants, and whose op allows it, becomes its value.
#[pyfunction]
pub fn constant_folding_rewriter() -> PyNodeRewriter {
    PyNodeRewriter {
        inner: Some(Arc::new(oxtensor_core::rewrite::ConstantFolding)),
    }
}
