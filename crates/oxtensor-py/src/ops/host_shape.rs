//! `infer_shape` of ops written in Python, for the core's shape inference
//! (`ShapeFeature`, the `Blockwise` and `Jacobian` shape rules).
//!
//! The Python method is called as PyTensor calls it, `infer_shape(fgraph,
//! node, input_shapes)`, with stand-ins: the node's inputs and the given
//! lengths become Python variables of their types (constants stay
//! constants) that the memo maps back to the core's ids, so a graph built
//! from them comes back as a graph over the core's own variables. Only the
//! node itself is exported, never its ancestry: asking one shape costs the
//! same in a graph of any size. `fgraph` is `None`.
//!
//! As PyTensor's `ShapeFeature`: an op without the method, or one raising
//! `ShapeError` or `NotImplementedError`, leaves its shapes unknown (the
//! core then reads them off the outputs); another exception is logged as a
//! warning (`on_shape_error="warn"`) with the same result; an answer of the
//! wrong form is an error naming the op.

use crate::convert::export::{export_leaf, export_var};
use crate::convert::import::Memo;
use crate::errors::from_pyerr;
use crate::graph::variable::PyVariable;
use crate::ops::host_op::HostOp;
use oxtensor_core::error::{Error, Result};
use oxtensor_core::graph::{Graph, NodeId, VarId};
use oxtensor_core::ops::infer_shape::{dim_constant, shape_vars};
use oxtensor_core::ops::{Dims, InferredShapes, Op};
use oxtensor_core::types::Type;
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// The output shapes of `node` (whose op is `op`) from the Python method.
pub fn infer(op: &HostOp, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
    Python::attach(|py| {
        let obj = op.obj.bind(py);
        if !obj.hasattr("infer_shape").map_err(from_pyerr)? {
            return Ok(None);
        }
        let mut memo = Memo::default();
        let Some((apply, shapes)) =
            stand_ins(py, g, &mut memo, node, input_shapes).map_err(from_pyerr)?
        else {
            return Ok(None);
        };
        match obj.call_method1("infer_shape", (py.None(), apply, shapes)) {
            Ok(answer) => AnswerReader {
                g,
                memo: &mut memo,
                op,
            }
            .read(node, &answer)
            .map(Some),
            Err(e) if leaves_unknown(py, &e) => Ok(None),
            Err(e) => log_failure(py, op, &e).map(|()| None),
        }
    })
}

/// The node as a Python `Apply` over stand-ins of its inputs, and the input
/// shapes as tuples of stand-ins (`None` for an input that is neither a
/// tensor nor a scalar, whose shape the core does not track). `None` for a
/// node without outputs, which has no shape to ask.
fn stand_ins<'py>(
    py: Python<'py>,
    g: &Graph,
    memo: &mut Memo,
    node: NodeId,
    input_shapes: &[Dims],
) -> PyResult<Option<(Bound<'py, PyAny>, Bound<'py, PyList>)>> {
    let n = g.node(node).clone();
    let Some(&first) = n.outputs.first() else {
        return Ok(None);
    };
    for &v in &n.inputs {
        export_leaf(py, g, memo, v)?;
    }
    // Every input has an object now, so only the node itself is exported.
    let apply = export_var(py, g, memo, first)?.getattr("owner")?;
    let mut shapes = Vec::with_capacity(n.inputs.len());
    for (k, &v) in n.inputs.iter().enumerate() {
        let dims = input_shapes.get(k).map(Vec::as_slice).unwrap_or_default();
        shapes.push(match &g.var(v).ty {
            Type::Tensor(_) | Type::Scalar(_) => {
                let objs = dims
                    .iter()
                    .map(|&d| export_leaf(py, g, memo, d))
                    .collect::<PyResult<Vec<_>>>()?;
                PyTuple::new(py, objs)?.into_any()
            }
            _ => py.None().into_bound(py),
        });
    }
    Ok(Some((apply, PyList::new(py, shapes)?)))
}

/// Whether the exception says "cannot tell" (`ShapeError`, by class name
/// as PyTensor's lives in a module we do not have, or
/// `NotImplementedError`).
fn leaves_unknown(py: Python<'_>, e: &PyErr) -> bool {
    if e.is_instance_of::<PyNotImplementedError>(py) {
        return true;
    }
    let Ok(mro) = e.get_type(py).getattr("__mro__") else {
        return false;
    };
    let Ok(classes) = mro.try_iter() else {
        return false;
    };
    classes.flatten().any(|c| {
        c.getattr("__name__")
            .and_then(|n| n.extract::<String>())
            .is_ok_and(|n| n == "ShapeError")
    })
}

