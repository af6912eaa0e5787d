//! `Det`: the determinant of a square matrix, through an LU factorisation
//! (`pytensor/tensor/linalg/summary.py`).

use super::inverse::{inv, transpose};
use super::square_float;
use crate::build;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `Det`: a 0-d output.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Det;

impl Op for Det {
    fn name(&self) -> &str {
        "Det"
    }

    fn describe(&self) -> String {
        "Det".into()
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let dtype = square_float("Det", inputs)?.dtype;
        Ok(vec![TensorType::new(dtype, [])?.into()])
    }

    fn perform(
        &self,
        ctx: &mut PerformCtx<'_>,
        inputs: &[&Value],
        outputs: &mut [Option<Value>],
    ) -> Result<()> {
        let out = linalg::det(inputs[0].tensor()?, ctx.output_dtype(0)?)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn infer_shape(
        &self,
        _g: &mut Graph,
        _node: NodeId,
        _input_shapes: &[Vec<VarId>],
    ) -> Result<Option<Vec<Vec<VarId>>>> {
        Ok(Some(vec![Vec::new()]))
    }

    /// `gz · det(x) · inv(x)ᵀ`.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let (x, d) = (g.node(node).inputs[0], g.node(node).outputs[0]);
        let xi = inv(g, x)?;
        let xi_t = transpose(g, xi)?;
        let scale = build::mul(g, output_grads[0], d)?;
        let gx = build::mul(g, scale, xi_t)?;
        let dtype = tensor(g, x)?.dtype;
        Ok(vec![match_dtype(g, gx, dtype)?])
    }

    op_identity!();
}
