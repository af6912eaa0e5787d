//! `oxtensor.gradient.jacobian`/`hessian` over the core's
//! (`oxtensor_core::grad::jacobian`), and the `Jacobian` op's Python class,
//! which pickles as the variables of its inner graph.

use super::{drive, on_disconnected};
use crate::convert::export::{export_var, export_vars};
use crate::convert::import::Memo;
use crate::errors::to_pyerr;
use crate::ops::op::PyOp;
use crate::ops::props::core_of;
use oxtensor_core::grad::jacobian::{Inner, Jacobian, Parts};
use oxtensor_core::grad::{self, JacobianRequest};
use oxtensor_core::graph::Graph;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::Arc;

/// The Jacobian of an expression, computed by a loop over its rows (see
/// `oxtensor_core::grad::jacobian`); instances compare by identity.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.gradient", name = "Jacobian")]
pub struct PyJacobian;

#[pymethods]
impl PyJacobian {
    /// `_jacobian_op(inputs, u, y, wrt, rows)` rebuilds it.
    fn __reduce__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let inner = core_of::<Jacobian>(slf.as_super())?.inner();
        let parts = inner.parts();
        let mut memo = Memo::default();
        let g = &inner.graph;
        let args = (
            export_vars(py, g, &mut memo, &parts.inputs)?,
            export_var(py, g, &mut memo, parts.u)?,
            export_var(py, g, &mut memo, parts.y)?,
            export_vars(py, g, &mut memo, &parts.wrt)?,
            export_vars(py, g, &mut memo, &parts.rows)?,
        );
        let rebuild = py.import("oxtensor._core")?.getattr("_jacobian_op")?;
        (rebuild, args).into_pyobject(py)
    }
}

/// The `Jacobian` op over an inner graph given as Python variables (how
/// a pickled one comes back).
#[pyfunction]
pub fn _jacobian_op<'py>(
    py: Python<'py>,
    inputs: Vec<Bound<'py, PyAny>>,
    u: Bound<'py, PyAny>,
    y: Bound<'py, PyAny>,
    wrt: Vec<Bound<'py, PyAny>>,
    rows: Vec<Bound<'py, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let mut g = Graph::new();
    let mut memo = Memo::default();
    let mut import = |vs: &[Bound<'py, PyAny>]| -> PyResult<Vec<_>> {
        vs.iter().map(|v| memo.import_var(&mut g, v)).collect()
    };
    let (inputs, wrt, rows) = (import(&inputs)?, import(&wrt)?, import(&rows)?);
    let (u, y) = (memo.import_var(&mut g, &u)?, memo.import_var(&mut g, &y)?);
    let parts = Parts {
        inputs,
        u,
        y,
        wrt,
        rows,
    };
    let op = Inner::copy_from(&g, &parts)
        .and_then(Jacobian::new)
        .map_err(to_pyerr)?;
    crate::ops::classes::op_object(py, &(Arc::new(op) as _))
}

/// The core of `oxtensor.gradient.jacobian` (and of `hessian` when
/// `hessian`): lists in, a list of results out.
#[pyfunction]
#[pyo3(signature = (expression, wrt, consider_constant, disconnected_inputs, hessian))]
pub fn _jacobian<'py>(
    py: Python<'py>,
    expression: Bound<'py, PyAny>,
    wrt: Vec<Bound<'py, PyAny>>,
    consider_constant: Vec<Bound<'py, PyAny>>,
    disconnected_inputs: &str,
    hessian: bool,
) -> PyResult<Bound<'py, PyList>> {
    let mut g = Graph::new();
    let mut memo = Memo::default();
    let mut import = |vs: &[Bound<'py, PyAny>]| -> PyResult<Vec<_>> {
        vs.iter().map(|v| memo.import_var(&mut g, v)).collect()
    };
    let (wrt, consider_constant) = (import(&wrt)?, import(&consider_constant)?);
    let req = JacobianRequest {
        y: memo.import_var(&mut g, &expression)?,
        wrt,
        consider_constant,
        disconnected_inputs: on_disconnected(disconnected_inputs, "disconnected_inputs")?,
    };
    let driver = if hessian {
        grad::hessian
    } else {
        grad::jacobian
    };
    drive(py, g, memo, &req, driver)
}
