//! `oxtensor.grad` and friends over the core's autodiff: the Python graph is
//! imported into a scratch arena, the core differentiates it, and the new
//! nodes come back as Python objects. Python ops are reached through
//! [`PyGradHost`], which calls their `L_op`/`R_op`/`connection_pattern`
//! with Python variables and imports what they return.

pub mod grad_op;
pub mod jacobian;
pub mod types;

use crate::convert::export::{export_var, export_vars};
use crate::convert::import::Memo;
use crate::errors::{choice, from_pyerr, to_pyerr};
use crate::graph::variable::PyVariable;
use crate::ops::host_op::HostOp;
use oxtensor_core::error::{Error, Result};
use oxtensor_core::grad::{
    self, GradHost, GradRequest, OnDisconnected, PushforwardRequest, ReturnDisconnected,
};
use oxtensor_core::graph::{Graph, NodeId, VarId};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// The Python side of the core's gradient driver.
struct PyGradHost<'a, 'py> {
    py: Python<'py>,
    memo: &'a mut Memo,
}

impl PyGradHost<'_, '_> {
    fn op(&self, g: &Graph, node: NodeId) -> Result<Py<PyAny>> {
        match g.node(node).op.as_any().downcast_ref::<HostOp>() {
            Some(h) => Ok(h.obj.clone_ref(self.py)),
            None => Err(Error::Value(format!(
                "{} is not a Python op",
                g.node(node).op
            ))),
        }
    }

    fn vars<'py>(&mut self, g: &Graph, vs: &[VarId]) -> Result<Bound<'py, PyList>>
    where
        Self: 'py,
    {
        export_vars(self.py, g, self.memo, vs).map_err(from_pyerr)
    }

    /// Imports one returned term, refusing what is not a variable.
    fn term(
        &mut self,
        g: &mut Graph,
        op: &str,
        method: &str,
        i: usize,
        t: &Bound<'_, PyAny>,
    ) -> PyResult<VarId> {
        if t.is_none() {
            return Err(PyTypeError::new_err(format!(
                "{op}.{method} returned None for a gradient term, this is prohibited. Instead of None, \
                 return zeros_like(input), disconnected_type(), or a NullType variable such as those \
                 made with the grad_undefined or grad_not_implemented helper functions. (Input index {i})"
            )));
        }
        if !t.is_instance_of::<PyVariable>() {
            return Err(PyTypeError::new_err(format!(
                "{op}.{method} returned {} (a {}) for input {i}; gradient terms must be Variables",
                t.repr()?,
                t.get_type().name()?
            )));
        }
        self.memo.import_var(g, t)
    }

    fn terms(
        &mut self,
        g: &mut Graph,
        op: &Bound<'_, PyAny>,
        method: &str,
        result: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<PyResult<Option<VarId>>>> {
        let op_name = op.str()?.to_string();
        if !(result.is_instance_of::<PyList>() || result.is_instance_of::<PyTuple>()) {
            return Err(PyTypeError::new_err(format!(
                "{op_name}.{method} must return a list with one entry per input, got {}",
                result.repr()?
            )));
        }
        let items: Vec<Bound<'_, PyAny>> = result.try_iter()?.collect::<PyResult<_>>()?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if method == "R_op" && t.is_none() {
                    return Ok(None);
                }
                self.term(g, &op_name, method, i, t).map(Some)
            })
            .collect())
    }
}

impl GradHost for PyGradHost<'_, '_> {
    fn pullback(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        output_grads: &[VarId],
    ) -> Result<Vec<VarId>> {
        let py = self.py;
        let op = self.op(g, node)?;
        let n = g.node(node).clone();
        let inputs = self.vars(g, &n.inputs)?;
        let outputs = self.vars(g, &n.outputs)?;
        let grads = self.vars(g, output_grads)?;
        let run = || -> PyResult<Vec<VarId>> {
            let op = op.bind(py);
            let result = op.call_method1("L_op", (inputs, outputs, grads))?;
            // A None gradient term is an error, so every entry is Some.
            let terms = self.terms(g, op, "grad", &result)?;
            let terms: Vec<Option<VarId>> = terms.into_iter().collect::<PyResult<_>>()?;
            Ok(terms.into_iter().flatten().collect())
        };
        run().map_err(from_pyerr)
    }

