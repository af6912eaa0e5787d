//! The gradient-shaping ops: identities in the forward graph that change
//! what flows back through them (`zero_grad`, `disconnected_grad`,
//! `undefined_grad`, `grad_clip`, `grad_scale`). Their output is a view of
//! their input. Mirrors the `ViewOp` subclasses of `pytensor/gradient.py`.

use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::op_identity;
use crate::ops::scalar_grad::{disconnected, grad_dtype, match_dtype};
use crate::ops::Outs;
use crate::ops::Tangents;
use crate::ops::{IoMap, Op, PerformCtx};
use crate::types::Type;
use crate::value::Value;

/// What a [`GradOp`] does to the gradient.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GradKind {
    /// The gradient is zero (`zero_grad`).
    Zero,
    /// The input is disconnected (`disconnected_grad`).
    Disconnected,
    /// The gradient is undefined (`undefined_grad`).
    Undefined,
    /// The gradient is clipped to `[lower, upper]` (`grad_clip`); the bounds are `f64` bits.
    Clip(u64, u64),
    /// The gradient is multiplied by a factor (`grad_scale`); `f64` bits.
    Scale(u64),
}

/// An identity op that reshapes the gradient passing through it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GradOp {
    /// What it does to the gradient.
    pub kind: GradKind,
}

impl GradOp {
    /// `grad_clip(x, lower, upper)`.
    pub fn clip(lower: f64, upper: f64) -> Result<Self> {
        if lower > upper {
            return Err(Error::Value(format!(
                "grad_clip needs lower <= upper, got {lower} and {upper}"
            )));
        }
        Ok(GradOp {
            kind: GradKind::Clip(lower.to_bits(), upper.to_bits()),
        })
    }

    /// `grad_scale(x, multiplier)`.
    pub fn scale(multiplier: f64) -> Self {
        GradOp {
            kind: GradKind::Scale(multiplier.to_bits()),
        }
    }
}

impl Op for GradOp {
    fn name(&self) -> &str {
        match self.kind {
            GradKind::Zero => "ZeroGrad",
            GradKind::Disconnected => "DisconnectedGrad",
            GradKind::Undefined => "UndefinedGrad",
            GradKind::Clip(..) => "GradClip",
            GradKind::Scale(_) => "GradScale",
        }
    }

    fn describe(&self) -> String {
        match self.kind {
            GradKind::Clip(lo, hi) => format!(
                "GradClip{{lower={}, upper={}}}",
                f64::from_bits(lo),
                f64::from_bits(hi)
            ),
            GradKind::Scale(m) => format!("GradScale{{multiplier={}}}", f64::from_bits(m)),
            _ => self.name().to_string(),
        }
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        Ok(vec![super::arity::single_input(self, inputs)?.clone()])
    }

    fn view_map(&self) -> IoMap {
        vec![(0, vec![0])]
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok((self.kind == GradKind::Disconnected).then(|| vec![vec![false]]))
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        outputs[0] = Some((*inputs[0]).clone());
        Ok(())
    }

    super::shape_rules::shape_of_input!(0);

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let x = g.node(node).inputs[0];
        let gz = output_grads[0];
        let dtype = g
            .var(x)
            .ty
            .expect_tensor("The input of a gradient op")?
            .dtype;
        let term = match self.kind {
            GradKind::Zero => build::zeros_like(g, x, grad_dtype(dtype))?,
            GradKind::Disconnected => disconnected(g),
            GradKind::Undefined => g.input(
                Type::Null(
                    format!("This variable is Null because the grad method for input 0 ({}) of the UndefinedGrad op is undefined. The gradient was marked undefined with undefined_grad.", g.describe_var(x))
                        .into(),
                ),
                None,
            ),
            GradKind::Clip(lo, hi) => {
                let gdt = g.var(gz).ty.expect_tensor("A gradient")?.dtype;
                let lo = build::scalar_constant(g, gdt, f64::from_bits(lo));
                let hi = build::scalar_constant(g, gdt, f64::from_bits(hi));
                let above = build::elemwise(g, crate::scalar::ScalarKind::Maximum, &[gz, lo])?;
                build::elemwise(g, crate::scalar::ScalarKind::Minimum, &[above, hi])?
            }
            GradKind::Scale(m) => {
                let gdt = g.var(gz).ty.expect_tensor("A gradient")?.dtype;
                let m = build::scalar_constant(g, gdt, f64::from_bits(m));
                build::mul(g, gz, m)?
            }
        };
        let term = match g.var(term).ty {
            Type::Tensor(_) => match_dtype(g, term, dtype)?,
            _ => term,
        };
        Ok(vec![term])
    }

    /// In the forward direction each is the identity; only the
    /// undefined gradient stays undefined.
    fn pushforward(&self, _g: &mut Graph, _node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        match self.kind {
            GradKind::Undefined => Err(Error::NullGradient(
                "`pushforward` encountered a NaN: the tangent through undefined_grad is undefined"
                    .into(),
            )),
            GradKind::Zero | GradKind::Disconnected => Ok(Some(vec![None])),
            _ => Ok(Some(vec![tangents[0]])),
        }
    }

    op_identity!();
}
