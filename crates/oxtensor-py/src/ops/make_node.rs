//! Nodes of built-in ops, built from Python: inputs go through
//! `as_tensor_variable`, the core op infers output types, and `Elemwise`
//! gets the broadcasting `ExpandDims` its core plan asks for.

use crate::convert::constant::as_tensor_variable;
use crate::errors::IntoPyResult;
use crate::graph::apply::PyApply;
use crate::graph::construct;
use crate::graph::types::PyTensorType;
use crate::graph::variable::PyVariable;
use crate::ops::classes;
use crate::ops::op::PyOp;
use oxtensor_core::ops::dimshuffle::{Axis, DimShuffle};
use oxtensor_core::ops::elemwise::Elemwise;
use oxtensor_core::ops::make_vector::MakeVector;
use oxtensor_core::ops::shape::{Reshape, ShapeI};
use oxtensor_core::ops::OpRef;
use oxtensor_core::scalar::ScalarOp;
use oxtensor_core::types::{TensorType, Type};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use smallvec::SmallVec;
use std::sync::Arc;

/// The tensor type of a variable, or a `TypeError` naming it.
pub fn tensor_type_of(var: &Bound<'_, PyAny>) -> PyResult<TensorType> {
    let v = var.cast::<PyVariable>()?;
    let ty = v.borrow().ty(var.py());
    let ty = &ty;
    match ty.cast::<PyTensorType>() {
        Ok(t) => Ok(t.get().inner.clone()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{} is not a tensor: its type is {}",
            var.str()?,
            ty.str()?
        ))),
    }
}

/// Builds a node of a built-in op (`op` is its Python object); a panic in
/// the core's type inference is an `InternalError` (see `errors/panics.rs`).
pub fn builtin<'py>(
    op: &Bound<'py, PyAny>,
    core: &OpRef,
    inputs: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyApply>> {
    crate::errors::panics::guard(|| build_node(op, core, inputs))
}

fn build_node<'py>(
    op: &Bound<'py, PyAny>,
    core: &OpRef,
    inputs: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyApply>> {
    let py = op.py();
    let mut inputs: Vec<Bound<'py, PyAny>> = inputs
        .into_iter()
        .map(|i| as_tensor_variable(i, None, None, None))
        .collect::<PyResult<_>>()?;
    let types: SmallVec<[TensorType; 4]> =
        inputs.iter().map(tensor_type_of).collect::<PyResult<_>>()?;
    let out_types: Vec<Type> = if let Some(ew) = core.as_any().downcast_ref::<Elemwise>() {
        let refs: SmallVec<[&TensorType; 4]> = types.iter().collect();
        let plan = ew.plan(&refs).py()?;
        let expansions = inputs.iter_mut().zip(plan.expand).zip(plan.expanded);
        for ((inp, expand), ty) in expansions {
            if let (Some(ds), Some(ty)) = (expand, ty) {
                // The plan already knows the ExpandDims output's type.
                let ds: OpRef = Arc::new(ds);
                let op = classes::op_object(py, &ds)?;
                let node = node_of(op.bind(py), vec![inp.clone()], &[ty.into()])?;
                *inp = node.borrow().outputs_list(py).get_item(0)?;
            }
        }
        plan.outputs.into_iter().map(Type::from).collect()
    } else if let Some(reshape) = core.as_any().downcast_ref::<Reshape>() {
        reshape_types(reshape, &inputs, &types)?
    } else if let Some(known) = oxtensor_core::ops::known::as_known(core.as_ref()) {
        crate::ops::shape::known_types(known, &inputs, &types)?
    } else {
        let tys: Vec<Type> = types.into_iter().map(Type::from).collect();
        core.output_types(&tys.iter().collect::<Vec<_>>()).py()?
    };
    node_of(op, inputs, &out_types)
}

/// The node of `op` on `inputs` (variables already) with outputs of types
/// `out_types`.
fn node_of<'py>(
    op: &Bound<'py, PyAny>,
    inputs: Vec<Bound<'py, PyAny>>,
    out_types: &[Type],
) -> PyResult<Bound<'py, PyApply>> {
    let py = op.py();
    let outputs = PyList::empty(py);
    for ty in out_types {
        // An output typed like an input (most elementwise results) shares
        // that input's type object, skipping the type cache.
        let same = inputs.iter().find_map(|i| {
            let v = i.cast::<PyVariable>().ok()?;
            let t = v.borrow().ty(py);
            let same = t
                .cast::<PyTensorType>()
                .ok()
                .is_some_and(|t| matches!(ty, Type::Tensor(o) if *o == t.get().inner));
            same.then(|| t.unbind())
        });
        let ty = match same {
            Some(t) => t,
            None => crate::graph::types::py_type(py, ty)?,
        };
        outputs.append(construct::tensor_variable(py, ty, None)?)?;
    }
    PyApply::create(py, op.clone().unbind(), PyList::new(py, inputs)?, outputs)
}

