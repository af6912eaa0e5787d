//! Symbolic shapes: what PyTensor's `ShapeFeature` asks of each op through
//! `infer_shape`. A shape is one int64 scalar variable per axis; axes of
//! statically known length are int64 constants, others `Shape_i` nodes.

use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::ops::shape::ShapeI;
use crate::ops::Dims;
use std::sync::Arc;

/// Each output's (or input's) shape: one int64 scalar per axis.
pub type Shapes = Vec<Vec<VarId>>;

/// An int64 scalar constant holding a length.
pub fn dim_constant(g: &mut Graph, n: i64) -> VarId {
    crate::build::scalar_constant(g, DType::Int64, n as f64)
}

/// The shape of `x` as `ShapeFeature` seeds it: constants for statically
/// known axes, `Shape_i(x)` for the others; empty for non-tensors.
pub fn shape_vars(g: &mut Graph, x: VarId) -> Result<Vec<VarId>> {
    let Some(t) = g.try_var(x)?.ty.as_tensor().cloned() else {
        return Ok(Vec::new());
    };
    t.shape
        .iter()
        .enumerate()
        .map(|(i, dim)| match dim {
            Some(n) => Ok(dim_constant(g, *n as i64)),
            None => g.apply_out(Arc::new(ShapeI { i }), &[x]),
        })
        .collect()
}

/// The output shapes of `node` from its op's `infer_shape`, given the
/// input shapes; outputs the op cannot tell about get `Shape_i` of
/// themselves (the op then runs to answer, as in PyTensor).
pub fn output_shapes(g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> Result<Shapes> {
    let op = g.node(node).op.clone();
    if let Some(shapes) = op.infer_shape(g, node, input_shapes)? {
        return Ok(shapes);
    }
    let outputs = g.node(node).outputs.clone();
    outputs.iter().map(|&o| shape_vars(g, o)).collect()
}

/// [`output_shapes`] with the inputs' own shapes ([`shape_vars`]).
pub fn node_output_shapes(g: &mut Graph, node: NodeId) -> Result<Shapes> {
    let inputs = g.node(node).inputs.clone();
    let input_shapes = inputs
        .iter()
        .map(|&i| shape_vars(g, i))
        .collect::<Result<Vec<_>>>()?;
    output_shapes(g, node, &input_shapes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::types::TensorType;

    #[test]
    fn elemwise_reduce_and_dot_shapes_follow_their_inputs() {
        let mut g = Graph::new();
        let x = g.input(
            TensorType::new(DType::Float64, [None, Some(3)]).unwrap(),
            None,
        );
        let y = g.input(
            TensorType::new(DType::Float64, [Some(3), None]).unwrap(),
            None,
        );
        let shapes = |g: &mut Graph, v: VarId| {
            let node = g.var(v).owner().unwrap();
            node_output_shapes(g, node).unwrap().remove(0)
        };
        let sum = build::add(&mut g, x, x).unwrap();
        let s = shapes(&mut g, sum);
        assert!(g.var(s[0]).owner().is_some(), "unknown axis is Shape_i(x)");
        assert!(g.var(s[1]).owner().is_none(), "known axis is a constant");
        let d = build::dot(&mut g, x, y).unwrap();
        let s = shapes(&mut g, d);
        assert_eq!(s.len(), 2);
        let r = build::sum(&mut g, x, Some(&[0])).unwrap();
        assert_eq!(shapes(&mut g, r).len(), 1);
    }
}
