//! The gradient of a scalar op on scalar variables: the `Elemwise` rule
//! of the same scalar op (the scalar gradient table, composites included)
//! applied to the inputs' 0-d tensor forms, its terms converted back to
//! scalars. One rule per scalar op, shared with the tensor graphs.

use super::elemwise::Elemwise;
use super::scalar_tensor::{ScalarFromTensor, TensorFromScalar};
use super::Op;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::scalar::ScalarOp;
use crate::types::Type;
use std::sync::Arc;

/// `node` (a scalar op on scalars) differentiated through the 0-d tensor
/// `Elemwise` of its op.
pub(super) fn scalar_op_pullback(
    op: &ScalarOp,
    g: &mut Graph,
    node: NodeId,
    output_grads: &[VarId],
) -> Result<Vec<VarId>> {
    let inputs = g.node(node).inputs.clone();
    let tensor_inputs = inputs
        .iter()
        .map(|&i| g.apply_out(Arc::new(TensorFromScalar), &[i]))
        .collect::<Result<Vec<_>>>()?;
    let ew = Elemwise::new(op.clone());
    let tensor_node = g.apply(Arc::new(ew.clone()), &tensor_inputs)?;
    let tensor_grads = output_grads
        .iter()
        .map(|&og| convert(g, og, true))
        .collect::<Result<Vec<_>>>()?;
    ew.pullback(g, tensor_node, &tensor_grads)?
        .into_iter()
        .map(|t| convert(g, t, false))
        .collect()
}

/// A scalar gradient as a 0-d tensor (`to_tensor`) or a 0-d tensor one
/// as a scalar; markers (disconnected, undefined) stay as they are.
fn convert(g: &mut Graph, v: VarId, to_tensor: bool) -> Result<VarId> {
    match (&g.var(v).ty, to_tensor) {
        (Type::Scalar(_), true) => g.apply_out(Arc::new(TensorFromScalar), &[v]),
        (Type::Tensor(t), false) if t.ndim() == 0 => g.apply_out(Arc::new(ScalarFromTensor), &[v]),
        _ => Ok(v),
    }
}

#[cfg(test)]
mod tests {
    use crate::dtype::DType::*;
    use crate::graph::testing::scalar_graph_with;
    use crate::graph::FunctionGraph;
    use crate::ops::Op;
    use crate::scalar::{ScalarKind as K, ScalarOp};
    use crate::tensor::Tensor;
    use crate::types::Type;
    use crate::value::Value;
    use crate::vm::{LinkOptions, Program};
    use std::sync::Arc;

    #[test]
    fn mul_pullback_gives_scalar_terms() {
        let (mut g, [x, y]) = scalar_graph_with([("x", Float64), ("y", Float64)]);
        let op = ScalarOp::Kind(K::Mul);
        let z = g.apply_out(Arc::new(op.clone()), &[x, y]).unwrap();
        let gz = g.input(Type::Scalar(Float64), Some("gz"));
        let node = g.var(z).owner().unwrap();
        let grads = op.pullback(&mut g, node, &[gz]).unwrap();
        assert!(grads.iter().all(|&v| g.var(v).ty == Type::Scalar(Float64)));
        let fg = FunctionGraph::new(g, vec![x, y, gz], grads).unwrap();
        let prog = Program::link(&fg, Default::default(), &LinkOptions::default()).unwrap();
        let args: Vec<Value> = [2.0f64, 5.0, 3.0]
            .iter()
            .map(|&v| Tensor::scalar(v).into())
            .collect();
        let out = prog.run(args).unwrap();
        // d(x*y)/dx * gz = y * gz, d/dy = x * gz.
        assert!(out[0]
            .tensor()
            .unwrap()
            .same_values(&Tensor::scalar(15.0f64)));
        assert!(out[1]
            .tensor()
            .unwrap()
            .same_values(&Tensor::scalar(6.0f64)));
    }
}
