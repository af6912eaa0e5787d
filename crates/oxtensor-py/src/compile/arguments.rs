//! A call's arguments: positional and keyword values matched to the
//! inputs, checked and converted to core values (a bad one named by its
//! input), and the shared variables' values appended.

use super::function::{PyFunction, Values};
use crate::convert::array::{exact_view, writable_view};
use crate::graph::types::PyTensorType;
use crate::ops::host_thunk::value_from_py;
use oxtensor_core::value::Value;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

impl PyFunction {
    /// The shared variables with `swap`'s replacements: keys must be shared
    /// variables and each replacement must have its original's type.
    pub(crate) fn swapped_shared<'py>(
        &self,
        py: Python<'py>,
        swap: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let shared_class = py
            .import("oxtensor.compile.sharedvalue")?
            .getattr("SharedVariable")?;
        if let Some(swap) = swap {
            for (old, new) in swap.iter() {
                for v in [&old, &new] {
                    if !v.is_instance(&shared_class)? {
                        return Err(PyTypeError::new_err(format!(
                            "Function.copy(swap=...) maps shared variables to shared variables; {} is a {}",
                            v.str()?,
                            v.get_type().name()?
                        )));
                    }
                }
            }
        }
        self.shared
            .iter()
            .map(|s| {
                let old = s.var.bind(py);
                let Some(new) = swap.map(|d| d.get_item(old)).transpose()?.flatten() else {
                    return Ok(old.clone());
                };
                let (was, now) = (old.getattr("type")?, new.getattr("type")?);
                if !was.eq(&now)? {
                    return Err(PyTypeError::new_err(format!(
                        "Type of given SharedVariable conflicts with original one: {} has type {}, {} has type {}",
                        new.str()?,
                        now.str()?,
                        old.str()?,
                        was.str()?
                    )));
                }
                Ok(new)
            })
            .collect()
    }

    pub(crate) fn label(&self) -> String {
        self.name.clone().map_or_else(
            || "oxtensor function".into(),
            |n| format!("oxtensor function with name \"{n}\""),
        )
    }

    /// The arguments in input order, from positions and keywords.
    pub(crate) fn collect_args<'py>(
        &self,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let n = self.inputs.len();
        if args.len() > n {
            return Err(PyTypeError::new_err(format!(
                "{} takes {n} arguments but {} were given",
                self.label(),
                args.len()
            )));
        }
        let mut out: Vec<Option<Bound<'py, PyAny>>> = args
            .iter()
            .map(Some)
            .chain(std::iter::repeat_n(None, n - args.len()))
            .collect();
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                let key = k.str()?.to_string();
                let pos = self
                    .inputs
                    .iter()
                    .position(|s| s.name.as_deref() == Some(key.as_str()))
                    .ok_or_else(|| {
                        PyTypeError::new_err(format!(
                            "{} got an unexpected keyword argument '{key}'",
                            self.label()
                        ))
                    })?;
                if out[pos].is_some() {
                    return Err(PyTypeError::new_err(format!(
                        "{} got multiple values for argument '{key}'",
                        self.label()
                    )));
                }
                out[pos] = Some(v);
            }
        }
        out.into_iter()
            .enumerate()
            .map(|(i, a)| {
                a.ok_or_else(|| {
                    let name = self.inputs[i]
                        .name
                        .clone()
                        .unwrap_or_else(|| format!("at index {i}"));
                    PyTypeError::new_err(format!(
                        "Missing required input: {name} ({} expects {n} arguments)",
                        self.label()
                    ))
                })
            })
            .collect()
    }

    /// An argument as a value of its input's type: an ndarray of the exact
    /// dtype and a fitting shape is used as is; anything else goes through
    /// the type's `filter`.
    pub(crate) fn convert(&self, i: usize, arg: &Bound<'_, PyAny>) -> PyResult<Value> {
        let spec = &self.inputs[i];
        let py = arg.py();
        if let Some(tt) = spec
            .tensor
            .as_ref()
            .filter(|_| self.program.destroys_input(i))
        {
            if let Some(t) = writable_view(arg, tt.dtype, |shape| tt.fits(shape))? {
                return Ok(Value::Tensor(t));
            }
        }
        if let Some(tt) = &spec.tensor {
            let bytes = self.program.takes_bool_bytes(i);
            if let Some(t) = exact_view(arg, tt.dtype, |shape| tt.fits(shape), bytes)? {
                return Ok(Value::Tensor(t));
            }
        }
        // PyTensor's compiled code refuses such an argument with a
        // `ValueError` ("expected an ndarray"), which callers catch.
        if self.trust_input && spec.tensor.is_some() {
            return Err(PyValueError::new_err(format!(
                "{} was called with trust_input=True but argument {i} is not an ndarray of type {}",
                self.label(),
                spec.ty.bind(py).str()?
            )));
        }
        // Only the options set are passed (as PyTensor does), so a type
        // whose `filter` takes the value alone works.
        let kwargs = PyDict::new(py);
        if spec.strict {
            kwargs.set_item("strict", true)?;
        }
        if let Some(downcast) = spec.allow_downcast {
            kwargs.set_item("allow_downcast", downcast)?;
        }
        let filtered = spec
            .ty
            .bind(py)
            .call_method("filter", (arg,), Some(&kwargs))
            .map_err(|e| self.bad_input(py, i, e))?;
        value_from_py(&filtered, spec.ty.bind(py))
    }

    /// PyTensor's "Bad input argument" message around a filter error.
    pub(crate) fn bad_input(&self, py: Python<'_>, i: usize, e: PyErr) -> PyErr {
        let name = self.inputs[i]
            .name
            .clone()
            .map_or_else(|| "with no name".into(), |n| format!("with name \"{n}\""));
        let msg = format!(
            "Bad input argument {name} to {} at index {i} (0-based).\n{}",
            self.label(),
            e.value(py)
        );
        if e.is_instance_of::<PyValueError>(py) {
            PyValueError::new_err(msg)
        } else if e.is_instance_of::<PyOverflowError>(py) {
            PyOverflowError::new_err(msg)
        } else {
            PyTypeError::new_err(msg)
        }
    }

    /// Appends the arguments as values in input order, then the shared
    /// variables', to `values` (an inline vector of the caller's: it is
    /// filled in place, since moving one costs a copy of all its slots).
    pub(crate) fn values(
        &self,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        values: &mut Values,
    ) -> PyResult<()> {
        let py = args.py();
        if kwargs.is_none_or(|kw| kw.is_empty()) && args.len() == self.inputs.len() {
            // The common call, all positional: no matching to do.
            for (i, a) in args.iter_borrowed().enumerate() {
                values.push(self.convert(i, &a)?);
            }
        } else {
            for (i, a) in self.collect_args(args, kwargs)?.iter().enumerate() {
                values.push(self.convert(i, a)?);
            }
        }
        self.push_shared(py, values)
    }

    /// Appends the shared variables' current values.
    pub(crate) fn push_shared(&self, py: Python<'_>, values: &mut Values) -> PyResult<()> {
        for (k, s) in self.shared.iter().enumerate() {
            let value = s.var.bind(py).call_method1("get_value", (true,))?;
            values.push(self.shared_value(k, &value, s.ty.bind(py))?);
        }
        Ok(())
    }

    /// Shared variable `k`'s value for a call: a writable view of its own
    /// array when the program destroys it (its update runs in place).
    pub(crate) fn shared_value(
        &self,
        k: usize,
        value: &Bound<'_, PyAny>,
        ty: &Bound<'_, PyAny>,
    ) -> PyResult<Value> {
        // Only when this function applies the update (a copy made with
        // `delete_updates` runs the same program and must leave it alone).
        if self.updates.contains(&k) && self.program.destroys_input(self.inputs.len() + k) {
            if let Ok(tt) = ty.cast::<PyTensorType>() {
                let tt = &tt.get().inner;
                if let Some(t) = writable_view(value, tt.dtype, |shape| tt.fits(shape))? {
                    return Ok(Value::Tensor(t));
                }
            }
        }
        value_from_py(value, ty)
    }
}
