//! `ExtractDiag` and `AllocDiag` as Python classes
//! (`oxtensor.tensor.basic.ExtractDiag`, `oxtensor.tensor.basic.AllocDiag`).

use crate::ops::op::PyOp;
use crate::ops::props::{core_of, core_props, op_args, view_of_input};
use oxtensor_core::ops::diagonal::{AllocDiag, DiagSpec, ExtractDiag};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// The diagonal both ops name by the same three constructor arguments.
fn diag_spec(offset: i64, axis1: i64, axis2: i64) -> DiagSpec {
    DiagSpec {
        offset,
        axis1,
        axis2,
    }
}

/// The props both classes read from their core op's `DiagSpec`.
macro_rules! spec_props {
    ($py:ty, $core:ty) => {
        core_props!(
            $py,
            $core {
                /// Which diagonal (`> 0`: above the main one).
                offset: i64 = |c| c.spec.offset,
                /// The row axis of the blocks holding the diagonal.
                axis1: i64 = |c| c.spec.axis1,
                /// The column axis of those blocks.
                axis2: i64 = |c| c.spec.axis2,
            }
        );
    };
}

/// `ExtractDiag(offset=0, axis1=0, axis2=1, view=False)`: diagonal `offset`
/// of the blocks spanned by `axis1` and `axis2`, as a last axis.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.basic", name = "ExtractDiag")]
pub struct PyExtractDiag;

op_args!(PyExtractDiag, ["offset", "axis1", "axis2", "view"], []);

#[pymethods]
impl PyExtractDiag {
    #[new]
    #[pyo3(signature = (offset = 0, axis1 = 0, axis2 = 1, view = false))]
    fn new(offset: i64, axis1: i64, axis2: i64, view: bool) -> PyClassInitializer<Self> {
        let spec = diag_spec(offset, axis1, axis2);
        PyOp::builtin(Arc::new(ExtractDiag { spec, view })).add_subclass(PyExtractDiag)
    }

    /// `{0: [0]}` with `view`, else empty.
    #[getter]
    fn view_map<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        if core_of::<ExtractDiag>(slf.as_super())?.view {
            view_of_input(py)
        } else {
            Ok(PyDict::new(py))
        }
    }
}

spec_props!(PyExtractDiag, ExtractDiag);
core_props!(
    PyExtractDiag,
    ExtractDiag {
        /// Whether the output is a view of the input.
        view: bool,
    }
);

/// `AllocDiag(offset=0, axis1=0, axis2=1)`: zeros with the input's last
/// axis on diagonal `offset`; optional inputs give the two block lengths.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.basic", name = "AllocDiag")]
pub struct PyAllocDiag;

op_args!(PyAllocDiag, ["offset", "axis1", "axis2"], []);

#[pymethods]
impl PyAllocDiag {
    #[new]
    #[pyo3(signature = (offset = 0, axis1 = 0, axis2 = 1))]
    fn new(offset: i64, axis1: i64, axis2: i64) -> PyClassInitializer<Self> {
        let spec = diag_spec(offset, axis1, axis2);
        PyOp::builtin(Arc::new(AllocDiag { spec })).add_subclass(PyAllocDiag)
    }
}

spec_props!(PyAllocDiag, AllocDiag);
