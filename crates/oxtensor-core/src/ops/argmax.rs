//! `Argmax`: the int64 position of the maximum over some axes, as in
//! `pytensor/tensor/math.py` (which also builds `argmin` from it, on the
//! negated input).

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::argmax::argmax;
use crate::op_identity;
use crate::ops::reduce::normalize_axes;
use crate::ops::scalar_grad::{grad_dtype, tensor};
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `Argmax{axis=(1,)}`: indices count in the C order of the reduced axes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Argmax {
    /// Sorted, non-negative axes, or `None` for all.
    pub axis: Option<Vec<usize>>,
}

impl Argmax {
    /// The op over `axis` (negative counts from the end) of an `ndim` input.
    pub fn new(axis: Option<&[i64]>, ndim: usize) -> Result<Self> {
        let axis = axis.map(|a| normalize_axes(a, ndim)).transpose()?;
        Ok(Argmax { axis })
    }

    /// The reduced axes of a rank-`ndim` input.
    pub fn axes(&self, ndim: usize) -> Vec<usize> {
        self.axis.clone().unwrap_or_else(|| (0..ndim).collect())
    }

    /// The output type: int64, the input without the reduced axes.
    pub fn output_type(&self, input: &TensorType) -> Result<TensorType> {
        if input.dtype.is_complex() {
            return Err(Error::Type(format!(
                "{} needs ordered values, not {} (input {input})",
                self.describe(),
                input.dtype
            )));
        }
        let axes = self.axes(input.ndim());
        if let Some(&bad) = axes.iter().find(|&&a| a >= input.ndim()) {
            return Err(Error::Value(format!(
                "{}: axis {bad} is out of bounds for array of dimension {}",
                self.describe(),
                input.ndim()
            )));
        }
        let shape = (0..input.ndim())
            .filter(|d| !axes.contains(d))
            .map(|d| input.shape[d]);
        TensorType::new(DType::Int64, shape)
    }
}

impl Op for Argmax {
    fn name(&self) -> &str {
        "Argmax"
    }

    /// `Argmax{axis=(0, 2)}`, `Argmax{axis=None}`.
    fn describe(&self) -> String {
        match &self.axis {
            None => "Argmax{axis=None}".into(),
            Some(a) if a.len() == 1 => format!("Argmax{{axis=({},)}}", a[0]),
            Some(a) => {
                let items: Vec<String> = a.iter().map(|i| i.to_string()).collect();
                format!("Argmax{{axis=({})}}", items.join(", "))
            }
        }
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [input] = inputs else {
            return Err(Error::Type(format!(
                "{} takes 1 input, got {}",
                self.describe(),
                inputs.len()
            )));
        };
        let t = input.expect_tensor("The input of Argmax")?;
        Ok(vec![self.output_type(t)?.into()])
    }

    /// The input's shape without the reduced axes.
    fn infer_shape(
        &self,
        _g: &mut Graph,
        _node: NodeId,
        input_shapes: &[Vec<VarId>],
    ) -> Result<Option<Vec<Vec<VarId>>>> {
        let input = &input_shapes[0];
        let axes = self.axes(input.len());
        let kept = (0..input.len()).filter(|d| !axes.contains(d));
        Ok(Some(vec![kept.map(|d| input[d]).collect()]))
    }

    fn perform(
        &self,
        ctx: &mut PerformCtx<'_>,
        inputs: &[&Value],
        outputs: &mut [Option<Value>],
    ) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axes = self.axes(x.ndim());
        outputs[0] = Some(argmax(x, &axes, Some(ctx.pool))?.into());
        Ok(())
    }

    /// A position does not change under small changes of the values: zeros.
    fn pullback(&self, g: &mut Graph, node: NodeId, _grads: &[VarId]) -> Result<Vec<VarId>> {
        let x = g.node(node).inputs[0];
        let dt = grad_dtype(tensor(g, x)?.dtype);
        Ok(vec![build::zeros_like(g, x, dt)?])
    }

    fn pushforward(
        &self,
        _g: &mut Graph,
        _node: NodeId,
        _tangents: &[Option<VarId>],
    ) -> Result<Option<Vec<Option<VarId>>>> {
        Ok(Some(vec![None]))
    }

    op_identity!();
}
