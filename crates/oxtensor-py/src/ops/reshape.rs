//! `Shape`, `Shape_i` and `Reshape` (`oxtensor.tensor.shape`): a tensor's
//! shape as a graph value, and its reshaping.

use crate::ops::props::{field_op, unit_op};
use oxtensor_core::ops::shape::{Reshape, Shape, ShapeI};
use pyo3::prelude::*;

/// The connection pattern of an op that reads only its input's shape.
macro_rules! reads_shape_only {
    ($py:ty) => {
        #[pymethods]
        impl $py {
            /// Only the input's shape matters, not its elements.
            fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
                let _ = node;
                vec![vec![false]]
            }
        }
    };
}

unit_op!(
    PyShape,
    Shape,
    "oxtensor.tensor.shape",
    "Shape",
    "`Shape`: the shape as an int64 vector."
);

reads_shape_only!(PyShape);

field_op!(
    PyShapeI,
    ShapeI { i: usize },
    "oxtensor.tensor.shape",
    "Shape_i",
    "`Shape_i(i)`: the length of axis `i`.",
    "The axis."
);

reads_shape_only!(PyShapeI);

field_op!(
    PyReshape,
    Reshape { ndim: usize },
    "oxtensor.tensor.shape",
    "Reshape",
    "`Reshape(ndim)`: inputs are the tensor and its new shape.",
    "The output rank."
);

#[pymethods]
impl PyReshape {
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
