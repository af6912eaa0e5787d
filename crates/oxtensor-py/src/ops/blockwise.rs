//! `Blockwise` as a Python class (`oxtensor.tensor.blockwise.Blockwise`):
//! a built-in op or a Python op wrapped with a gufunc signature. The core
//! op (`ops/blockwise/`) does the work; this file reads the arguments.

use crate::errors::IntoPyResult;
use crate::ops::classes::op_object;
use crate::ops::host_op::HostOp;
use crate::ops::op::PyOp;
use crate::ops::props::{core_of, core_props, op_args};
use oxtensor_core::ops::blockwise::{Blockwise, Signature};
use oxtensor_core::ops::OpRef;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// `Blockwise(core_op, signature=None)`: `core_op` over the leading batch
/// axes its signature leaves (`"(m,n),(n)->(m)"`); without a signature,
/// the op's `gufunc_signature`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.blockwise", name = "Blockwise")]
pub struct PyBlockwise;

op_args!(PyBlockwise, ["core_op", "signature"], []);

/// The core op of a Python op object: a built-in's own, or a host adapter.
pub(crate) fn op_ref(op: &Bound<'_, PyAny>) -> PyResult<OpRef> {
    if let Ok(o) = op.cast::<PyOp>() {
        if let Some(core) = &o.borrow().core {
            return Ok(core.clone());
        }
    }
    Ok(Arc::new(HostOp::new(op)?))
}

/// The signature given, else the op's `gufunc_signature` (core or Python).
fn signature_of(op: &Bound<'_, PyAny>, core: &OpRef, given: Option<String>) -> PyResult<String> {
    if let Some(s) = given.or_else(|| core.gufunc_signature().map(str::to_owned)) {
        return Ok(s);
    }
    match op.getattr("gufunc_signature") {
        Ok(s) if !s.is_none() => s.extract(),
        _ => Err(PyValueError::new_err(format!(
            "Blockwise needs a signature: {} has no gufunc_signature",
            op.str()?
        ))),
    }
}

#[pymethods]
impl PyBlockwise {
    #[new]
    #[pyo3(signature = (core_op, signature = None, **_kwargs))]
    fn new(
        core_op: &Bound<'_, PyAny>,
        signature: Option<String>,
        _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let core = op_ref(core_op)?;
        let text = signature_of(core_op, &core, signature)?;
        let op = Blockwise::new(core, Signature::parse(&text).py()?).py()?;
        Ok(PyOp::builtin(Arc::new(op)).add_subclass(PyBlockwise))
    }

    /// The op computed on each batch entry.
    #[getter]
    fn core_op(slf: PyRef<'_, Self>) -> PyResult<Py<PyAny>> {
        let core = core_of::<Blockwise>(slf.as_super())?.core_op.clone();
        op_object(slf.py(), &core)
    }
}

core_props!(
    PyBlockwise,
    Blockwise {
        /// The gufunc signature, NumPy's spelling.
        signature: String = |c| c.signature.to_string(),
    }
);

/// Dim names per operand: the inputs', then the outputs'.
type DimNames = (Vec<Vec<String>>, Vec<Vec<String>>);

/// The core dim names of each input and output of a gufunc signature
/// (PyTensor's `_parse_gufunc_signature`).
#[pyfunction]
pub fn _parse_gufunc_signature(signature: &str) -> PyResult<DimNames> {
    let s = Signature::parse(signature).py()?;
    Ok((s.inputs, s.outputs))
}
