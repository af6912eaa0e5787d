//! An op's derivatives as the seeds define them: `grad`, `L_op` and
//! `pullback` forward to whichever a subclass overrides; `R_op` and
//! `pushforward` likewise; `inplace_on_inputs`.

use super::call::call_with_list;
use super::props::{op_str, overrides};
use super::PyOp;
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;
use pyo3::types::PyList;

#[pymethods]
impl PyOp {
    /// The seeds' gradient method. Ops override it (or `L_op`/`pullback`);
    /// the base forwards to an overridden `pullback`/`L_op`, else raises
    /// `NotImplementedError`: a missing gradient is taken as forgotten.
    pub(crate) fn grad<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        output_grads: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        for method in ["pullback", "L_op"] {
            if overrides(slf.as_any(), method)? {
                let outputs = call_with_list(slf.as_any(), &inputs)?;
                return slf.call_method1(method, (inputs, outputs, output_grads));
            }
        }
        not_implemented(slf.as_any(), "grad not implemented for Op ")
    }

    /// `L_op(inputs, outputs, output_grads)`: `pullback` if overridden, else `grad`.
    #[allow(non_snake_case)]
    pub(crate) fn L_op<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        outputs: Bound<'py, PyAny>,
        output_grads: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if overrides(slf.as_any(), "pullback")? {
            return slf.call_method1("pullback", (inputs, outputs, output_grads));
        }
        slf.call_method1("grad", (inputs, output_grads))
    }

    /// PyTensor 3.x's name for the vector-Jacobian product: forwards to an
    /// overridden `L_op` or `grad`.
    pub(crate) fn pullback<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        outputs: Bound<'py, PyAny>,
        cotangents: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if overrides(slf.as_any(), "L_op")? {
            return slf.call_method1("L_op", (inputs, outputs, cotangents));
        }
        if overrides(slf.as_any(), "grad")? {
            return slf.call_method1("grad", (inputs, cotangents));
        }
        not_implemented(slf.as_any(), "pullback not implemented for ")
    }

    /// The seeds' R-operator. The base forwards to an overridden `pushforward`.
    #[allow(non_snake_case)]
    pub(crate) fn R_op<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        eval_points: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if overrides(slf.as_any(), "pushforward")? {
            let outputs = call_with_list(slf.as_any(), &inputs)?;
            let tangents = none_to_disconnected(&eval_points)?;
            let result = slf.call_method1("pushforward", (inputs, outputs, tangents))?;
            return Ok(disconnected_to_none(&result)?.into_any());
        }
        not_implemented(slf.as_any(), "R_op not implemented for Op ")
    }

    /// PyTensor 3.x's name for the Jacobian-vector product: forwards to an overridden `R_op`.
    pub(crate) fn pushforward<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        outputs: Bound<'py, PyAny>,
        tangents: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = outputs;
        if overrides(slf.as_any(), "R_op")? {
            let points = disconnected_to_none(&tangents)?;
            let result = slf.call_method1("R_op", (inputs, points))?;
            return Ok(none_to_disconnected(&result)?.into_any());
        }
        not_implemented(slf.as_any(), "pushforward not implemented for ")
    }

    /// An inplace version of this op on some of the allowed inputs; the base returns the op itself.
    pub(crate) fn inplace_on_inputs(
        slf: &Bound<'_, Self>,
        allowed_inplace_inputs: Bound<'_, PyAny>,
    ) -> Py<PyAny> {
        let _ = allowed_inplace_inputs;
        slf.clone().into_any().unbind()
    }
}

/// PyTensor's `NotImplementedError` for a derivative no subclass provides
/// (`message` followed by the op), as the `Err` the method returns.
fn not_implemented<T>(op: &Bound<'_, PyAny>, message: &str) -> PyResult<T> {
    Err(PyNotImplementedError::new_err(format!(
        "{message}{}",
        op_str(op)?
    )))
}

/// `None` entries as disconnected variables: `R_op`'s missing eval points
/// as `pushforward`'s tangents, and back.
fn none_to_disconnected<'py>(items: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let disconnected = crate::gradient::types::disconnected_variable(items.py())?;
    let out = PyList::empty(items.py());
    for item in items.try_iter()? {
        let item = item?;
        out.append(if item.is_none() {
            disconnected.clone()
        } else {
            item
        })?;
    }
    Ok(out)
}

/// Entries of `DisconnectedType` as `None`: the inverse of
/// [`none_to_disconnected`].
fn disconnected_to_none<'py>(items: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let py = items.py();
    let out = PyList::empty(py);
    for item in items.try_iter()? {
        let item = item?;
        let disconnected = item
            .getattr("type")?
            .is_instance_of::<crate::graph::types::PyDisconnectedType>();
        out.append(if disconnected {
            py.None().into_bound(py)
        } else {
            item
        })?;
    }
    Ok(out)
}
