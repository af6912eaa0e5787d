//! `Softmax` and `LogSoftmax` along some axes (or over all elements), as in
//! `pytensor/tensor/special.py`, with fused kernels (`kernels/softmax/mod.rs`).
//! Both are their own derivatives' building blocks: the pullbacks and
//! pushforwards below are small graphs over the op's own output.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::softmax::{softmax_axes, SoftmaxKind};
use crate::op_identity;
use crate::ops::reduce::normalize_axes;
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::Outs;
use crate::ops::Tangents;
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `Softmax{axis=...}` or `LogSoftmax{axis=...}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Softmax {
    /// Softmax or log-softmax.
    pub kind: SoftmaxKind,
    /// The normalised axes, sorted, whose elements together form one
    /// distribution (PyTensor's tuple; one axis from `softmax(x, axis=1)`,
    /// several from vectorizing `axis=None`); `None`: all elements.
    pub axis: Option<Vec<usize>>,
}

impl Softmax {
    /// The op along `axis` (negative counts from the end) of an `ndim` input.
    pub fn new(kind: SoftmaxKind, axis: Option<i64>, ndim: usize) -> Result<Self> {
        let axis = match axis {
            Some(a) => Some(vec![normalize_axes(&[a], ndim)?[0]]),
            None => None,
        };
        Ok(Softmax { kind, axis })
    }

    /// The class name.
    pub fn class_name(&self) -> &'static str {
        match self.kind {
            SoftmaxKind::Softmax => "Softmax",
            SoftmaxKind::LogSoftmax => "LogSoftmax",
        }
    }

    /// The output type: the input's shape, in a float dtype.
    pub fn output_type(&self, input: &TensorType) -> Result<TensorType> {
        if input.dtype == DType::Bool || input.dtype.is_complex() {
            return Err(Error::Type(format!(
                "{} is defined for real numbers, not {} (input {input})",
                self.describe(),
                input.dtype
            )));
        }
        let outside = self.axis.iter().flatten().find(|&&a| a >= input.ndim());
        if let Some(a) = outside {
            return Err(Error::Value(format!(
                "{}: axis {a} is out of bounds for array of dimension {}",
                self.describe(),
                input.ndim()
            )));
        }
        TensorType::new(input.dtype.upgrade_to_float(), input.shape.iter().copied())
    }

    /// `sum(v, axis, keepdims=True)` over this op's axes.
    fn sum_keep(&self, g: &mut Graph, v: VarId) -> Result<VarId> {
        let ndim = tensor(g, v)?.ndim();
        let axes: Vec<usize> = self.axis.clone().unwrap_or_else(|| (0..ndim).collect());
        let as_i64: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
        let s = build::sum(g, v, Some(&as_i64))?;
        build::dimshuffle(g, s, build::reinsert_axes(ndim, &axes))
    }
}

impl Op for Softmax {
    fn name(&self) -> &str {
        self.class_name()
    }

    /// `Softmax{axis=(1,)}`, `Softmax{axis=(1, 2)}`, `LogSoftmax{axis=None}`
    /// (PyTensor keeps a tuple).
    fn describe(&self) -> String {
        match self.axis.as_deref() {
            Some([a]) => format!("{}{{axis=({a},)}}", self.class_name()),
            Some(axes) => {
                let parts: Vec<String> = axes.iter().map(usize::to_string).collect();
                format!("{}{{axis=({})}}", self.class_name(), parts.join(", "))
            }
            None => format!("{}{{axis=None}}", self.class_name()),
        }
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let input = super::arity::single_input(self, inputs)?;
        let t = input.expect_tensor(&format!("The input of {}", self.describe()))?;
        Ok(vec![self.output_type(t)?.into()])
    }

    super::shape_rules::shape_of_input!(0);

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let dtype = ctx.output_dtype(0)?;
        let axes = self.axis.as_deref();
        outputs[0] = Some(softmax_axes(self.kind, x, axes, dtype, Some(ctx.pool))?.into());
        Ok(())
    }

    /// Softmax: `(gy - sum(gy * y)) * y`; log-softmax: `gy - exp(y) * sum(gy)`,
    /// sums over the op's axis with the axis kept.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let (x, y) = (g.node(node).inputs[0], g.node(node).outputs[0]);
        let gy = output_grads[0];
        let gx = match self.kind {
            SoftmaxKind::Softmax => {
                let gy_y = build::mul(g, gy, y)?;
                let s = self.sum_keep(g, gy_y)?;
                let centred = build::sub(g, gy, s)?;
                build::mul(g, centred, y)?
            }
            SoftmaxKind::LogSoftmax => {
                let s = self.sum_keep(g, gy)?;
                let p = build::exp(g, y)?;
                let ps = build::mul(g, p, s)?;
                build::sub(g, gy, ps)?
            }
        };
        Ok(vec![match_dtype(g, gx, tensor(g, x)?.dtype)?])
    }

    /// Softmax: `y * (dx - sum(y * dx))`; log-softmax: `dx - sum(exp(y) * dx)`.
    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let Some(dx) = tangents[0] else {
            return Ok(Some(vec![None]));
        };
        let y = g.node(node).outputs[0];
        let p = match self.kind {
            SoftmaxKind::Softmax => y,
            SoftmaxKind::LogSoftmax => build::exp(g, y)?,
        };
        let pdx = build::mul(g, p, dx)?;
        let s = self.sum_keep(g, pdx)?;
        let dy = match self.kind {
            SoftmaxKind::Softmax => {
                let ys = build::mul(g, y, s)?;
                build::sub(g, pdx, ys)?
            }
            SoftmaxKind::LogSoftmax => build::sub(g, dx, s)?,
        };
        Ok(Some(vec![Some(match_dtype(g, dy, tensor(g, y)?.dtype)?)]))
    }

    op_identity!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_types() {
        let x = TensorType::new(DType::Int8, [None, Some(3)]).unwrap();
        let s = Softmax::new(SoftmaxKind::Softmax, Some(-1), 2).unwrap();
        assert_eq!(s.describe(), "Softmax{axis=(1,)}");
        assert_eq!(s.output_type(&x).unwrap().dtype, DType::Float32);
        let l = Softmax::new(SoftmaxKind::LogSoftmax, None, 2).unwrap();
        assert_eq!(l.describe(), "LogSoftmax{axis=None}");
        assert!(Softmax::new(SoftmaxKind::Softmax, Some(2), 2).is_err());
        let two = Softmax {
            kind: SoftmaxKind::Softmax,
            axis: Some(vec![1, 2]),
        };
        assert_eq!(two.describe(), "Softmax{axis=(1, 2)}");
        assert!(two.output_type(&x).is_err());
        let b = TensorType::new(DType::Bool, [None]).unwrap();
        assert!(s.output_type(&b).is_err());
    }
}
