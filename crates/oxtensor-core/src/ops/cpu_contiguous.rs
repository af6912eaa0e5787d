//! `CpuContiguous`: its input as a C-contiguous array (NumPy's
//! `ascontiguousarray`): the input itself when it already is, else a copy;
//! so the output is a view of the input. Mirrors `CpuContiguous` in
//! `pytensor/tensor/extra_ops.py`.

use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::copy::to_contiguous;
use crate::op_identity;
use crate::ops::{IoMap, Op, Outs, PerformCtx, Tangents};
use crate::types::Type;
use crate::value::Value;
use std::sync::Arc;

/// `CpuContiguous`: one tensor in, the same values in C order out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CpuContiguous;

impl Op for CpuContiguous {
    op_identity!("CpuContiguous");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let x = super::arity::single_input(self, inputs)?;
        Ok(vec![x
            .expect_tensor("The input of CpuContiguous")?
            .clone()
            .into()])
    }

    fn view_map(&self) -> IoMap {
        vec![(0, vec![0])]
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        outputs[0] = Some(to_contiguous(inputs[0].tensor()?)?.into());
        Ok(())
    }

    super::shape_rules::shape_of_input!(0);

    super::grad_rules::identity_pullback!();

    fn pushforward(&self, g: &mut Graph, _node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let Some(t) = tangents[0] else {
            return Ok(Some(vec![None]));
        };
        Ok(Some(vec![Some(
            g.apply_out(Arc::new(CpuContiguous), &[t])?,
        )]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::test_support::perform_on_transposed;
    use crate::tensor::Tensor;

    #[test]
    fn transposed_input_comes_out_c_ordered() {
        let (_, got) = perform_on_transposed(&CpuContiguous);
        assert!(got.is_c_contiguous());
        let want = Tensor::from_vec(vec![3, 2], vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]).unwrap();
        assert!(got.same_values(&want));
    }
}
