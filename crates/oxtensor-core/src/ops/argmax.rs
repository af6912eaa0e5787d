//! `Argmax`: the int64 position of the maximum over some axes, as in
//! `pytensor/tensor/math.py` (which also builds `argmin` from it, on the
//! negated input).

use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::argmax::argmax;
use crate::op_identity;
use crate::ops::reduced_axes::{axis_field_methods, real_reduction_type};
use crate::ops::Op;
use crate::types::TensorType;

/// `Argmax{axis=(1,)}`: indices count in the C order of the reduced axes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Argmax {
    /// Sorted, non-negative axes, or `None` for all.
    pub axis: Option<Vec<usize>>,
}

axis_field_methods!(Argmax);

impl Argmax {
    /// The output type: int64, the input without the reduced axes.
    pub fn output_type(&self, input: &TensorType) -> Result<TensorType> {
        let (op, axis) = (self.describe(), self.axis.as_deref());
        real_reduction_type(&op, "needs ordered values", axis, input, DType::Int64)
    }
}

/// `perform` of a position reduction (`Argmax`, `Argmin`) by `$kernel`
/// over the op's axes, and its gradients (zeros: positions are piecewise
/// constant).
macro_rules! position_methods {
    ($kernel:path) => {
        $crate::ops::perform_one!(self, ctx, inputs => {
            let x = inputs[0].tensor()?;
            $kernel(x, &self.axes(x.ndim()), Some(ctx.pool))
        });

        $crate::ops::constant_grads::piecewise_constant_grads!();
    };
}
pub(crate) use position_methods;

impl Op for Argmax {
    // `Argmax{axis=(0, 2)}`, `Argmax{axis=None}`.
    op_identity!("Argmax", self => "{}", super::reduced_axes::axis_tuple_prop(self.axis.as_deref()));

    super::shape_rules::reduction_types!();

    position_methods!(argmax);
}
