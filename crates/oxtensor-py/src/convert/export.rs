//! Exporting arena variables the core created (gradient graphs) as Python
//! graph objects: the reverse of `convert/import.rs`. Variables and nodes that came
//! from Python map back to their own objects through the memo.

use crate::convert::import::Memo;
use crate::graph::apply::PyApply;
use crate::graph::construct;
use crate::graph::types::py_type;
use crate::ops::classes::op_object;
use oxtensor_core::graph::{Graph, NodeId, VarId, VarKind};
use oxtensor_core::types::Type;
use oxtensor_core::value::Value;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use std::collections::BTreeSet;

/// The Python object of `v`, creating it (and the nodes it comes from).
pub fn export_var<'py>(
    py: Python<'py>,
    g: &Graph,
    memo: &mut Memo,
    v: VarId,
) -> PyResult<Bound<'py, PyAny>> {
    if memo.has_var(v) || !matches!(g.var(v).kind, VarKind::Output { .. }) {
        return export_leaf(py, g, memo, v);
    }
    for node in missing_nodes(g, memo, v) {
        export_node(py, g, memo, node)?;
    }
    memo.var(py, v)
}

/// `export_var` for several variables.
pub fn export_vars<'py>(
    py: Python<'py>,
    g: &Graph,
    memo: &mut Memo,
    vs: &[VarId],
) -> PyResult<Bound<'py, PyList>> {
    let objs = vs
        .iter()
        .map(|&v| export_var(py, g, memo, v))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, objs)
}

/// Nodes without Python objects that `v` depends on, in creation order
/// (the core creates a node only after its inputs, so that order is a
/// topological one).
fn missing_nodes(g: &Graph, memo: &Memo, v: VarId) -> BTreeSet<NodeId> {
    let mut found = BTreeSet::new();
    let mut stack = vec![v];
    while let Some(cur) = stack.pop() {
        if memo.has_var(cur) {
            continue;
        }
        let Some(node) = g.var(cur).owner() else {
            continue;
        };
        if found.insert(node) {
            stack.extend(g.node(node).inputs.iter().copied());
        }
    }
    found
}

fn name_obj<'py>(py: Python<'py>, g: &Graph, v: VarId) -> Option<Bound<'py, PyAny>> {
    g.var(v)
        .name
        .as_deref()
        .map(|n| PyString::new(py, n).into_any())
}

/// The Python object of `v` as a leaf, made unless it has one: a constant
/// as itself, anything else (even a node's output) as a fresh variable of
/// its type and name.
pub fn export_leaf<'py>(
    py: Python<'py>,
    g: &Graph,
    memo: &mut Memo,
    v: VarId,
) -> PyResult<Bound<'py, PyAny>> {
    if memo.has_var(v) {
        return memo.var(py, v);
    }
    let data = g.var(v);
    let ty = py_type(py, &data.ty)?;
    let obj = match &data.kind {
        VarKind::Constant(c) => match &c.value {
            Value::Tensor(t) if matches!(data.ty, Type::Scalar(_)) => {
                construct::scalar_constant_of(py, ty, t, name_obj(py, g, v))?
            }
            Value::Tensor(t) => {
                construct::tensor_constant_of(py, ty, t.clone(), name_obj(py, g, v))?
            }
            // A folded Python op's result: a constant of its Python type.
            Value::Host(_) => {
                let value = crate::ops::host_thunk::value_to_py(py, &c.value, false)?;
                ty.bind(py)
                    .call_method1("make_constant", (value, name_obj(py, g, v)))?
            }
        },
        _ => new_variable(py, ty, &data.ty, name_obj(py, g, v))?,
    };
    memo.adopt_var(&obj, v);
    Ok(obj)
}

/// A fresh variable of a type, as `type()` makes it.
fn new_variable<'py>(
    py: Python<'py>,
    ty_obj: Py<PyAny>,
    ty: &Type,
    name: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Type::Tensor(_) = ty {
        return construct::tensor_variable(py, ty_obj, name.map(Bound::unbind));
    }
    let obj = ty_obj.bind(py).call0()?;
    if let Some(n) = name {
        obj.setattr("name", n)?;
    }
    Ok(obj)
}

fn export_node(py: Python<'_>, g: &Graph, memo: &mut Memo, node: NodeId) -> PyResult<()> {
    let n = g.node(node);
    let op = op_object(py, &n.op)?;
    let inputs = export_vars(py, g, memo, &n.inputs)?;
    let outputs = n
        .outputs
        .iter()
        .map(|&o| {
            new_variable(
                py,
                py_type(py, &g.var(o).ty)?,
                &g.var(o).ty,
                name_obj(py, g, o),
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    let outputs = PyList::new(py, outputs)?;
    let apply = PyApply::create(py, op, inputs, outputs.clone())?;
    memo.adopt_node(apply.as_any(), node);
    for (obj, &o) in outputs.iter().zip(&n.outputs) {
        memo.adopt_var(&obj, o);
    }
    Ok(())
}
