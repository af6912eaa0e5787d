//! Test helpers for graphs anywhere in the crate.

use crate::dtype::DType;
use crate::graph::{Graph, VarId};
use crate::types::{TensorType, Type};

/// A fresh arena with the named inputs of the given dtype and rank, made
/// in order (the same ids, so the same printed graphs, as `g.input` calls).
pub fn graph_with<const N: usize>(inputs: [(&str, DType, usize); N]) -> (Graph, [VarId; N]) {
    let mut g = Graph::new();
    let vars =
        inputs.map(|(name, dtype, ndim)| g.input(TensorType::with_ndim(dtype, ndim), Some(name)));
    (g, vars)
}

/// A fresh arena with the named scalar (`Type::Scalar`) inputs of the
/// given dtypes, made in order.
pub fn scalar_graph_with<const N: usize>(inputs: [(&str, DType); N]) -> (Graph, [VarId; N]) {
    let mut g = Graph::new();
    let vars = inputs.map(|(name, dtype)| g.input(Type::Scalar(dtype), Some(name)));
    (g, vars)
}

/// A fresh arena with a float64 vector input `x` and the float64 scalar
/// constant `c`, made in that order.
pub fn x_and_constant(c: f64) -> (Graph, VarId, VarId) {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let c = g.tensor_constant(crate::tensor::Tensor::scalar(c));
    (g, x, c)
}
