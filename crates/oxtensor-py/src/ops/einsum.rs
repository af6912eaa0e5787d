//! `_einsum_plan`: the core's einsum plan (`oxtensor_core::build::einsum`)
//! as plain Python data, which `oxtensor.tensor.einsum` turns into a graph.

use crate::errors::IntoPyResult;
use oxtensor_core::build::einsum::{self, Action, Step};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// `_einsum_plan(subscripts, shapes)`: a dict with `path` (tuple of
/// position tuples), `optimized`, `broadcast_label` and `steps`, each step
/// `(operands, prepare, dot, transpose)`: `prepare` one list of actions per
/// popped operand (`("squeeze", axes)`, `("sum", axes)`, `("diagonal",
/// axes, keep)`), `dot` `None` or `(first, (axes, axes), (batch, batch))`,
/// `transpose` `None` or an axis order.
#[pyfunction]
pub fn _einsum_plan<'py>(
    py: Python<'py>,
    subscripts: &str,
    shapes: Vec<Vec<Option<u64>>>,
) -> PyResult<Bound<'py, PyDict>> {
    let plan = einsum::plan(subscripts, &shapes).py()?;
    let out = PyDict::new(py);
    let path: Vec<Bound<'py, PyTuple>> = plan
        .path
        .iter()
        .map(|p| PyTuple::new(py, p))
        .collect::<PyResult<_>>()?;
    out.set_item("path", PyTuple::new(py, path)?)?;
    out.set_item("optimized", plan.optimized)?;
    out.set_item("broadcast_label", plan.broadcast_label)?;
    let steps: Vec<Bound<'py, PyAny>> = plan
        .steps
        .iter()
        .map(|s| step(py, s))
        .collect::<PyResult<_>>()?;
    out.set_item("steps", steps)?;
    Ok(out)
}

fn step<'py>(py: Python<'py>, s: &Step) -> PyResult<Bound<'py, PyAny>> {
    let prepare: Vec<Vec<Bound<'py, PyAny>>> = s
        .prepare
        .iter()
        .map(|acts| acts.iter().map(|a| action(py, a)).collect())
        .collect::<PyResult<_>>()?;
    let dot = s.dot.as_ref().map(|d| {
        (
            d.first,
            (d.axes[0].clone(), d.axes[1].clone()),
            (d.batch[0].clone(), d.batch[1].clone()),
        )
    });
    Ok((s.operands.clone(), prepare, dot, s.transpose.clone())
        .into_pyobject(py)?
        .into_any())
}

fn action<'py>(py: Python<'py>, a: &Action) -> PyResult<Bound<'py, PyAny>> {
    Ok(match a {
        Action::Squeeze(axes) => ("squeeze", axes.clone()).into_pyobject(py)?.into_any(),
        Action::Sum(axes) => ("sum", axes.clone()).into_pyobject(py)?.into_any(),
        Action::Diagonal { axes, keep } => ("diagonal", axes.clone(), *keep)
            .into_pyobject(py)?
            .into_any(),
    })
}
