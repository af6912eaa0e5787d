//! `HostOp`: the core's view of an op written in Python. Identity (`str`,
//! `==`, `hash`) and the attributes the core reads (`view_map`,
//! `destroy_map`, `default_output`) are taken once, when the op is first
//! imported; calls back into Python go through the GIL.

use crate::errors::from_pyerr;
use crate::ops::op::op_str;
use oxtensor_core::error::Result;
use oxtensor_core::graph::{FunctionGraph, Graph, NodeId};
use oxtensor_core::kernels::alloc::Pool;
use oxtensor_core::ops::{Dims, InferredShapes, IoMap, Op};
use oxtensor_core::types::Type;
use oxtensor_core::value::Value;
use oxtensor_core::vm::Thunk;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::any::Any;

/// A Python op, seen from the core.
#[derive(Debug)]
pub struct HostOp {
    /// The Python op object.
    pub obj: Py<PyAny>,
    text: String,
    class: String,
    /// The class names of the op's type's `__mro__` (without `object`),
    /// for rewriters that track a base class.
    classes: Vec<String>,
    hash: u64,
    view_map: IoMap,
    destroy_map: IoMap,
    default_output: Option<usize>,
    /// `destroyhandler_tolerate_same` / `_aliased`: `(destroyed, other)`
    /// input pairs the destroy handler lets alias.
    tolerate_same: Vec<(usize, usize)>,
    tolerate_aliased: Vec<(usize, usize)>,
}

/// Reads a `view_map`/`destroy_map` dict as `(output, [inputs])` pairs.
fn io_map(op: &Bound<'_, PyAny>, attr: &str) -> PyResult<IoMap> {
    let Ok(map) = op.getattr(attr) else {
        return Ok(Vec::new());
    };
    let dict = map.cast::<PyDict>().map_err(|_| {
        PyValueError::new_err(format!(
            "{attr} of {} must be a dict, got {}",
            op_str(op).unwrap_or_default(),
            map.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })?;
    let mut out: IoMap = Vec::new();
    for (k, v) in dict.iter() {
        let o: usize = k.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{attr} of {} has a key that is not an output index: {}",
                op_str(op).unwrap_or_default(),
                k.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        let ins: Vec<usize> = v.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{attr} of {} maps output {o} to {}, which is not a list of input indices",
                op_str(op).unwrap_or_default(),
                v.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        out.push((o, ins));
    }
    out.sort();
    Ok(out)
}

/// Reads `destroyhandler_tolerate_same`/`_aliased`: a sequence of
/// `(destroyed input, other input)` pairs; absent or `None` is empty.
fn input_pairs(op: &Bound<'_, PyAny>, attr: &str) -> PyResult<Vec<(usize, usize)>> {
    match op.getattr(attr) {
        Ok(v) if !v.is_none() => v.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{attr} of {} must be a list of (destroyed input, other input) pairs, got {}",
                op_str(op).unwrap_or_default(),
                v.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        }),
        _ => Ok(Vec::new()),
    }
}

impl HostOp {
    /// Reads a Python op's identity and declared maps.
    pub fn new(op: &Bound<'_, PyAny>) -> PyResult<HostOp> {
        let default_output = match op.getattr("default_output") {
            Ok(d) if !d.is_none() => Some(d.extract()?),
            _ => None,
        };
        Ok(HostOp {
            obj: op.clone().unbind(),
            text: op_str(op)?,
            class: op.get_type().name()?.to_string(),
            classes: mro_names(op)?,
            hash: op.hash()? as u64,
            view_map: io_map(op, "view_map")?,
            destroy_map: io_map(op, "destroy_map")?,
            default_output,
            tolerate_same: input_pairs(op, "destroyhandler_tolerate_same")?,
            tolerate_aliased: input_pairs(op, "destroyhandler_tolerate_aliased")?,
        })
    }

    /// The Python `make_node` on fresh variables of these types.
    fn fresh_node<'py, 'a>(
        &self,
        py: Python<'py>,
        types: impl IntoIterator<Item = &'a Type>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let args = types
            .into_iter()
            .map(|t| crate::graph::types::py_type(py, t)?.bind(py).call0())
            .collect::<PyResult<Vec<_>>>()?;
        self.obj
            .bind(py)
            .call_method1("make_node", PyTuple::new(py, args)?)
    }

