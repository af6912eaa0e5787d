//! Test helpers for graphs anywhere in the crate.

use crate::build;
use crate::dtype::DType;
use crate::graph::{FunctionGraph, Graph, VarId};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;
use crate::vm::Program;

/// A tensor type of `dtype` with these static lengths (`None`: unknown).
pub fn tt(dtype: DType, shape: &[Option<u64>]) -> TensorType {
    TensorType::new(dtype, shape.iter().copied()).unwrap()
}

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
    let c = g.tensor_constant(Tensor::scalar(c));
    (g, x, c)
}

/// `outputs` of a copy of `g`, linked over `inputs` with the default
/// options and run on `values`.
pub fn run_graph(
    g: &Graph,
    inputs: &[VarId],
    outputs: &[VarId],
    values: Vec<Tensor>,
) -> Vec<Value> {
    let fg = FunctionGraph::new(g.clone(), inputs.to_vec(), outputs.to_vec()).unwrap();
    let p = Program::link(&fg, Default::default(), &Default::default()).unwrap();
    p.run(values.into_iter().map(Value::from).collect::<Vec<_>>())
        .unwrap()
}

/// `exp(x * two - y) * x + half`, and `x * two` after it when `expose`:
/// the chain the fusion tests fuse, with its constants as the test makes
/// them.
pub fn exp_chain(g: &mut Graph, [x, y, two, half]: [VarId; 4], expose: bool) -> Vec<VarId> {
    let x2 = build::mul(g, x, two).unwrap();
    let d = build::sub(g, x2, y).unwrap();
    let e = build::exp(g, d).unwrap();
    let m = build::mul(g, e, x).unwrap();
    let out = build::add(g, m, half).unwrap();
    if expose {
        vec![out, x2]
    } else {
        vec![out]
    }
}
