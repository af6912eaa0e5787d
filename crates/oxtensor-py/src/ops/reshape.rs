//! `Shape`, `Shape_i` and `Reshape` (`oxtensor.tensor.shape`): a tensor's
//! shape as a graph value, and its reshaping.

use crate::ops::op::PyOp;
use crate::ops::props::{core_props, op_args, unit_op};
use oxtensor_core::ops::shape::{Reshape, Shape, ShapeI};
use pyo3::prelude::*;
use std::sync::Arc;

unit_op!(
    PyShape,
    Shape,
    "oxtensor.tensor.shape",
    "Shape",
    "`Shape`: the shape as an int64 vector."
);

#[pymethods]
impl PyShape {
    /// Only the input's shape matters, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![false]]
    }
}

/// `Shape_i(i)`: the length of axis `i`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.shape", name = "Shape_i")]
pub struct PyShapeI;

op_args!(PyShapeI, ["i"], []);

#[pymethods]
impl PyShapeI {
    #[new]
    fn new(i: usize) -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(ShapeI { i })).add_subclass(PyShapeI)
    }

    /// Only the input's shape matters, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![false]]
    }
}

core_props!(
    PyShapeI,
    ShapeI {
        /// The axis.
        i: usize,
    }
);

/// `Reshape(ndim)`: inputs are the tensor and its new shape.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.shape", name = "Reshape")]
pub struct PyReshape;

op_args!(PyReshape, ["ndim"], []);

#[pymethods]
impl PyReshape {
    #[new]
    fn new(ndim: usize) -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Reshape { ndim })).add_subclass(PyReshape)
    }

    /// PyTensor's flag: the static output shape follows the values of the
    /// shape's constant entries, so a rebuilt node is typed again.
    #[classattr]
    fn _output_type_depends_on_input_value() -> bool {
        true
    }

    /// The shape input changes the output's shape, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![true], vec![false]]
    }
}

core_props!(
    PyReshape,
    Reshape {
        /// The output rank.
        ndim: usize,
    }
);
