//! `LogSumExp`: `log(sum(exp(x)))` over axes as one op with a stable, fused
//! kernel. PyTensor composes it from `Log`, `Sum` and `Exp` (and relies on a
//! rewrite for stability); a native op is what makes it fast here.

use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::softmax::logsumexp;
use crate::op_identity;
use crate::ops::reduced_axes::{axis_field_methods, real_reduction_type};
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::Outs;
use crate::ops::Tangents;
use crate::ops::{Op, PerformCtx};
use crate::types::TensorType;
use crate::value::Value;

/// `log(sum(exp(x), axis))`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LogSumExp {
    /// Sorted, non-negative axes, or `None` for all.
    pub axis: Option<Vec<usize>>,
}

axis_field_methods!(LogSumExp);

impl LogSumExp {
    /// The output type: the input without the reduced axes, in a float dtype.
    pub fn output_type(&self, input: &TensorType) -> Result<TensorType> {
        let (op, axis) = (self.describe(), self.axis.as_deref());
        let float = input.dtype.upgrade_to_float();
        real_reduction_type(&op, "is defined for real numbers", axis, input, float)
    }

    /// `v` with the reduced axes put back as length 1.
    fn expand(&self, g: &mut Graph, v: VarId, ndim: usize) -> Result<VarId> {
        build::dimshuffle(g, v, build::reinsert_axes(ndim, &self.axes(ndim)))
    }

    /// `exp(x - z)`, the softmax over the reduced axes, from the node.
    fn weights(&self, g: &mut Graph, node: NodeId) -> Result<VarId> {
        let (x, z) = (g.node(node).inputs[0], g.node(node).outputs[0]);
        let ndim = tensor(g, x)?.ndim();
        let z_e = self.expand(g, z, ndim)?;
        let d = build::sub(g, x, z_e)?;
        build::exp(g, d)
    }
}

impl Op for LogSumExp {
    // `LogSumExp{axis=1}`, `LogSumExp{axes=None}`, as `CAReduce` prints.
    op_identity!("LogSumExp", self => "{}", super::reduced_axes::axes_prop(self.axis.as_deref()));

    super::shape_rules::reduction_types!();

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let dtype: DType = ctx.output_dtype(0)?;
        let axes = self.axes(x.ndim());
        outputs[0] = Some(logsumexp(x, &axes, dtype, Some(ctx.pool))?.into());
        Ok(())
    }

    /// `gz * exp(x - z)`, with `gz` and `z` broadcast back over the axes.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let x = g.node(node).inputs[0];
        let ndim = tensor(g, x)?.ndim();
        let w = self.weights(g, node)?;
        let gz_e = self.expand(g, output_grads[0], ndim)?;
        let gx = build::mul(g, gz_e, w)?;
        Ok(vec![match_dtype(g, gx, tensor(g, x)?.dtype)?])
    }

    /// `sum(exp(x - z) * dx)` over the axes.
    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let Some(dx) = tangents[0] else {
            return Ok(Some(vec![None]));
        };
        let z = g.node(node).outputs[0];
        let ndim = tensor(g, dx)?.ndim();
        let w = self.weights(g, node)?;
        let wdx = build::mul(g, w, dx)?;
        let axes: Vec<i64> = self.axes(ndim).iter().map(|&a| a as i64).collect();
        let dz = build::sum(g, wdx, Some(&axes))?;
        Ok(Some(vec![Some(match_dtype(g, dz, tensor(g, z)?.dtype)?)]))
    }
}
