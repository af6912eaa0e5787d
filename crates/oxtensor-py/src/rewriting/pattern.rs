//! `PatternNodeRewriter` from Python: PyTensor's tuple patterns translated
//! into the core's [`Pattern`]/[`Template`] (the matcher is the core's);
//! constraints, `OpPattern` heads (`OpPattern.match_op`, which reads the
//! op's Python attributes) and callable output patterns call back into Python.

use super::bridge::with_python;
use crate::convert::constant::as_tensor_variable;
use crate::graph::variable::PyVariable;
use crate::ops::host_op::HostOp;
use crate::ops::op::PyOp;
use oxtensor_core::graph::Value;
use oxtensor_core::ops::OpRef;
use oxtensor_core::rewrite::pattern::{
    Head, OpTest, Param, Params, Pattern, PatternRewriter, Template,
};
use oxtensor_core::rewrite::NodeRewriter;
use oxtensor_core::tensor::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use std::sync::Arc;

fn core_op(op: &Bound<'_, PyAny>) -> PyResult<OpRef> {
    let Ok(o) = op.cast::<PyOp>() else {
        return Err(PyTypeError::new_err(format!(
            "a pattern's head must be an Op instance, got {}",
            op.repr()?
        )));
    };
    Ok(match &o.borrow().core {
        Some(c) => c.clone(),
        None => Arc::new(HostOp::new(op)?),
    })
}

/// A pattern's head: an op, or an `OpPattern` (an object with `op_type`
/// and `match_op(op, params)`), tested on the node's Python op.
fn head(obj: &Bound<'_, PyAny>) -> PyResult<Head> {
    if obj.is_instance_of::<PyOp>() || !obj.hasattr("match_op")? {
        return Ok(Head::Op(core_op(obj)?));
    }
    let class = obj
        .getattr("op_type")?
        .cast_into::<PyType>()?
        .name()?
        .to_string();
    let matcher = obj.clone().unbind();
    let test: OpTest = Arc::new(move |fg, node, params| {
        Python::attach(|py| {
            with_python(py, fg, |shell| {
                let op = shell.borrow_mut().node_object(py, node)?.getattr("op")?;
                let subs = params_dict(py, params)?;
                if !matcher
                    .bind(py)
                    .call_method1("match_op", (op, &subs))?
                    .is_truthy()?
                {
                    return Ok(false);
                }
                for (k, v) in subs.iter() {
                    let value: Param = Arc::new(v.unbind());
                    params.insert(k.extract()?, value);
                }
                Ok(true)
            })
        })
    });
    Ok(Head::Test { class, test })
}

/// The bound op parameters as a Python dict.
fn params_dict<'py>(py: Python<'py>, params: &Params) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in params {
        if let Some(obj) = v.downcast_ref::<Py<PyAny>>() {
            d.set_item(k, obj.bind(py))?;
        }
    }
    Ok(d)
}

/// A constant `Variable` (of any type) as the core's constant.
fn graph_constant(obj: &Bound<'_, PyAny>) -> PyResult<Option<oxtensor_core::graph::Constant>> {
    let Ok(v) = obj.cast::<PyVariable>() else {
        return Ok(None);
    };
    let py = obj.py();
    let this = v.borrow();
    Ok(match (&this.tensor, &this.data) {
        (Some(t), _) => Some(oxtensor_core::graph::Constant::tensor(t.clone())),
        (None, Some(data)) => {
            let ty = crate::graph::types::core_type(&this.ty(py))?;
            Some(crate::convert::import::constant_value(data.bind(py), &ty)?)
        }
        (None, None) => None,
    })
}

/// The value of a number, array or constant in a pattern.
fn constant(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let var = as_tensor_variable(obj.clone(), None, None, None)?;
    let v = var.cast::<PyVariable>()?;
    if let Some(t) = &v.borrow().tensor {
        return Ok(t.clone());
    }
    match &v.borrow().data {
        Some(d) => crate::convert::array::tensor_from_array(d.bind(obj.py())),
        None => Err(PyValueError::new_err(format!(
            "{} in a pattern is a variable, not a constant; name it with a string",
            obj.repr()?
        ))),
    }
}

/// An `Asterisk("name")` at the end of a tuple binds the remaining inputs.
fn asterisk_name(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    match obj.getattr("_asterisk_name") {
        Ok(n) => Ok(Some(n.extract()?)),
        Err(_) => Ok(None),
    }
}

