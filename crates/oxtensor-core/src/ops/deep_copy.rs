//! `DeepCopyOp`: a copy of its input sharing no memory with it. The
//! compiler puts one on each function output that would otherwise alias an
//! input or a constant (`compile::output_copies`), as PyTensor's
//! `insert_deepcopy` does, so that a caller writing into a result never
//! changes a value the function reads again. Mirrors `DeepCopyOp` in
//! `pytensor/compile/ops.py`.

use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::copy::copy_contiguous;
use crate::op_identity;
use crate::ops::{Op, Outs, PerformCtx, Tangents};
use crate::types::Type;
use crate::value::Value;

/// `DeepCopyOp`: one value in (a tensor or a host value), a copy out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeepCopyOp;

impl Op for DeepCopyOp {
    op_identity!("DeepCopyOp");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let x = super::arity::single_input(self, inputs)?;
        Ok(vec![x.clone()])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        outputs[0] = Some(match inputs[0] {
            Value::Tensor(t) => copy_contiguous(t)?.into(),
            Value::Host(h) => Value::Host(h.deep_copy()?),
        });
        Ok(())
    }

    super::shape_rules::shape_of_input!(0);

    super::grad_rules::identity_pullback!();

    fn pushforward(&self, _g: &mut Graph, _node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        Ok(Some(vec![tangents[0]]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::test_support::perform_on_transposed;
    use std::sync::Arc;

    #[test]
    fn the_copy_has_the_values_and_not_the_buffer() {
        let (tr, got) = perform_on_transposed(&DeepCopyOp);
        let Value::Tensor(src) = &tr else {
            unreachable!()
        };
        assert!(got.same_values(src));
        assert!(!Arc::ptr_eq(got.buffer(), src.buffer()));
    }
}
