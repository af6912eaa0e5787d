//! `CentredSquares`: `Σ (x - mean)²` over some axes, what `var` and `std`
//! divide. PyTensor's graph computes it as
//! `Sum(Sqr(Sub(x, ExpandDims(Sum(x) / d1 / ...))))`, two passes over `x`;
//! the specialize rewrite `local_sum_sqr_deviations`
//! (`rewrite/families/variance.rs`) puts this op in that chain's place. It
//! runs `kernels::variance` (one pass over memory) when the divisors
//! multiply to the number of reduced elements, and otherwise (or on inputs
//! too small to gain from it) the chain's own kernels, with its bits.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::elemwise::elemwise;
use crate::kernels::reduce::centred_squares;
use crate::kernels::reduce::reduce;
use crate::op_identity;
use crate::ops::Outs;
use crate::ops::{Op, PerformCtx};
use crate::reduction::ReduceKind;
use crate::scalar::{ScalarKind, ScalarOp};
use crate::tensor::{Scalar, Tensor};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// Inputs of at most this many elements run the chain's kernels: the
/// one-pass kernel saves memory traffic, which so small a call does not
/// have, and the chain gives the very bits of the unrewritten graph.
const KERNEL_MIN: usize = 2048;

/// `CentredSquares{axis=1}` of `x` (input 0), the mean having been divided
/// by inputs `1..` (each a single value: every static length 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CentredSquares {
    /// Sorted, non-negative axes, or `None` for all (the final `Sum`'s).
    pub axis: Option<Vec<usize>>,
    /// The accumulator dtype of the mean's `Sum`.
    pub mean_acc: DType,
    /// The accumulator dtype of the squares' `Sum`.
    pub sum_acc: DType,
}

impl CentredSquares {
    /// The reduced axes of a rank-`ndim` input.
    pub fn axes(&self, ndim: usize) -> Vec<usize> {
        super::reduced_axes::reduced_axes(self.axis.as_deref(), ndim)
    }

    /// The output type: `x` (float32 or float64) without the reduced axes.
    pub fn output_type(&self, x: &TensorType, divisors: &[&TensorType]) -> Result<TensorType> {
        if !matches!(x.dtype, DType::Float32 | DType::Float64) {
            return Err(Error::Type(format!(
                "{} takes float32 or float64 data, not {} (input {x})",
                self.describe(),
                x.dtype
            )));
        }
        let shape =
            super::reduced_axes::kept_static_shape(&self.describe(), self.axis.as_deref(), x)?;
        if let Some(d) = divisors.iter().find(|d| !single_value(d)) {
            return Err(Error::Type(format!(
                "{}: a divisor must be one real value (every static length 1), not {d}",
                self.describe()
            )));
        }
        TensorType::new(x.dtype, shape)
    }

    /// The unrewritten chain, kernel by kernel: the mean's `Sum`, each
    /// `TrueDiv`, `Sub` of the expanded mean, `Sqr`, the final `Sum`.
    fn two_pass(
        &self,
        x: &Tensor,
        axes: &[usize],
        divisors: &[&Value],
        pool: &mut Pool,
    ) -> Result<Tensor> {
        let dtype = x.dtype();
        let mut mean = reduce(ReduceKind::Sum, x, axes, self.mean_acc, dtype, Some(pool))?;
        let rank = mean.ndim();
        for d in divisors {
            let d = d.tensor()?;
            let one = d.view(&vec![1; rank], &vec![0; rank], d.offset())?;
            let flags = [vec![false; rank], vec![true; rank]];
            let div = ScalarOp::Kind(ScalarKind::TrueDiv);
            mean = elemwise(&div, &[&mean, &one], &flags, dtype, Some(pool))?;
        }
        let centre = expanded(&mean, x.ndim(), axes)?;
        let flags = [
            x.shape().iter().map(|&n| n == 1).collect(),
            (0..x.ndim()).map(|a| axes.contains(&a)).collect(),
        ];
        let sub = ScalarOp::Kind(ScalarKind::Sub);
        let d = elemwise(&sub, &[x, &centre], &flags, dtype, Some(pool))?;
        let flags = [flags[0].clone()];
        let sq = elemwise(
            &ScalarOp::Kind(ScalarKind::Sqr),
            &[&d],
            &flags,
            dtype,
            Some(pool),
        )?;
        reduce(ReduceKind::Sum, &sq, axes, self.sum_acc, dtype, Some(pool))
    }
}

/// Whether a tensor type holds one value of a real dtype.
fn single_value(t: &TensorType) -> bool {
    !t.dtype.is_complex() && t.shape.iter().all(|&n| n == Some(1))
}

