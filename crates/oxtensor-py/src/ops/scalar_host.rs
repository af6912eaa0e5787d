//! Scalar ops written in Python (`class MyOp(ScalarOp)` with `impl` and
//! `output_types_preference`, PyTensor's way of adding one): the core has
//! no kind for them, so they are Python ops (`PyOp` without a core op)
//! whose `make_node`, `perform`, `str`, equality and pickling follow
//! PyTensor's `ScalarOp` defaults, written in `oxtensor/scalar/python_ops.py`.
//! `Elemwise` of one maps `impl` over the elements
//! (`oxtensor/tensor/python_elemwise.py`).

use pyo3::exceptions::{PyAttributeError, PyNotImplementedError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

fn helpers(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("oxtensor.scalar.python_ops")
}

/// The `name` the op was given, else its class name.
pub fn name(op: &Bound<'_, PyAny>) -> PyResult<String> {
    let own = op
        .getattr("__dict__")?
        .cast_into::<PyDict>()?
        .get_item("name")?
        .filter(|n| n.is_instance_of::<PyString>() && n.is_truthy().unwrap_or(false));
    match own {
        Some(n) => n.extract(),
        None => Ok(op.get_type().name()?.to_string()),
    }
}

/// Sets the name of an op written in Python; a built-in's is fixed.
pub fn set_name(op: &Bound<'_, PyAny>, host: bool, name: Bound<'_, PyAny>) -> PyResult<()> {
    if !host {
        return Err(PyAttributeError::new_err(format!(
            "the name of the built-in scalar op {} cannot be changed",
            op.str()?
        )));
    }
    op.getattr("__dict__")?.set_item("name", name)
}

/// PyTensor's `ScalarOp.make_node`: scalar inputs, outputs of
/// `output_types`.
pub fn make_node<'py>(
    op: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut args = vec![op.clone()];
    args.extend(inputs.iter());
    helpers(op.py())?.call_method1("make_node", PyTuple::new(op.py(), args)?)
}

/// `impl` on the node's inputs; a built-in scalar op runs in the core.
pub fn perform(
    op: &Bound<'_, PyAny>,
    host: bool,
    node: Bound<'_, PyAny>,
    inputs: Bound<'_, PyAny>,
    output_storage: Bound<'_, PyAny>,
) -> PyResult<()> {
    if !host {
        return Err(PyNotImplementedError::new_err(format!(
            "{} runs in the core: compile its graph with oxtensor.function",
            op.str()?
        )));
    }
    helpers(op.py())?.call_method1("perform", (op, node, inputs, output_storage))?;
    Ok(())
}

/// PyTensor's: same class and same `output_types_preference`.
pub fn eq(op: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
    helpers(op.py())?
        .call_method1("equal", (op, other))?
        .extract()
}

/// Hashes what equality compares.
pub fn hash(op: &Bound<'_, PyAny>) -> PyResult<u64> {
    let h: i64 = helpers(op.py())?
        .call_method1("op_hash", (op,))?
        .extract()?;
    Ok(h as u64)
}

/// Pickled as a Python op: its class made anew, its `__dict__` restored.
pub fn reduce<'py>(op: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let py = op.py();
    let newobj = py.import("copyreg")?.getattr("__newobj__")?;
    let args = PyTuple::new(py, [op.get_type()])?;
    let state = op.getattr("__dict__")?;
    PyTuple::new(py, [newobj, args.into_any(), state])
}
