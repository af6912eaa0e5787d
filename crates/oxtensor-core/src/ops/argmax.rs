//! `Argmax`: the int64 position of the maximum over some axes, as in
//! `pytensor/tensor/math.py` (which also builds `argmin` from it, on the
//! negated input).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::argmax::argmax;
use crate::op_identity;
use crate::ops::reduce::normalize_axes;
use crate::ops::Outs;
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
        super::reduced_axes::reduced_axes(self.axis.as_deref(), ndim)
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
        let shape =
            super::reduced_axes::kept_static_shape(&self.describe(), self.axis.as_deref(), input)?;
        TensorType::new(DType::Int64, shape)
    }
}

impl Op for Argmax {
    op_identity!("Argmax");

    /// `Argmax{axis=(0, 2)}`, `Argmax{axis=None}`.
    fn describe(&self) -> String {
        let axis = super::reduced_axes::axis_tuple_prop(self.axis.as_deref());
        format!("Argmax{{{axis}}}")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let input = super::arity::single_input(self, inputs)?;
        let t = input.expect_tensor("The input of Argmax")?;
        Ok(vec![self.output_type(t)?.into()])
    }

    super::shape_rules::shape_without_axes!();

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axes = self.axes(x.ndim());
        outputs[0] = Some(argmax(x, &axes, Some(ctx.pool))?.into());
        Ok(())
    }

    super::constant_grads::piecewise_constant_grads!();
}
