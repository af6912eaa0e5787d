//! A call's results: outputs that would alias an input, a constant or
//! another output are copied, shared updates are applied (unless computed
//! in place), and the outputs become Python values.

use super::function::{PyFunction, Values};
use crate::convert::array::{array_copied, copies_out};
use crate::ops::host_thunk::value_to_py;
use oxtensor_core::kernels::copy::copy_contiguous;
use oxtensor_core::value::Value;
use pyo3::prelude::*;
use pyo3::types::PyList;
use smallvec::SmallVec;
use std::sync::Arc;

impl PyFunction {
    /// Copies outputs that share memory with an input, a constant, an
    /// earlier output or a later borrowed one, unless that output is borrowed.
    /// An update computed in place in its shared variable, or taking over
    /// another's released array (`kept`), is left as it is.
    pub(crate) fn unalias(
        &self,
        inputs: &[Value],
        outputs: &mut [Value],
        kept: &[bool],
    ) -> PyResult<()> {
        let borrow = |j: usize| {
            self.borrow.get(j).copied().unwrap_or(false)
                || j.checked_sub(self.n_outputs)
                    .and_then(|u| kept.get(u))
                    .copied()
                    .unwrap_or(false)
        };
        for k in 0..outputs.len() {
            let Value::Tensor(t) = &outputs[k] else {
                continue;
            };
            let borrowed = borrow(k);
            // A borrowed output keeps the memory, so a plain one sharing it
            // is copied whichever comes first.
            let shares_output = outputs.iter().enumerate().any(|(j, v)| {
                (j < k || (j > k && borrow(j)))
                    && matches!(v, Value::Tensor(o) if o.shares_buffer(t))
            });
            let same_buffer =
                |v: &Value| matches!(v, Value::Tensor(i) if Arc::ptr_eq(i.buffer(), t.buffer()));
            let aliased = !t.buffer().is_rust_owned()
                || self.program.aliases_constant(t)
                || inputs.iter().any(same_buffer)
                || shares_output;
            // As in PyTensor, an output may alias a caller's argument only
            // when both the output and the input (`In(borrow=True)`) say so.
            let pins_argument = inputs
                .iter()
                .zip(&self.inputs)
                .any(|(v, spec)| !spec.borrow && same_buffer(v));
            if (aliased && !borrowed) || pins_argument {
                outputs[k] = Value::Tensor(copy_contiguous(t).map_err(crate::errors::to_pyerr)?);
            }
        }
        Ok(())
    }

    /// An output as a Python object: a small tensor is copied into an array
    /// NumPy owns and its buffer goes back to the program for the next call
    /// (see `array::copies_out`); anything else is handed over as it is.
    /// Output `k` of a scalar type becomes a NumPy scalar, as PyTensor's;
    /// a borrowed constant output is the constant's own `data`.
    pub(crate) fn output_to_py<'py>(
        &self,
        py: Python<'py>,
        v: Value,
        k: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        if self.scalar_outputs.get(k).copied().unwrap_or(false) {
            let arr = value_to_py(py, &v, true)?;
            return arr.get_item(pyo3::types::PyTuple::empty(py));
        }
        if let Some(Some(data)) = self.constant_outputs.get(k) {
            return Ok(data.bind(py).clone());
        }
        match v {
            Value::Tensor(t) if copies_out(&t) => {
                let arr = array_copied(py, &t)?;
                self.program.recycle(t);
                Ok(arr)
            }
            v => value_to_py(py, &v, true),
        }
    }

    /// Whether update `u` (output `n_outputs + u`) was computed in place in
    /// its shared variable's own array: the destroyed argument's buffer,
    /// a view of that array (made by [`PyFunction::shared_value`]). The
    /// variable then already holds the new value.
    pub(crate) fn updated_in_place(&self, values: &[Value], outputs: &[Value], u: usize) -> bool {
        let (Some(&k), Some(Value::Tensor(out))) =
            (self.updates.get(u), outputs.get(self.n_outputs + u))
        else {
            return false;
        };
        let Some(Value::Tensor(arg)) = values.get(self.inputs.len() + k) else {
            return false;
        };
        Arc::ptr_eq(arg.buffer(), out.buffer())
            && !arg.buffer().is_rust_owned()
            && arg.offset() == out.offset()
            && arg.shape() == out.shape()
            && arg.strides() == out.strides()
            && arg.dtype() == out.dtype()
    }

    /// Which updates may keep the memory of another shared variable's
    /// array (PyTensor's `updates=[(a, b), (b, a)]` swaps without copies):
    /// update `u`'s value lies in the array of a shared variable that is
    /// itself updated, so that array is released to `u`, and no other
    /// update's value lies in that array (shared variables never alias).
    pub(crate) fn takes_released_array(&self, values: &[Value], outputs: &[Value]) -> Vec<bool> {
        let n_in = self.inputs.len();
        let update_value = |u: usize| match outputs.get(self.n_outputs + u) {
            Some(Value::Tensor(t)) => Some(t),
            _ => None,
        };
        let released = |u: usize| {
            let t = update_value(u)?;
            self.updates.iter().position(|&j| {
                j != self.updates[u]
                    && matches!(values.get(n_in + j), Some(Value::Tensor(a))
                        if !a.buffer().is_rust_owned() && Arc::ptr_eq(a.buffer(), t.buffer()))
            })
        };
        (0..self.updates.len())
            .map(|u| {
                released(u).is_some_and(|_| {
                    let t = update_value(u).map(|t| t.buffer());
                    (0..self.updates.len()).all(|o| {
                        o == u
                            || update_value(o)
                                .is_none_or(|v| t.is_none_or(|b| !Arc::ptr_eq(b, v.buffer())))
                    })
                })
            })
            .collect()
    }

    /// Runs the program on the argument `values` (inputs, then shared
    /// variables) and returns the outputs, applying the updates.
    /// (`values` by reference: moving the inline vector copies all its slots.)
    pub(crate) fn finish(&self, py: Python<'_>, values: &Values) -> PyResult<Py<PyAny>> {
        let program = &self.program;
        // Releasing the GIL costs more than a small run; a run that calls
        // back into Python always releases it (see `Program::is_small_run`).
        let run = || {
            crate::errors::panics::guard(|| program.run(values).map_err(crate::errors::to_pyerr))
        };
        let mut outputs = if program.is_small_run(values) {
            run()
        } else {
            py.detach(run)
        }?;
        let in_place: SmallVec<[bool; 4]> = (0..self.updates.len())
            .map(|u| self.updated_in_place(values, &outputs, u))
            .collect();
        let kept: SmallVec<[bool; 4]> = self
            .takes_released_array(values, &outputs)
            .into_iter()
            .zip(&in_place)
            .map(|(swapped, &own)| swapped || own)
            .collect();
        self.unalias(values, &mut outputs, &kept)?;
        for (u, (value, &k)) in outputs
            .drain(self.n_outputs..)
            .zip(&self.updates)
            .enumerate()
        {
            if in_place[u] {
                continue;
            }
            let obj = value_to_py(py, &value, true)?;
            self.shared[k]
                .var
                .bind(py)
                .call_method1("set_value", (obj, true))?;
        }
        if self.single {
            return match outputs.into_iter().next() {
                Some(v) => Ok(self.output_to_py(py, v, 0)?.unbind()),
                None => Ok(py.None()),
            };
        }
        let results = outputs
            .into_iter()
            .enumerate()
            .map(|(k, v)| self.output_to_py(py, v, k))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, results)?.into_any().unbind())
    }
}