/// PyTensor's `on_shape_error="warn"`: the failure goes to the log (not to
/// `warnings`), naming the op, and the shapes stay unknown.
fn log_failure(py: Python<'_>, op: &HostOp, e: &PyErr) -> Result<()> {
    let kind = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    let msg = format!(
        "Failed to infer_shape from Op {}: {kind}: {}",
        op.describe(),
        e.value(py)
    );
    py.import("logging")
        .and_then(|logging| logging.call_method1("getLogger", ("oxtensor.tensor.rewriting.shape",)))
        .and_then(|logger| logger.call_method1("warning", (msg,)))
        .map(drop)
        .map_err(from_pyerr)
}

/// Reads an op's Python `infer_shape` answer into the graph `g` (whose
/// Python objects `memo` knows), checking it against the node's outputs.
struct AnswerReader<'a> {
    g: &'a mut Graph,
    memo: &'a mut Memo,
    op: &'a HostOp,
}

impl AnswerReader<'_> {
    /// The Python answer as one shape per output of `node`.
    fn read(&mut self, node: NodeId, answer: &Bound<'_, PyAny>) -> Result<Vec<Dims>> {
        let outputs = self.g.node(node).outputs.clone();
        let entries = items_of(
            self.op,
            answer,
            outputs.len(),
            |got| format!("must return a list with one shape per output, got {got}"),
            |n| {
                format!(
                    "returned {n} shapes for a node with {} outputs",
                    outputs.len()
                )
            },
        )?;
        outputs
            .iter()
            .zip(&entries)
            .enumerate()
            .map(|(k, (&out, entry))| self.output_shape(k, out, entry))
            .collect()
    }

    /// Output `k`'s shape: its lengths, or `Shape_i` of the output where the
    /// op answered `None`; nothing for an output that is not a tensor.
    fn output_shape(&mut self, k: usize, out: VarId, entry: &Bound<'_, PyAny>) -> Result<Dims> {
        let ty = self.g.var(out).ty.clone();
        let Some(ndim) = ty.as_tensor().map(|t| t.ndim()) else {
            return Ok(Dims::new());
        };
        if entry.is_none() {
            return shape_vars(self.g, out);
        }
        let lengths = items_of(
            self.op,
            entry,
            ndim,
            |got| format!("gave {got} for output {k}; a shape is a tuple of lengths"),
            |n| {
                format!(
                    "returned a shape of {n} lengths for output {k}, which has {ndim} \
                     dimensions ({ty})"
                )
            },
        )?;
        lengths
            .iter()
            .enumerate()
            .map(|(i, d)| self.length(k, i, d))
            .collect()
    }

    /// One length: an int, or a 0-d integer tensor variable.
    fn length(&mut self, k: usize, i: usize, d: &Bound<'_, PyAny>) -> Result<VarId> {
        let bad = || {
            Error::Type(format!(
                "{}.infer_shape gave {} for axis {i} of output {k}; a length is an int or a 0-d \
                 integer tensor variable",
                self.op.describe(),
                repr(d)
            ))
        };
        if !d.is_instance_of::<PyVariable>() {
            return d
                .extract::<i64>()
                .map(|n| dim_constant(self.g, n))
                .map_err(|_| bad());
        }
        let v = self.memo.import_var(self.g, d).map_err(from_pyerr)?;
        match self.g.var(v).ty.as_tensor() {
            Some(t) if t.ndim() == 0 && t.dtype.is_integer() => Ok(v),
            _ => Err(bad()),
        }
    }
}

/// The `n` items of a list or tuple in the op's `infer_shape` answer; else
/// `{op}.infer_shape`'s `TypeError` (`not_sequence` of the value's repr) or
/// `ValueError` (`wrong_length` of its length).
fn items_of<'py>(
    op: &HostOp,
    value: &Bound<'py, PyAny>,
    n: usize,
    not_sequence: impl FnOnce(String) -> String,
    wrong_length: impl FnOnce(usize) -> String,
) -> Result<Vec<Bound<'py, PyAny>>> {
    let what = |message: String| format!("{}.infer_shape {message}", op.describe());
    let items = sequence(value).ok_or_else(|| Error::Type(what(not_sequence(repr(value)))))?;
    if items.len() != n {
        return Err(Error::Value(what(wrong_length(items.len()))));
    }
    Ok(items)
}

/// The items of a list or tuple.
fn sequence<'py>(obj: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if !(obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) {
        return None;
    }
    obj.try_iter().ok()?.collect::<PyResult<_>>().ok()
}

fn repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr().map(|r| r.to_string()).unwrap_or_default()
}
