//! Pickling what fusion makes: a `Composite` scalar op and a `Sum` fused
//! with its composite (`CAReduce{Composite{...}}`) reduce to plain Python
//! data (input dtypes, constants as arrays, nodes as `(op, args)`, output
//! nodes) and are rebuilt from it, so a compiled function pickles with its
//! fused graph. A `ScalarLoop` pickles the same way, as its step's state
//! (a loop inside a composite as `("ScalarLoop", state)`).

use crate::convert::array::{array_from_tensor, tensor_from_array};
use crate::errors::IntoPyResult;
use crate::graph::types::parse_dtype;
use crate::ops::classes::core_op;
use crate::ops::reduce::{composite_reduce_init, PyCAReduce};
use crate::ops::scalar;
use oxtensor_core::ops::composite_reduce::CompositeReduce;
use oxtensor_core::ops::reduce::CAReduce;
use oxtensor_core::ops::OpRef;
use oxtensor_core::reduction::ReduceKind;
use oxtensor_core::scalar::composite::{Composite, Operand};
use oxtensor_core::scalar::scalar_loop::ScalarLoop;
use oxtensor_core::scalar::{ScalarKind, ScalarOp};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// A node's operand as `(tag, index)`: `i` input, `c` constant, `n` node.
type Arg = (char, usize);

/// `(input dtypes, constants, nodes as (op, args), output nodes)`.
pub fn composite_state<'py>(py: Python<'py>, c: &Composite) -> PyResult<Bound<'py, PyTuple>> {
    let dtypes: Vec<&str> = c.input_dtypes().iter().map(|d| d.name()).collect();
    let consts = c
        .consts()
        .iter()
        .map(|t| array_from_tensor(py, t, false))
        .collect::<PyResult<Vec<_>>>()?;
    let mut nodes = Vec::with_capacity(c.nodes().len());
    for n in c.nodes() {
        let op = match &n.op {
            ScalarOp::Kind(k) => k.name().into_pyobject(py)?.into_any(),
            ScalarOp::Cast(d) => ("Cast", d.name()).into_pyobject(py)?.into_any(),
            ScalarOp::Composite(_) => {
                return Err(PyValueError::new_err("a Composite holds no composite"))
            }
            ScalarOp::Loop(l) => ("ScalarLoop", loop_state(py, l)?)
                .into_pyobject(py)?
                .into_any(),
        };
        let args: Vec<Arg> = n.args.iter().map(|&a| arg(a)).collect();
        nodes.push((op, args).into_pyobject(py)?.into_any());
    }
    (dtypes, consts, nodes, c.outputs().to_vec()).into_pyobject(py)
}

fn arg(a: Operand) -> Arg {
    match a {
        Operand::Input(i) => ('i', i),
        Operand::Const(k) => ('c', k),
        Operand::Node(j) => ('n', j),
    }
}

/// A [`composite_state`] read back.
type State<'py> = (
    Vec<Bound<'py, PyAny>>,
    Vec<Bound<'py, PyAny>>,
    Vec<(Bound<'py, PyAny>, Vec<Arg>)>,
    Vec<usize>,
);

/// The composite a [`composite_state`] describes.
fn composite_of(state: &Bound<'_, PyAny>) -> PyResult<Composite> {
    let (dtypes, consts, nodes, outputs): State<'_> = state.extract()?;
    let dtypes = dtypes
        .iter()
        .map(parse_dtype)
        .collect::<PyResult<Vec<_>>>()?;
    let mut b = Composite::builder(&dtypes);
    let mut cs = Vec::with_capacity(consts.len());
    for c in &consts {
        cs.push(b.constant(tensor_from_array(c)?).py()?);
    }
    let mut made = Vec::with_capacity(nodes.len());
    for (op, args) in &nodes {
        let op = scalar_op(op)?;
        let args = args
            .iter()
            .map(|&(tag, k)| operand(tag, k, &dtypes, &cs, &made))
            .collect::<PyResult<Vec<_>>>()?;
        made.push(b.push(op, &args).py()?);
    }
    let outs = outputs
        .iter()
        .map(|&j| operand('n', j, &dtypes, &cs, &made))
        .collect::<PyResult<Vec<_>>>()?;
    b.finish(&outs).py()
}

