//! Edits of graph objects through their attribute setters, checked the way
//! the objects were when built: a built-in op's inputs must still give
//! its outputs' types (`node.inputs = [x]` with `x` of another rank, or
//! `node.inputs = []`, would otherwise reach kernels that trust the types),
//! outputs must belong to their node, and an output's index must be a
//! position of its owner's outputs. Edits made inside the lists
//! (`node.inputs[0] = x`) bypass the setters; compiling re-checks every
//! node (`oxtensor_core::graph::check_graph_types`).

use crate::errors::to_pyerr;
use crate::graph::types::core_type;
use crate::graph::variable::PyVariable;
use crate::ops::op::PyOp;
use oxtensor_core::graph::check_op_types;
use oxtensor_core::types::Type;
use oxtensor_core::Error;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// The core types of a list of variables.
fn types_of(vars: &Bound<'_, PyList>) -> PyResult<Vec<Type>> {
    vars.iter()
        .map(|v| {
            let v = v.cast_into::<PyVariable>()?;
            let ty = v.borrow().ty(v.py());
            core_type(&ty)
        })
        .collect()
}

/// Refuses `inputs` and `outputs` for a node of `op` when `op` is built
/// in and its type inference does not give `outputs`' types from
/// `inputs`' (a `TypeError` naming the op and the types). Ops written in
/// Python check their own nodes, as in PyTensor.
pub fn check_types(
    what: &str,
    op: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyList>,
    outputs: &Bound<'_, PyList>,
) -> PyResult<()> {
    let Ok(op) = op.cast::<PyOp>() else {
        return Ok(());
    };
    let Some(core) = op.borrow().core.clone() else {
        return Ok(());
    };
    let (ins, outs) = (types_of(inputs)?, types_of(outputs)?);
    let (ins, outs): (Vec<&Type>, Vec<&Type>) = (ins.iter().collect(), outs.iter().collect());
    crate::errors::panics::guard(|| {
        check_op_types(core.as_ref(), &ins, &outs).map_err(|e| {
            to_pyerr(Error::Type(format!(
                "cannot set the {what} of a {} node: {e}",
                core.describe()
            )))
        })
    })
}

/// Refuses an output index that is not a position of `owner.outputs`.
pub fn check_index(owner: Option<&Py<PyAny>>, index: Option<usize>) -> PyResult<()> {
    let (Some(owner), Some(index)) = (owner, index) else {
        return Ok(());
    };
    Python::attach(|py| {
        let n = owner.bind(py).getattr("outputs")?.len()?;
        if index >= n {
            return Err(PyValueError::new_err(format!(
                "Variable.index = {index} is out of range: its owner has {n} outputs"
            )));
        }
        Ok(())
    })
}
