//! `op.infer_shape(fgraph, node, input_shapes)` of built-in ops: the node
//! and the given shape variables are imported into a scratch arena, the
//! core op's rule builds the output shapes, and they come back as Python
//! variables (int64 scalars).

use crate::convert::export::export_var;
use crate::convert::import::Memo;
use crate::errors::to_pyerr;
use oxtensor_core::graph::{Graph, VarId};
use oxtensor_core::ops::infer_shape::{dim_constant, output_shapes};
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCFunction, PyDict, PyList, PyTuple};

/// The bound `infer_shape` of a built-in op, taking PyTensor 3.x's
/// `(node, input_shapes)` or the seeds' `(fgraph, node, input_shapes)`.
pub fn bound_method<'py>(op: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let name = op.str()?.to_string();
    let f =
        move |args: &Bound<'_, PyTuple>, _kw: Option<&Bound<'_, PyDict>>| -> PyResult<Py<PyAny>> {
            let (node, shapes) = match args.len() {
                2 => (args.get_item(0)?, args.get_item(1)?),
                3 => (args.get_item(1)?, args.get_item(2)?),
                n => {
                    return Err(PyTypeError::new_err(format!(
                "{name}.infer_shape takes (node, input_shapes) or (fgraph, node, input_shapes), \
                     got {n} arguments"
            )))
                }
            };
            Ok(infer(&node, &shapes)?.into_any().unbind())
        };
    Ok(PyCFunction::new_closure(op.py(), Some(c"infer_shape"), None, f)?.into_any())
}

/// Raised by the `infer_shape` attribute of ops written in Python that
/// define none (so `hasattr(op, "infer_shape")` is false, as in PyTensor).
pub fn missing(op: &Bound<'_, PyAny>) -> PyErr {
    let name = crate::errors::type_name(op);
    PyAttributeError::new_err(format!("'{name}' object has no attribute 'infer_shape'"))
}

fn infer<'py>(
    node: &Bound<'py, PyAny>,
    shapes: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let py = node.py();
    let mut g = Graph::new();
    let mut memo = Memo::default();
    for out in node.getattr("outputs")?.try_iter()? {
        memo.import_var(&mut g, &out?)?;
    }
    let id = memo
        .node_id(node)
        .ok_or_else(|| PyValueError::new_err("infer_shape needs an Apply node"))?;
    let n_inputs = g.node(id).inputs.len();
    let input_shapes = import_shapes(&mut g, &mut memo, shapes)?;
    if input_shapes.len() != n_inputs {
        return Err(PyValueError::new_err(format!(
            "infer_shape of {} got {} input shapes for {n_inputs} inputs",
            g.node(id).op,
            input_shapes.len()
        )));
    }
    let result = output_shapes(&mut g, id, &input_shapes).map_err(to_pyerr)?;
    let tuples = result
        .iter()
        .map(|shape| {
            let dims = shape
                .iter()
                .map(|&v| export_var(py, &g, &mut memo, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, dims)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, tuples)
}

/// Each input's shape: a sequence of int64 scalar variables or ints.
fn import_shapes(
    g: &mut Graph,
    memo: &mut Memo,
    shapes: &Bound<'_, PyAny>,
) -> PyResult<Vec<Vec<VarId>>> {
    let mut out = Vec::new();
    for shape in shapes.try_iter()? {
        let mut dims = Vec::new();
        for dim in shape?.try_iter()? {
            let dim = dim?;
            dims.push(match dim.extract::<i64>() {
                Ok(n) => dim_constant(g, n),
                Err(_) => memo.import_var(g, &dim)?,
            });
        }
        out.push(dims);
    }
    Ok(out)
}
