//! Applying an op: `make_node` (from `itypes`/`otypes` by default) and
//! `op(*inputs)`, which returns the default output, the only one or all.

use super::props::op_str;
use super::PyOp;
use crate::graph::apply::PyApply;
use pyo3::exceptions::{PyNotImplementedError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

pub(crate) fn return_list(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("return_list", true)?;
    Ok(d)
}

/// `op(*inputs, return_list=True)`.
pub(crate) fn call_with_list<'py>(
    op: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let args = PyTuple::new(op.py(), inputs.try_iter()?.collect::<PyResult<Vec<_>>>()?)?;
    op.call(args, Some(&return_list(op.py())?))
}

/// `__call__`'s own keywords: `name`, `return_list`, and the rest for `make_node`.
pub(crate) type CallKwargs<'py> = (Option<Bound<'py, PyAny>>, bool, Option<Bound<'py, PyDict>>);

/// `name=` and `return_list=` are `__call__`'s; the rest go to `make_node`.
pub(crate) fn split_call_kwargs<'py>(
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<CallKwargs<'py>> {
    let Some(kw) = kwargs else {
        return Ok((None, false, None));
    };
    let rest = kw.copy()?;
    let name = rest.get_item("name")?.filter(|n| !n.is_none());
    let return_list = rest
        .get_item("return_list")?
        .map(|r| r.is_truthy())
        .transpose()?
        .unwrap_or(false);
    let _ = rest.del_item("name");
    let _ = rest.del_item("return_list");
    Ok((name, return_list, (!rest.is_empty()).then_some(rest)))
}

/// `__call__(name=...)`: one output gets the name; else the default output;
/// else each output gets `name_i`.
pub(crate) fn name_outputs(
    outputs: &Bound<'_, PyList>,
    default: &Bound<'_, PyAny>,
    name: &Bound<'_, PyAny>,
) -> PyResult<()> {
    if outputs.len() == 1 {
        return outputs.get_item(0)?.setattr("name", name);
    }
    if !default.is_none() {
        return outputs
            .get_item(default.extract::<usize>()?)?
            .setattr("name", name);
    }
    for (i, out) in outputs.iter().enumerate() {
        out.setattr("name", format!("{name}_{i}"))?;
    }
    Ok(())
}

/// The default `make_node` for ops that declare `itypes` and `otypes`.
pub(crate) fn make_node_from_itypes<'py>(
    op: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = op.py();
    let (itypes, otypes) = (op.getattr("itypes")?, op.getattr("otypes")?);
    if itypes.is_none() || otypes.is_none() {
        return Err(PyNotImplementedError::new_err(format!(
            "{} must define make_node, or itypes and otypes",
            op.get_type().name()?
        )));
    }
    let given = inputs.len();
    let itypes = crate::errors::n_items(&itypes, given, |expected| {
        Ok(format!("We expected {expected} inputs but got {given}."))
    })?;
    let mut problems = Vec::new();
    for (i, (ity, inp)) in itypes.iter().zip(inputs.iter()).enumerate() {
        let got = inp.getattr("type")?;
        if !ity.call_method1("is_super", (&got,))?.is_truthy()? {
            problems.push(format!(
                " Input {}/{}: Expected {}, got {}",
                i + 1,
                itypes.len(),
                ity.str()?,
                got.str()?
            ));
        }
    }
    if !problems.is_empty() {
        return Err(PyTypeError::new_err(format!(
            "Invalid input types for Op {}:\n{}",
            op_str(op)?,
            problems.join("\n")
        )));
    }
    let outputs = PyList::empty(py);
    for oty in otypes.try_iter()? {
        outputs.append(oty?.call0()?)?;
    }
    let node = PyApply::create(
        py,
        op.clone().unbind(),
        PyList::new(py, inputs.iter())?,
        outputs,
    )?;
    Ok(node.into_any())
}

#[pymethods]
impl PyOp {
    /// Builds the node for these inputs. Built-in ops infer types in Rust;
    /// Python ops define `make_node`, or `itypes` and `otypes`.
    #[pyo3(signature = (*inputs))]
    pub(crate) fn make_node<'py>(
        slf: &Bound<'py, Self>,
        inputs: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let core = slf.borrow().core.clone();
        if let Some(core) = core {
            return Ok(crate::ops::make_node::builtin(
                slf.as_any(),
                &core,
                inputs.iter().collect(),
            )?
            .into_any());
        }
        make_node_from_itypes(slf.as_any(), inputs)
    }

    /// `make_node`, then the default output (or all outputs); see the seeds.
    #[pyo3(signature = (*inputs, **kwargs))]
    pub(crate) fn __call__<'py>(
        slf: &Bound<'py, Self>,
        inputs: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (name, return_list, kwargs) = split_call_kwargs(kwargs)?;
        let node = slf.call_method("make_node", inputs, kwargs.as_ref())?;
        let outputs = node.getattr("outputs")?.cast_into::<PyList>()?;
        let default = slf.getattr("default_output")?;
        if let Some(name) = &name {
            name_outputs(&outputs, &default, name)?;
        }
        if !default.is_none() {
            let out = outputs.get_item(default.extract::<usize>()?)?;
            return Ok(if return_list {
                PyList::new(slf.py(), [out])?.into_any()
            } else {
                out
            });
        }
        if return_list {
            return Ok(PyList::new(slf.py(), outputs.iter())?.into_any());
        }
        if outputs.len() == 1 {
            return outputs.get_item(0);
        }
        Ok(outputs.into_any())
    }
}
