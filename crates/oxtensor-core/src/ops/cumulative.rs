//! `CumOp` (`pytensor/tensor/extra_ops.py`): the running sum (`Cumsum`) or
//! product (`Cumprod`) along one axis. Gradients use the reversed running
//! sum, written as `total - cumsum + g` so no reversal op is needed. The
//! inplace phase (`rewrite/families/inplace_running.rs`) makes it
//! `inplace` (`destroy_map = {0: [0]}`): it then runs over its input's
//! own buffer when the program grants it.

use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
pub use crate::kernels::reduce::CumMode;
use crate::kernels::reduce::{cumulative, cumulative_in_place};
use crate::op_identity;
use crate::ops::reduce::normalize_axes;
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::Outs;
use crate::ops::Tangents;
use crate::ops::{Op, PerformCtx};
use crate::types::Type;
use crate::value::Value;
use std::sync::Arc;

/// `Cumsum{axis=1}` / `Cumprod{axis=0}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CumOp {
    /// The normalised axis.
    pub axis: usize,
    /// Sum or product.
    pub mode: CumMode,
    /// Whether the output overwrites the input (`destroy_map = {0: [0]}`).
    pub inplace: bool,
}

impl CumOp {
    /// The op along `axis` (negative counts from the end) of an `ndim` input.
    pub fn new(axis: i64, mode: CumMode, ndim: usize) -> Result<Self> {
        Ok(CumOp {
            axis: normalize_axes(&[axis], ndim)?[0],
            mode,
            inplace: false,
        })
    }

    fn class_name(&self) -> &'static str {
        match self.mode {
            CumMode::Add => "Cumsum",
            CumMode::Mul => "Cumprod",
        }
    }

    /// The sum of `v` from each position to the end of the axis.
    fn reverse_cumsum(&self, g: &mut Graph, v: VarId) -> Result<VarId> {
        let ndim = tensor(g, v)?.ndim();
        let total = build::sum(g, v, Some(&[self.axis as i64]))?;
        let total = build::dimshuffle(g, total, build::reinsert_axes(ndim, &[self.axis]))?;
        let op = CumOp {
            axis: self.axis,
            mode: CumMode::Add,
            inplace: false,
        };
        let run = g.apply_out(Arc::new(op), &[v])?;
        let before = build::sub(g, total, run)?;
        build::add(g, before, v)
    }
}

impl Op for CumOp {
    op_identity!("CumOp");

    fn describe(&self) -> String {
        format!("{}{{axis={}}}", self.class_name(), self.axis)
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let t = super::arity::single_tensor(self, inputs)?;
        if self.axis >= t.ndim() {
            return Err(Error::Value(format!(
                "{}: axis {} is out of bounds for array of dimension {}",
                self.describe(),
                self.axis,
                t.ndim()
            )));
        }
        Ok(vec![t.clone().into()])
    }

    super::shape_rules::shape_of_input!(0);

    fn destroy_map(&self) -> crate::ops::IoMap {
        match self.inplace {
            true => vec![(0, vec![0])],
            false => Vec::new(),
        }
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let (axis, mode) = (self.axis, self.mode);
        if self.inplace {
            let written = ctx
                .pool
                .overwrite_granted(x, |y| cumulative_in_place(y, axis, mode))?;
            if let Some(y) = written {
                outputs[0] = Some(y.into());
                return Ok(());
            }
        }
        outputs[0] = Some(cumulative(x, axis, mode, Some(ctx.pool))?.into());
        Ok(())
    }

    /// Sum: the reversed running sum of `gy`; product (as PyTensor):
    /// the reversed running sum of `y * gy`, divided by `x`.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let (x, y) = (g.node(node).inputs[0], g.node(node).outputs[0]);
        let gy = output_grads[0];
        let gx = match self.mode {
            CumMode::Add => self.reverse_cumsum(g, gy)?,
            CumMode::Mul => {
                let ygy = build::mul(g, y, gy)?;
                let r = self.reverse_cumsum(g, ygy)?;
                build::true_div(g, r, x)?
            }
        };
        Ok(vec![match_dtype(g, gx, tensor(g, x)?.dtype)?])
    }

    /// A running sum is linear; a product's tangent comes from its pullback.
    fn pushforward(&self, g: &mut Graph, _node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        match (self.mode, tangents[0]) {
            (CumMode::Add, Some(dx)) => {
                let pure = CumOp {
                    inplace: false,
                    ..self.clone()
                };
                Ok(Some(vec![Some(g.apply_out(Arc::new(pure), &[dx])?)]))
            }
            (CumMode::Add, None) => Ok(Some(vec![None])),
            (CumMode::Mul, _) => Ok(None),
        }
    }
}