    /// Checks the maps against a node's arity, naming the op on error.
    pub fn check_maps(&self, n_inputs: usize, n_outputs: usize) -> PyResult<()> {
        for (attr, map) in [
            ("view_map", &self.view_map),
            ("destroy_map", &self.destroy_map),
        ] {
            for (o, ins) in map {
                if *o >= n_outputs || ins.iter().any(|&i| i >= n_inputs) {
                    return Err(PyValueError::new_err(format!(
                        "{attr} of {} refers to output {o} and inputs {ins:?}, but its node has {n_outputs} outputs and {n_inputs} inputs",
                        self.text
                    )));
                }
                if attr == "view_map" && ins.len() != 1 {
                    return Err(PyValueError::new_err(format!(
                        "view_map of {} maps output {o} to {} inputs; an output may view exactly one input",
                        self.text,
                        ins.len()
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The thunk of a Python op whose node could not be made: each call
/// fails with the reason.
struct Unlinkable(String);

impl Thunk for Unlinkable {
    fn run(&self, _: &[&Value], _: &mut [Option<Value>], _: &mut Pool) -> Result<()> {
        Err(oxtensor_core::Error::Value(self.0.clone()))
    }

    fn is_host(&self) -> bool {
        true
    }
}

/// The names of the classes in `type(op).__mro__`, `object` left out.
fn mro_names(op: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let mut names = Vec::new();
    for cls in op.get_type().getattr("__mro__")?.try_iter()? {
        let name: String = cls?.getattr("__name__")?.extract()?;
        if name != "object" {
            names.push(name);
        }
    }
    Ok(names)
}

/// Python's `a == b` for objects the core holds (ops, types): what the
/// core's equality of them means; an error compares unequal.
pub(crate) fn python_eq(a: &Py<PyAny>, b: &Py<PyAny>) -> bool {
    Python::attach(|py| a.bind(py).eq(b.bind(py)).unwrap_or(false))
}

impl Op for HostOp {
    fn name(&self) -> &str {
        &self.class
    }

    fn class_path(&self) -> smallvec::SmallVec<[&str; 2]> {
        self.classes.iter().map(String::as_str).collect()
    }

    fn describe(&self) -> String {
        self.text.clone()
    }

    fn op_eq(&self, other: &dyn Op) -> bool {
        let other = other.as_any().downcast_ref::<HostOp>();
        other.is_some_and(|o| python_eq(&self.obj, &o.obj))
    }

    fn op_hash(&self) -> u64 {
        self.hash
    }

    /// Calls the Python `make_node` on fresh variables of these types.
    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        Python::attach(|py| -> PyResult<Vec<Type>> {
            let node = self.fresh_node(py, inputs.iter().copied())?;
            let outs = node.getattr("outputs")?.cast_into::<PyList>()?;
            outs.iter()
                .map(|o| crate::graph::types::core_type(&o.getattr("type")?))
                .collect()
        })
        .map_err(from_pyerr)
    }

    fn default_output(&self) -> Option<usize> {
        self.default_output
    }

    fn view_map(&self) -> IoMap {
        self.view_map.clone()
    }

    fn destroy_map(&self) -> IoMap {
        self.destroy_map.clone()
    }

    fn destroyhandler_tolerate_same(&self) -> Vec<(usize, usize)> {
        self.tolerate_same.clone()
    }

    fn destroyhandler_tolerate_aliased(&self) -> Vec<(usize, usize)> {
        self.tolerate_aliased.clone()
    }

    /// Gradients of Python ops are the Python methods, called by the host.
    fn is_host(&self) -> bool {
        true
    }

    /// The Python `infer_shape`, called on stand-ins ([`crate::ops::host_shape`]).
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        crate::ops::host_shape::infer(self, g, node, input_shapes)
    }

    /// The graph of a `HasInnerGraph` op, for `debugprint`.
    fn inner_fgraph(&self) -> Option<Result<FunctionGraph>> {
        crate::ops::host_inner_graph::inner_fgraph(self)
    }

    /// The thunk for a node the host did not link itself (one in a core
    /// op's inner graph, such as a `Jacobian`'s, or the core node a
    /// `Blockwise` runs per batch entry): the Python `make_node`
    /// on fresh variables of the node's input types gives the node that
    /// `perform` (or `make_thunk`) is called with.
    fn make_thunk(&self, input_types: &[Type], _: &[Type]) -> Option<Box<dyn Thunk>> {
        let made = Python::attach(|py| -> PyResult<Box<dyn Thunk>> {
            crate::ops::host_thunk::host_thunk(&self.fresh_node(py, input_types)?, false)
        });
        Some(made.unwrap_or_else(|e| Box::new(Unlinkable(from_pyerr(e).to_string()))))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
