//! `Shape`, `Shape_i` and `Reshape` (`oxtensor.tensor.shape`): a tensor's
//! shape as a graph value, and its reshaping.

use crate::ops::op::PyOp;
use crate::ops::props::{core_of, new_args, NewArgs};
use oxtensor_core::ops::shape::{Reshape, Shape, ShapeI};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// `Shape`: the shape as an int64 vector.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.shape", name = "Shape")]
pub struct PyShape;

#[pymethods]
impl PyShape {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Shape)).add_subclass(PyShape)
    }

    /// `Shape()` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &[], &[])
    }

    #[classattr]
    fn __props__<'py>(py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }

    /// Only the input's shape matters, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![false]]
    }
}

/// `Shape_i(i)`: the length of axis `i`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.shape", name = "Shape_i")]
pub struct PyShapeI;

#[pymethods]
impl PyShapeI {
    #[new]
    fn new(i: usize) -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(ShapeI { i })).add_subclass(PyShapeI)
    }

    #[classattr]
    fn __props__() -> (&'static str,) {
        ("i",)
    }

    /// `Shape_i(i)` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &["i"], &[])
    }

    /// The axis.
    #[getter]
    fn i(slf: PyRef<'_, Self>) -> PyResult<usize> {
        Ok(core_of::<ShapeI>(slf.as_super())?.i)
    }

    /// Only the input's shape matters, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![false]]
    }
}

/// `Reshape(ndim)`: inputs are the tensor and its new shape.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.shape", name = "Reshape")]
pub struct PyReshape;

#[pymethods]
impl PyReshape {
    #[new]
    fn new(ndim: usize) -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Reshape { ndim })).add_subclass(PyReshape)
    }

    #[classattr]
    fn __props__() -> (&'static str,) {
        ("ndim",)
    }

    /// `Reshape(ndim)` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &["ndim"], &[])
    }

    /// The output rank.
    #[getter]
    fn ndim(slf: PyRef<'_, Self>) -> PyResult<usize> {
        Ok(core_of::<Reshape>(slf.as_super())?.ndim)
    }

    /// The shape input changes the output's shape, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![true], vec![false]]
    }
}