    fn pushforward(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        tangents: &[Option<VarId>],
    ) -> Result<Option<Vec<Option<VarId>>>> {
        let py = self.py;
        let op = self.op(g, node)?;
        let n = g.node(node).clone();
        let inputs = self.vars(g, &n.inputs)?;
        let points = tangents
            .iter()
            .map(|t| match t {
                Some(v) => export_var(py, g, self.memo, *v),
                None => Ok(py.None().into_bound(py)),
            })
            .collect::<PyResult<Vec<_>>>()
            .map_err(from_pyerr)?;
        let run = || -> PyResult<Option<Vec<Option<VarId>>>> {
            let op = op.bind(py);
            let result = match op.call_method1("R_op", (inputs, PyList::new(py, points)?)) {
                Ok(r) => r,
                Err(e) if e.is_instance_of::<PyNotImplementedError>(py) => return Ok(None),
                Err(e) => return Err(e),
            };
            self.terms(g, op, "R_op", &result)?
                .into_iter()
                .collect::<PyResult<_>>()
                .map(Some)
        };
        run().map_err(from_pyerr)
    }

    fn connection_pattern(&mut self, g: &Graph, node: NodeId) -> Result<Option<Vec<Vec<bool>>>> {
        let py = self.py;
        let op = self.op(g, node)?;
        let op = op.bind(py);
        if !op.hasattr("connection_pattern").map_err(from_pyerr)? {
            return Ok(None);
        }
        let out = g.node(node).outputs[0];
        let apply = export_var(py, g, self.memo, out)
            .and_then(|v| v.getattr("owner"))
            .map_err(from_pyerr)?;
        op.call_method1("connection_pattern", (apply,))
            .and_then(|p| p.extract::<Vec<Vec<bool>>>())
            .map(Some)
            .map_err(from_pyerr)
    }
}

/// The `disconnected_inputs`/`disconnected_outputs` values.
const ON_DISCONNECTED: [(&str, OnDisconnected); 3] = [
    ("raise", OnDisconnected::Raise),
    ("warn", OnDisconnected::Warn),
    ("ignore", OnDisconnected::Ignore),
];

/// The `return_disconnected` values.
const RETURN_DISCONNECTED: [(&str, ReturnDisconnected); 3] = [
    ("zero", ReturnDisconnected::Zero),
    ("none", ReturnDisconnected::None),
    ("disconnected", ReturnDisconnected::Disconnected),
];

fn on_disconnected(s: &str, arg: &str) -> PyResult<OnDisconnected> {
    choice(s, &ON_DISCONNECTED, |other| {
        format!(
            "Invalid value for keyword '{arg}', valid values are 'ignore', 'warn' and 'raise', got {other:?}."
        )
    })
}

fn return_disconnected(s: &str) -> PyResult<ReturnDisconnected> {
    choice(s, &RETURN_DISCONNECTED, |other| {
        format!(
            "Invalid return_disconnected value {other:?}: expected 'zero', 'none' or 'disconnected'"
        )
    })
}

/// One of the core's gradient drivers (`grad::grad`, `pushforward`,
/// `jacobian`, `hessian`) run on `req` over `g`, whose Python variables
/// `memo` knows: Python ops' derivatives are reached through a
/// [`PyGradHost`], a panic is an `InternalError`, and the result comes
/// back as Python objects ([`finish`]).
fn drive<'py, R>(
    py: Python<'py>,
    mut g: Graph,
    mut memo: Memo,
    req: &R,
    driver: fn(&mut Graph, &R, Option<&mut dyn GradHost>) -> Result<grad::GradResult>,
) -> PyResult<Bound<'py, PyList>> {
    let result = {
        let mut host = PyGradHost {
            py,
            memo: &mut memo,
        };
        crate::errors::panics::guard(|| driver(&mut g, req, Some(&mut host)).map_err(to_pyerr))?
    };
    finish(py, &g, &mut memo, result)
}

/// The results as Python objects, with the driver's warnings shown.
fn finish<'py>(
    py: Python<'py>,
    g: &Graph,
    memo: &mut Memo,
    result: grad::GradResult,
) -> PyResult<Bound<'py, PyList>> {
    let warnings = py.import("warnings")?;
    for w in &result.warnings {
        warnings.call_method1("warn", (w.as_str(),))?;
    }
    let objs = result
        .grads
        .iter()
        .map(|v| match v {
            Some(v) => export_var(py, g, memo, *v),
            None => Ok(py.None().into_bound(py)),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, objs)
}