/// `Reshape` knows its output's static shape from the entries of the shape
/// that are constants (the whole shape, or entries of a `MakeVector`), and
/// from entries that are the input's own lengths (`Shape_i{k}(x)`).
fn reshape_types(
    op: &Reshape,
    inputs: &[Bound<'_, PyAny>],
    types: &[TensorType],
) -> PyResult<Vec<Type>> {
    let tys: Vec<Type> = types.iter().cloned().map(Type::from).collect();
    op.output_types(&tys.iter().collect::<Vec<_>>()).py()?;
    let (known, lengths_of) = match constant_data(&inputs[1])? {
        Some(d) => {
            let values = d.call_method0("tolist")?.extract::<Vec<i64>>()?;
            (Some(values.into_iter().map(Some).collect()), Vec::new())
        }
        None => match make_vector_entries(&inputs[1], &inputs[0])? {
            Some((values, lengths)) => (Some(values), lengths),
            None => (None, Vec::new()),
        },
    };
    let out = op.output_type_with_lengths(&types[0], known.as_deref(), &lengths_of);
    Ok(vec![out.py()?.into()])
}

/// A constant's data, `None` for any other variable.
fn constant_data<'py>(v: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    v.cast::<PyVariable>()?.borrow_mut().data_obj(v.py())
}

/// The entries of a `MakeVector` (`stack([2, n])`), each its constant value
/// or `None` (as PyTensor's `Reshape` reads each entry's constant value),
/// and the axis of `x` each is the length of; `None` when `shape` is built
/// otherwise.
type Entries = (Vec<Option<i64>>, Vec<Option<usize>>);
fn make_vector_entries(
    shape: &Bound<'_, PyAny>,
    x: &Bound<'_, PyAny>,
) -> PyResult<Option<Entries>> {
    let Some(node) = owner_with::<MakeVector>(shape)? else {
        return Ok(None);
    };
    let (mut values, mut lengths) = (Vec::new(), Vec::new());
    for entry in node.getattr("inputs")?.try_iter()? {
        let entry = entry?;
        values.push(entry_value(&entry)?);
        lengths.push(length_axis(&entry, x)?);
    }
    Ok(Some((values, lengths)))
}

/// `k` when `entry` is `Shape_i{k}(x)`.
fn length_axis(entry: &Bound<'_, PyAny>, x: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    let Some(node) = owner_with::<ShapeI>(entry)? else {
        return Ok(None);
    };
    if !node.getattr("inputs")?.get_item(0)?.is(x) {
        return Ok(None);
    }
    let op = node.getattr("op")?.cast::<PyOp>()?.borrow().core.clone();
    Ok(op.and_then(|core| core.as_any().downcast_ref::<ShapeI>().map(|s| s.i)))
}

/// The node computing `v` when its op is the core's `O`.
fn owner_with<'py, O: 'static>(v: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let owner = v.getattr("owner")?;
    if owner.is_none() {
        return Ok(None);
    }
    let is_o = owner
        .getattr("op")?
        .cast::<PyOp>()
        .ok()
        .and_then(|op| op.borrow().core.clone())
        .is_some_and(|core| core.as_any().is::<O>());
    Ok(is_o.then_some(owner))
}

/// A shape entry's constant value, as PyTensor's `Reshape` reads it with
/// `get_underlying_scalar_constant_value`: a constant, or a fixed function
/// of constants (a cast, `100 // n` of a constant `n`, a static length).
pub(crate) fn entry_value(entry: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if let Some(d) = constant_data(entry)? {
        return Ok(d.call_method0("item")?.extract().ok());
    }
    let py = entry.py();
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("raise_not_constant", false)?;
    let value = py
        .import("oxtensor.tensor.constants")?
        .getattr("get_underlying_scalar_constant_value")?
        .call((entry,), Some(&kwargs))?;
    if value.is(entry) || value.is_none() {
        return Ok(None);
    }
    Ok(value.call_method0("item")?.extract().ok())
}

use oxtensor_core::ops::Op as _;

/// Applies a core op, with its Python object from the registry, and
/// returns the default output.
pub fn apply_core<'py>(
    py: Python<'py>,
    core: OpRef,
    inputs: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let op = classes::op_object(py, &core)?;
    let node = builtin(op.bind(py), &core, inputs)?;
    let outputs = node.borrow().outputs_list(py);
    // Built-in ops know their default output without asking Python.
    match core.default_output() {
        Some(i) => outputs.get_item(i),
        None if outputs.len() == 1 => outputs.get_item(0),
        None => Ok(node.borrow().default_output_obj(py)?.into_bound(py)),
    }
}

/// `scalar_op` applied elementwise.
pub fn elemwise<'py>(
    py: Python<'py>,
    scalar: ScalarOp,
    inputs: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    apply_core(py, Arc::new(Elemwise::new(scalar)), inputs)
}

/// `x.dimshuffle(order)`.
pub fn dimshuffle<'py>(x: &Bound<'py, PyAny>, order: Vec<Axis>) -> PyResult<Bound<'py, PyAny>> {
    let ndim = tensor_type_of(x)?.ndim();
    let ds = DimShuffle::new(ndim, order).py()?;
    apply_core(x.py(), Arc::new(ds), vec![x.clone()])
}