/// `mean` (the kept axes of a rank-`ndim` tensor) with length-1 axes put
/// back at `axes`, as a view (`ExpandDims`).
fn expanded(mean: &Tensor, ndim: usize, axes: &[usize]) -> Result<Tensor> {
    let mut kept = 0;
    let (mut shape, mut strides) = (Vec::with_capacity(ndim), Vec::with_capacity(ndim));
    for a in 0..ndim {
        if axes.contains(&a) {
            shape.push(1);
            strides.push(0);
        } else {
            shape.push(mean.shape()[kept]);
            strides.push(mean.strides()[kept]);
            kept += 1;
        }
    }
    mean.view(&shape, &strides, mean.offset())
}

/// Whether every divisor is one value and those values multiply to
/// `count` exactly (then the mean is the true mean, which the kernel uses).
fn divides_by(divisors: &[&Value], count: usize) -> bool {
    let mut product = 1.0f64;
    for d in divisors {
        let Ok(t) = d.tensor() else { return false };
        if t.len() != 1 {
            return false;
        }
        let value = match t.get(0) {
            Scalar::Float(v, _) => v,
            Scalar::Int(v) => v as f64,
            Scalar::UInt(v) => v as f64,
            _ => return false,
        };
        product *= value;
    }
    product == count as f64
}

impl Op for CentredSquares {
    // `CentredSquares{axis=1}`, `CentredSquares{axes=None}`, as `Sum` prints.
    op_identity!("CentredSquares", self => "{}", super::reduced_axes::axes_prop(self.axis.as_deref()));

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let Some((x, divisors)) = inputs.split_first() else {
            return Err(Error::Type(format!(
                "{} takes the data and its divisors, got no input",
                self.describe()
            )));
        };
        let x = x.expect_tensor("The data of CentredSquares")?;
        let divisors = divisors
            .iter()
            .map(|d| d.expect_tensor("A divisor of CentredSquares"))
            .collect::<Result<Vec<_>>>()?;
        Ok(vec![self.output_type(x, &divisors)?.into()])
    }

    super::shape_rules::shape_without_axes!();

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axes = self.axes(x.ndim());
        let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
        if x.len() > KERNEL_MIN && divides_by(&inputs[1..], count) {
            if let Some(out) = centred_squares(x, &axes, Some(&mut *ctx.pool)) {
                outputs[0] = Some(out.into());
                return Ok(());
            }
        }
        outputs[0] = Some(self.two_pass(x, &axes, &inputs[1..], ctx.pool)?.into());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;
    use crate::ops::infer_shape::node_output_shapes;
    use std::sync::Arc;

    fn op(axis: Option<Vec<usize>>) -> CentredSquares {
        CentredSquares {
            axis,
            mean_acc: DType::Float64,
            sum_acc: DType::Float64,
        }
    }

    #[test]
    fn names_types_and_shapes() {
        assert_eq!(op(Some(vec![1])).describe(), "CentredSquares{axis=1}");
        assert_eq!(op(None).describe(), "CentredSquares{axes=None}");
        assert_eq!(
            op(Some(vec![0, 2])).describe(),
            "CentredSquares{axes=[0, 2]}"
        );
        let mut g = Graph::new();
        let x = g.input(
            TensorType::new(DType::Float32, [Some(3), None, Some(5)]).unwrap(),
            None,
        );
        let n = g.input(TensorType::new(DType::Float32, [Some(1)]).unwrap(), None);
        let y = g
            .apply_out(Arc::new(op(Some(vec![0, 2]))), &[x, n])
            .unwrap();
        let ty = g.var(y).ty.as_tensor().unwrap().clone();
        assert_eq!((ty.dtype, ty.shape.to_vec()), (DType::Float32, vec![None]));
        let node = g.var(y).owner().unwrap();
        assert_eq!(node_output_shapes(&mut g, node).unwrap()[0].len(), 1);
        // Integer data, and a divisor of more than one value, are refused.
        let i = g.input(TensorType::with_ndim(DType::Int64, 2), None);
        assert!(g.apply_out(Arc::new(op(None)), &[i]).is_err());
        let v = g.input(TensorType::with_ndim(DType::Float32, 1), None);
        let err = g.apply_out(Arc::new(op(None)), &[x, v]).unwrap_err();
        assert!(err.to_string().contains("one real value"), "{err}");
    }

    #[test]
    fn only_a_true_count_takes_the_kernel() {
        let (one, seven) = (
            Value::from(Tensor::scalar(3.0f64)),
            Value::from(Tensor::scalar(7.0)),
        );
        assert!(divides_by(&[&one, &seven], 21));
        assert!(!divides_by(&[&one], 21));
        let many = Value::from(Tensor::from_vec(vec![2], vec![3.0f64, 3.0]).unwrap());
        assert!(!divides_by(&[&many], 3));
    }
}