fn scalar_op(op: &Bound<'_, PyAny>) -> PyResult<ScalarOp> {
    if let Ok((tag, arg)) = op.extract::<(String, Bound<'_, PyAny>)>() {
        return Ok(match tag.as_str() {
            "ScalarLoop" => ScalarOp::Loop(Arc::new(loop_of(&arg)?)),
            _ => ScalarOp::Cast(parse_dtype(&arg)?),
        });
    }
    let name: String = op.extract()?;
    let kind = ScalarKind::ALL
        .iter()
        .find(|k| k.name() == name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown scalar op '{name}'")))?;
    Ok(ScalarOp::Kind(*kind))
}

fn operand(
    tag: char,
    k: usize,
    dtypes: &[oxtensor_core::dtype::DType],
    consts: &[Operand],
    made: &[Operand],
) -> PyResult<Operand> {
    let found = match tag {
        'i' => (k < dtypes.len()).then_some(Operand::Input(k)),
        'c' => consts.get(k).copied(),
        'n' => made.get(k).copied(),
        _ => None,
    };
    found.ok_or_else(|| PyValueError::new_err(format!("bad Composite operand ({tag}, {k})")))
}

/// `oxtensor._core.composite_from_state(state)`: the `Composite` scalar op.
#[pyfunction]
pub fn composite_from_state(py: Python<'_>, state: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let c = composite_of(&state)?;
    scalar::instance(py, ScalarOp::Composite(Arc::new(c)))
}

/// A `ScalarLoop` as `(step state, number of states, is_while, name)`.
pub fn loop_state<'py>(py: Python<'py>, l: &ScalarLoop) -> PyResult<Bound<'py, PyTuple>> {
    let step = composite_state(py, l.step())?;
    (step, l.n_update(), l.is_while(), l.name()).into_pyobject(py)
}

/// The loop a [`loop_state`] describes.
fn loop_of(state: &Bound<'_, PyAny>) -> PyResult<ScalarLoop> {
    let (step, n_update, is_while, name): (Bound<'_, PyAny>, usize, bool, String) =
        state.extract()?;
    ScalarLoop::new(composite_of(&step)?, n_update, is_while, &name).py()
}

/// `oxtensor._core.scalar_loop_from_state(state)`: the `ScalarLoop` scalar op.
#[pyfunction]
pub fn scalar_loop_from_state(py: Python<'_>, state: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let l = loop_of(&state)?;
    scalar::instance(py, ScalarOp::Loop(Arc::new(l)))
}

/// A fused `Sum` (`CAReduce{Composite{...}}`), pickled by its state.
#[pyclass(extends = PyCAReduce, module = "oxtensor.tensor.elemwise", name = "CAReduce")]
pub struct PyCompositeReduce;

/// The Python object of a fused `Sum` (an entry of `ops/classes.rs`).
pub fn reduce_object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    let fused = core_op::<CompositeReduce>(core)?;
    let init = composite_reduce_init(core.clone(), &fused.reduce).add_subclass(PyCompositeReduce);
    Ok(Py::new(py, init)?.into_any())
}

#[pymethods]
impl PyCompositeReduce {
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let core = this.as_super().as_super().core.clone();
        let fused = core
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("not a fused reduction"))?
            .as_any()
            .downcast_ref::<CompositeReduce>()
            .ok_or_else(|| PyValueError::new_err("not a fused reduction"))?;
        let r = &fused.reduce;
        let args = (
            r.axis.clone(),
            r.dtype.name(),
            r.acc_dtype.name(),
            composite_state(py, &fused.pre)?,
        );
        let func = py
            .import("oxtensor._core")?
            .getattr("composite_reduce_from_state")?;
        PyTuple::new(py, [func, args.into_pyobject(py)?.into_any()])
    }
}

/// `oxtensor._core.composite_reduce_from_state(axis, dtype, acc_dtype,
/// composite_state)`: a fused `Sum`.
#[pyfunction]
pub fn composite_reduce_from_state(
    py: Python<'_>,
    axis: Option<Vec<usize>>,
    dtype: Bound<'_, PyAny>,
    acc_dtype: Bound<'_, PyAny>,
    state: Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let reduce = CAReduce {
        kind: ReduceKind::Sum,
        axis,
        dtype: parse_dtype(&dtype)?,
        acc_dtype: parse_dtype(&acc_dtype)?,
    };
    let op = CompositeReduce::new(reduce, Arc::new(composite_of(&state)?)).py()?;
    let core: OpRef = Arc::new(op);
    reduce_object(py, &core)
}

/// Adds the class and functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCompositeReduce>()?;
    m.add_function(wrap_pyfunction!(composite_from_state, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_loop_from_state, m)?)?;
    m.add_function(wrap_pyfunction!(composite_reduce_from_state, m)?)?;
    Ok(())
}
