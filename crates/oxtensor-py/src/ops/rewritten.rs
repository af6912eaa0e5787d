//! Python classes of the ops only rewrites create (`Argmin` from
//! `local_argmax_of_reversed`, `CentredSquares` from
//! `local_sum_sqr_deviations`), so a compiled function's graph comes back
//! to Python with them. Each holds its core op.

use crate::graph::types::parse_dtype;
use crate::ops::op::PyOp;
use crate::ops::props::{core_of, core_props, op_args};
use crate::ops::special::{axes_class, axes_tuple, constructor_axes};
use oxtensor_core::dtype::DType;
use oxtensor_core::ops::argmin::Argmin;
use oxtensor_core::ops::centred_squares::CentredSquares;
use pyo3::prelude::*;
use std::sync::Arc;

axes_class!(
    PyArgmin,
    Argmin,
    "Argmin",
    "`Argmin(axis)`: int64 positions of the minima (PyTensor computes `argmin` \
     as `Argmax` of the negated input; specialize makes it this)."
);

/// `CentredSquares(axis, mean_acc, sum_acc)`: the sum of squared
/// deviations from the mean over `axis` (`var`'s numerator), the mean
/// divided by the op's other inputs.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.math", name = "CentredSquares")]
pub struct PyCentredSquares;

op_args!(PyCentredSquares, [], ["axis", "mean_acc", "sum_acc"]);

#[pymethods]
impl PyCentredSquares {
    #[new]
    #[pyo3(signature = (axis = None, mean_acc = None, sum_acc = None))]
    fn new(
        axis: Option<Bound<'_, PyAny>>,
        mean_acc: Option<Bound<'_, PyAny>>,
        sum_acc: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let acc = |d: Option<Bound<'_, PyAny>>| d.map_or(Ok(DType::Float64), |d| parse_dtype(&d));
        let op = CentredSquares {
            axis: constructor_axes("CentredSquares", axis)?,
            mean_acc: acc(mean_acc)?,
            sum_acc: acc(sum_acc)?,
        };
        Ok(PyOp::builtin(Arc::new(op)).add_subclass(PyCentredSquares))
    }

    /// The reduced axes as a tuple, or `None` for all.
    #[getter]
    fn axis(slf: PyRef<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        axes_tuple(py, core_of::<CentredSquares>(slf.as_super())?.axis.clone())
    }
}

core_props!(PyCentredSquares, CentredSquares {
    /// The accumulator dtype of the mean's sum.
    mean_acc: &'static str = |c| c.mean_acc.name(),
    /// The accumulator dtype of the squares' sum.
    sum_acc: &'static str = |c| c.sum_acc.name(),
});
