//! DebugMode's side of the extension: its findings raised as the Python
//! classes of their names (`oxtensor.compile.debug.debugmode`), the
//! comparison tolerances, which `oxtensor.tensor.math._allclose` shares,
//! and the witness of a function's replacements linked with host thunks
//! for its Python ops.

use crate::graph::fgraph::PyFunctionGraph;
use oxtensor_core::compile::debug::{tolerance, DebugModeError, FieldValue};
use oxtensor_core::dtype::DType;
use oxtensor_core::vm::Witness;
use pyo3::prelude::*;

/// A DebugMode finding as the exception class of its name
/// (`oxtensor.compile.debug.debugmode.BadViewMap`, ...), with the node, op
/// and indices as attributes (`idx` is the input of a `BadDestroyMap`, as
/// in PyTensor).
pub fn debugmode_pyerr(e: &DebugModeError, msg: String) -> PyErr {
    Python::attach(|py| {
        let made = (|| -> PyResult<PyErr> {
            let module = py.import("oxtensor.compile.debug.debugmode")?;
            let kwargs = pyo3::types::PyDict::new(py);
            for (name, value) in e.fields() {
                match value {
                    FieldValue::Text(text) => kwargs.set_item(name, text)?,
                    FieldValue::Index(i) => kwargs.set_item(name, i)?,
                    FieldValue::Indices(is) => kwargs.set_item(name, is)?,
                    FieldValue::MaybeIndex(i) => kwargs.set_item(name, i)?,
                }
            }
            let cls = module.getattr(e.class_name())?;
            Ok(PyErr::from_value(cls.call((msg.clone(),), Some(&kwargs))?))
        })();
        made.unwrap_or_else(|err| err)
    })
}

/// `(atol, rtol)` DebugMode compares results of `dtype` with.
#[pyfunction]
pub fn debug_tolerance(dtype: &str) -> PyResult<(f64, f64)> {
    let d: DType = dtype.parse().map_err(crate::errors::to_pyerr)?;
    Ok(tolerance(d))
}

/// DebugMode's witness of `fg`'s replacements (the core's
/// `compile/debug/witness.rs`), its Python ops run by host thunks; `None`
/// when nothing was recorded. A witness that cannot be linked (a replaced
/// graph holding a Python op with no Python node) is a warning: the
/// function still runs every other check.
pub fn link_witness(py: Python<'_>, fg: &PyFunctionGraph) -> PyResult<Option<Witness>> {
    let linked = oxtensor_core::compile::debug::link_witness(fg.core()?, |w| {
        fg.host_thunks(py, w, false)
            .map_err(crate::errors::from_pyerr)
    });
    match linked {
        Ok(w) => Ok(w),
        Err(e) => {
            let msg =
                format!("DebugMode cannot check this function's rewrites (BadOptimization): {e}");
            crate::compile::warn_all(py, &[msg])?;
            Ok(None)
        }
    }
}