/// The core of `oxtensor.grad`: lists in, a list of gradients out.
#[pyfunction]
#[pyo3(signature = (cost, wrt, consider_constant, known_grads, known_replaces, disconnected_inputs, add_names, return_disconnected, null_gradients))]
#[allow(clippy::too_many_arguments)]
pub fn _grad<'py>(
    py: Python<'py>,
    cost: Option<Bound<'py, PyAny>>,
    wrt: Vec<Bound<'py, PyAny>>,
    consider_constant: Vec<Bound<'py, PyAny>>,
    known_grads: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    known_replaces: bool,
    disconnected_inputs: &str,
    add_names: bool,
    return_disconnected: &str,
    null_gradients: &str,
) -> PyResult<Bound<'py, PyList>> {
    let return_null = choice(
        null_gradients,
        &[("raise", false), ("return", true)],
        |other| format!("null_gradients must be 'raise' or 'return', got {other:?}"),
    )?;
    let mut g = Graph::new();
    let mut memo = Memo::default();
    let mut import = |v: &Bound<'py, PyAny>| memo.import_var(&mut g, v);
    let req = GradRequest {
        cost: cost.as_ref().map(&mut import).transpose()?,
        wrt: wrt.iter().map(&mut import).collect::<PyResult<_>>()?,
        known_grads: known_grads
            .iter()
            .map(|(v, gv)| Ok((import(v)?, import(gv)?)))
            .collect::<PyResult<_>>()?,
        known_replaces,
        consider_constant: consider_constant
            .iter()
            .map(&mut import)
            .collect::<PyResult<_>>()?,
        disconnected_inputs: on_disconnected(disconnected_inputs, "disconnected_inputs")?,
        return_disconnected: self::return_disconnected(return_disconnected)?,
        return_null,
        add_names,
    };
    drive(py, g, memo, &req, grad::grad)
}

/// The core of `oxtensor.pushforward` / `Rop`.
#[pyfunction]
#[pyo3(signature = (f, wrt, tangents, use_op_pushforward, disconnected_outputs, return_disconnected))]
pub fn _pushforward<'py>(
    py: Python<'py>,
    f: Vec<Bound<'py, PyAny>>,
    wrt: Vec<Bound<'py, PyAny>>,
    tangents: Vec<Bound<'py, PyAny>>,
    use_op_pushforward: bool,
    disconnected_outputs: &str,
    return_disconnected: &str,
) -> PyResult<Bound<'py, PyList>> {
    let mut g = Graph::new();
    let mut memo = Memo::default();
    let mut import = |vs: &[Bound<'py, PyAny>]| -> PyResult<Vec<VarId>> {
        vs.iter().map(|v| memo.import_var(&mut g, v)).collect()
    };
    let req = PushforwardRequest {
        f: import(&f)?,
        wrt: import(&wrt)?,
        tangents: import(&tangents)?,
        use_op_pushforward,
        disconnected_outputs: on_disconnected(disconnected_outputs, "disconnected_outputs")?,
        return_disconnected: self::return_disconnected(return_disconnected)?,
    };
    drive(py, g, memo, &req, grad::pushforward)
}

/// `zero_grad(x)`, `disconnected_grad(x)`, `undefined_grad(x)`,
/// `grad_clip(x, lower, upper)` and `grad_scale(x, multiplier)`.
#[pyfunction]
#[pyo3(signature = (x, kind, a = 0.0, b = 0.0))]
pub fn _grad_op<'py>(
    x: Bound<'py, PyAny>,
    kind: &str,
    a: f64,
    b: f64,
) -> PyResult<Bound<'py, PyAny>> {
    use oxtensor_core::ops::grad_ops::{GradKind, GradOp};
    let op = match kind {
        "zero" => GradOp {
            kind: GradKind::Zero,
        },
        "disconnected" => GradOp {
            kind: GradKind::Disconnected,
        },
        "undefined" => GradOp {
            kind: GradKind::Undefined,
        },
        "clip" => GradOp::clip(a, b).map_err(to_pyerr)?,
        "scale" => GradOp::scale(a),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown gradient op {other:?}"
            )))
        }
    };
    crate::ops::make_node::apply_core(x.py(), std::sync::Arc::new(op), vec![x])
}
