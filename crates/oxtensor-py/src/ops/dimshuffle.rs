//! `DimShuffle` (`oxtensor.tensor.elemwise`): reorder, drop and insert
//! axes; instances are shared, one per `(input_ndim, new_order)`.

use crate::errors::IntoPyResult;
use crate::ops::classes::core_op;
use crate::ops::op::PyOp;
use crate::ops::props::{cached, op_args, view_of_input, InstanceCache};
use crate::ops::props::{core_of, core_props};
use oxtensor_core::ops::dimshuffle::{Axis, DimShuffle};
use oxtensor_core::ops::OpRef;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};
use smallvec::SmallVec;
use std::sync::Arc;

/// `DimShuffle(input_ndim=..., new_order=...)`, with `"x"` for new axes.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.elemwise", name = "DimShuffle")]
pub struct PyDimShuffle;

/// Reads a `new_order` of ints and `"x"`.
pub fn parse_order(order: &Bound<'_, PyAny>) -> PyResult<Vec<Axis>> {
    order
        .try_iter()?
        .map(|a| {
            let a = a?;
            if a.cast::<PyString>()
                .is_ok_and(|s| s.to_str().is_ok_and(|s| s == "x"))
            {
                return Ok(None);
            }
            let i: i64 = a.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "DimShuffle indices must be Python ints or 'x'; got {}",
                    a.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            usize::try_from(i).map(Some).map_err(|_| {
                PyTypeError::new_err(format!("DimShuffle indices must be non-negative, got {i}"))
            })
        })
        .collect()
}

op_args!(PyDimShuffle, [], ["input_ndim", "new_order"]);

#[pymethods]
impl PyDimShuffle {
    #[new]
    #[pyo3(signature = (*, input_ndim, new_order))]
    fn new(
        input_ndim: Bound<'_, PyAny>,
        new_order: Bound<'_, PyAny>,
    ) -> PyResult<PyClassInitializer<Self>> {
        // A bool is an int to Python, not a rank (PyTensor's check).
        let rank = (!input_ndim.is_instance_of::<pyo3::types::PyBool>())
            .then(|| input_ndim.extract::<usize>().ok())
            .flatten()
            .ok_or_else(|| {
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "input_ndim must be an integer, got {}",
                    input_ndim.get_type()
                ))
            })?;
        let core = DimShuffle::new(rank, parse_order(&new_order)?).py()?;
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyDimShuffle))
    }

    /// The order, `"x"` for new axes.
    #[getter]
    fn new_order<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let order = &core_of::<DimShuffle>(slf.as_super())?.new_order;
        let items: Vec<Bound<'py, PyAny>> = order
            .iter()
            .map(|a| match a {
                Some(i) => Ok(i.into_pyobject(py)?.into_any()),
                None => Ok(PyString::new(py, "x").into_any()),
            })
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, items)
    }

    /// The output is a view of the input.
    #[getter]
    fn view_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        view_of_input(py)
    }
}

core_props!(PyDimShuffle, DimShuffle {
    /// The input's rank.
    input_ndim: usize,
    /// Kept input axes, in output order.
    shuffle: Vec<usize> = |c| c.shuffle(),
    /// Dropped input axes.
    drop: Vec<usize> = |c| c.drop(),
    /// Output positions of new axes.
    augment: Vec<usize> = |c| c.augment(),
});

/// `DimShuffle` instances by `(input_ndim, new_order)`; the order inline,
/// so a lookup allocates nothing.
static SHARED: InstanceCache<(usize, SmallVec<[Axis; 6]>)> = PyOnceLock::new();

/// The shared Python object of a `DimShuffle` (the op is immutable).
pub fn object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    let d = core_op::<DimShuffle>(core)?;
    let key = (d.input_ndim, SmallVec::from_slice(&d.new_order));
    cached(py, &SHARED, &key, || {
        Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass(PyDimShuffle))?.into_any())
    })
}