/// A tuple pattern, a name, a constrained name or a constant.
pub fn to_pattern(obj: &Bound<'_, PyAny>) -> PyResult<Pattern> {
    if let Ok(t) = obj.cast::<PyTuple>() {
        let Some((head, args)) = t.as_slice().split_first() else {
            return Err(PyValueError::new_err("an empty tuple is not a pattern"));
        };
        let (mut args, mut rest) = (args.to_vec(), None);
        if let Some(last) = args.last() {
            if let Some(name) = asterisk_name(last)? {
                rest = Some(name);
                args.pop();
            }
        }
        return Ok(Pattern::Apply {
            op: self::head(head)?,
            args: args.iter().map(to_pattern).collect::<PyResult<_>>()?,
            rest,
        });
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Pattern::Var {
            name: obj.extract()?,
            constraint: None,
        });
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let name: String = d
            .get_item("pattern")?
            .ok_or_else(|| PyValueError::new_err("a dict pattern needs a 'pattern' key"))?
            .extract()?;
        let constraint = d.get_item("constraint")?.map(|c| constraint_of(c.unbind()));
        return Ok(Pattern::Var { name, constraint });
    }
    if let Some(c) = graph_constant(obj)? {
        return Ok(match c.value {
            Value::Tensor(t) => Pattern::Const(t),
            Value::Host(h) => Pattern::HostConst(h),
        });
    }
    Ok(Pattern::Const(constant(obj)?))
}

fn constraint_of(f: Py<PyAny>) -> oxtensor_core::rewrite::pattern::Constraint {
    Arc::new(move |fg, v| {
        Python::attach(|py| {
            with_python(py, fg, |shell| {
                let obj = shell.borrow_mut().var_object(py, v)?;
                f.bind(py).call1((obj,))?.is_truthy()
            })
        })
    })
}

/// A tuple template, a name, a constant, or a callable `f(fgraph, node, subs)`.
pub fn to_template(obj: &Bound<'_, PyAny>) -> PyResult<Template> {
    if let Ok(t) = obj.cast::<PyTuple>() {
        let Some((head, args)) = t.as_slice().split_first() else {
            return Err(PyValueError::new_err("an empty tuple is not a pattern"));
        };
        let args = args.iter().map(to_template).collect::<PyResult<_>>()?;
        return Ok(Template::Apply(core_op(head)?, args));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Template::Var(obj.extract()?));
    }
    if obj.is_callable() && !obj.is_instance_of::<PyVariable>() {
        return Ok(Template::Build(builder_of(obj.clone().unbind())));
    }
    if graph_constant(obj)?.is_some() {
        return Ok(Template::Build(existing(obj.clone().unbind())));
    }
    Ok(Template::Const(constant(obj)?))
}

/// A template that is a given Python constant: it joins the graph as it is.
fn existing(obj: Py<PyAny>) -> oxtensor_core::rewrite::pattern::Builder {
    Arc::new(move |fg, _, _, _| {
        Python::attach(|py| {
            with_python(py, fg, |shell| {
                shell.borrow_mut().arena_id(obj.bind(py)).map(Some)
            })
        })
    })
}

fn builder_of(f: Py<PyAny>) -> oxtensor_core::rewrite::pattern::Builder {
    Arc::new(move |fg, node, vars, params| {
        Python::attach(|py| {
            with_python(py, fg, |shell| {
                let subs = params_dict(py, params)?;
                let node_obj = {
                    let mut this = shell.borrow_mut();
                    for (name, &v) in vars {
                        subs.set_item(name, this.var_object(py, v)?)?;
                    }
                    this.node_object(py, node)?
                };
                let out = f.bind(py).call1((shell, node_obj, subs))?;
                if out.is_none()
                    || (out.is_instance_of::<pyo3::types::PyBool>() && !out.is_truthy()?)
                {
                    return Ok(None);
                }
                shell.borrow_mut().arena_id(&out).map(Some)
            })
        })
    })
}

/// `PatternNodeRewriter(in_pattern, out_pattern, ...)` as a core rewriter.
pub fn pattern_rewriter(
    in_pattern: &Bound<'_, PyAny>,
    out_pattern: &Bound<'_, PyAny>,
    allow_multiple_clients: bool,
    name: String,
    allow_cast: bool,
) -> PyResult<Arc<dyn NodeRewriter>> {
    let rw = PatternRewriter::new(name, to_pattern(in_pattern)?, to_template(out_pattern)?)
        .allow_multiple_clients(allow_multiple_clients)
        .allow_cast(allow_cast);
    Ok(Arc::new(rw))
}
