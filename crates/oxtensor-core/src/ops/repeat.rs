//! `Repeat{axis}`: each element repeated along an axis, by one count or a
//! count per element (NumPy's `repeat`). Mirrors `Repeat` in
//! `pytensor/tensor/extra_ops.py`.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::alloc::output;
use crate::kernels::copy::{region, write_into};
use crate::op_identity;
use crate::ops::advanced_inc_subtensor::AdvancedIncSubtensor1;
use crate::ops::arange::ARange;
use crate::ops::known;
use crate::ops::make_vector::MakeVector;
use crate::ops::scalar_grad::{disconnected, match_dtype, tensor};
use crate::ops::shape::ShapeI;
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::tensor::{layout, Tensor};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `Repeat{axis}`: inputs are the tensor and the repeats (an integer scalar
/// or vector).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Repeat {
    /// The axis (non-negative; `repeat` handles `None` by flattening first).
    pub axis: usize,
}

impl Repeat {
    /// The count for each of the `n` elements along the axis.
    fn counts(&self, repeats: &Tensor, n: usize) -> Result<Vec<usize>> {
        let read = |i| {
            let v = known::int_at(repeats, i, "A repeat count")?;
            usize::try_from(v).map_err(|_| {
                Error::Value(format!("{}: negative repeat count {v}", self.describe()))
            })
        };
        match (repeats.ndim(), repeats.len()) {
            (0, _) | (1, 1) => Ok(vec![read(0)?; n]),
            (1, len) if len == n => (0..n).map(read).collect(),
            (_, len) => Err(Error::Shape(format!(
                "{}: operands could not be broadcast together with shape ({n},) and {len} repeats",
                self.describe()
            ))),
        }
    }
}

/// Every element along `axis` repeated `c` times into `out`, as one
/// broadcast copy: `out` seen with the axis split into `(n, c)` is `x` with
/// a length-`c`, stride-0 axis after `axis`.
fn repeat_evenly(x: &Tensor, axis: usize, c: usize, out: &Tensor) -> Result<()> {
    let insert = |v: &[usize], at: usize| {
        let mut v = v.to_vec();
        v.insert(axis + 1, at);
        v
    };
    let mut out_strides = out.strides().to_vec();
    out_strides[axis] *= c as isize;
    out_strides.insert(axis + 1, out.strides()[axis]);
    let mut x_strides = x.strides().to_vec();
    x_strides.insert(axis + 1, 0);
    let src = x.view(&insert(x.shape(), 1), &x_strides, x.offset())?;
    write_into(&src, &region(out, &insert(x.shape(), c), &out_strides, 0)?)
}

/// Element `i` along `axis` repeated `counts[i]` times into `out`, one
/// broadcast copy per element.
fn repeat_each(x: &Tensor, axis: usize, counts: &[usize], out: &Tensor) -> Result<()> {
    let step = out.strides()[axis] as usize;
    let mut shape = out.shape().to_vec();
    let mut one = x.shape().to_vec();
    one[axis] = 1;
    let mut at = 0usize;
    for (i, &c) in counts.iter().enumerate() {
        let offset = x.offset() as isize + i as isize * x.strides()[axis];
        let src = x.view(&one, x.strides(), offset as usize)?;
        shape[axis] = c;
        if c > 0 {
            write_into(&src, &region(out, &shape, out.strides(), at * step)?)?;
        }
        at += c;
    }
    Ok(())
}

impl Repeat {
    /// `x`'s gradient for a vector of counts: with the axis moved first,
    /// the output gradient's rows added into rows `repeat(arange(n),
    /// counts)` of zeros shaped like `x` (an `AdvancedIncSubtensor1`).
    fn segment_sums(&self, g: &mut Graph, x: VarId, repeats: VarId, gz: VarId) -> Result<VarId> {
        let ndim = tensor(g, x)?.ndim();
        let mut order: Vec<Option<usize>> = vec![Some(self.axis)];
        order.extend((0..ndim).filter(|&i| i != self.axis).map(Some));
        let back: Vec<Option<usize>> = (0..ndim)
            .map(|i| {
                Some(if i == self.axis {
                    0
                } else {
                    i + usize::from(i < self.axis)
                })
            })
            .collect();
        let n = g.apply_out(Arc::new(ShapeI { i: self.axis }), &[x])?;
        let zero = build::scalar_constant(g, DType::Int64, 0.0);
        let one = build::scalar_constant(g, DType::Int64, 1.0);
        let arange = ARange {
            dtype: DType::Int64,
        };
        let sources = g.apply_out(Arc::new(arange), &[zero, n, one])?;
        let rows = g.apply_out(Arc::new(Repeat { axis: 0 }), &[sources, repeats])?;
        let gz_first = build::dimshuffle(g, gz, order.clone())?;
        let x_first = build::dimshuffle(g, x, order)?;
        let gz_dtype = tensor(g, gz)?.dtype;
        let zeros = build::zeros_like(g, x_first, gz_dtype)?;
        let inc = AdvancedIncSubtensor1 {
            set_instead_of_inc: false,
            inplace: false,
        };
        let summed = g.apply_out(Arc::new(inc), &[zeros, gz_first, rows])?;
        build::dimshuffle(g, summed, back)
    }
}

impl Op for Repeat {
    op_identity!("Repeat", self => "axis={}", self.axis);

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, repeats] = super::arity::exactly("Repeat", inputs)?;
        let x = x.expect_tensor("The input of Repeat")?;
        let r = repeats.expect_tensor("The repeats of Repeat")?;
        if !r.dtype.is_integer() || r.ndim() > 1 {
            return Err(Error::Type(format!(
                "repeats must be an integer scalar or vector, got {r}"
            )));
        }
        if self.axis >= x.ndim() {
            return Err(Error::Value(format!(
                "{}: axis {} is out of bounds for a {}-d input",
                self.describe(),
                self.axis,
                x.ndim()
            )));
        }
        let mut shape = x.shape.to_vec();
        shape[self.axis] = None;
        Ok(vec![TensorType::new(x.dtype, shape)?.into()])
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![true], vec![false]]))
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axis = self.axis;
        let counts = self.counts(inputs[1].tensor()?, x.shape()[axis])?;
        let mut shape = x.shape().to_vec();
        shape[axis] = layout::sum(counts.iter().copied(), &self.describe())?;
        let out = output(Some(ctx.pool), x.dtype(), &shape)?;
        match counts.first() {
            Some(&c) if counts.iter().all(|&k| k == c) => repeat_evenly(x, axis, c, &out)?,
            _ => repeat_each(x, axis, &counts, &out)?,
        }
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// The axis' length times the count, or the sum of the counts.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let repeats = g.node(node).inputs[1];
        let r_ty = tensor(g, repeats)?;
        let r = build::cast(g, repeats, DType::Int64)?;
        let mut shape = input_shapes[0].clone();
        let along = &mut shape[self.axis];
        *along = match (r_ty.ndim(), r_ty.shape.first().copied().flatten()) {
            (0, _) => build::mul(g, *along, r)?,
            (_, Some(1)) => {
                let one = build::sum(g, r, None)?;
                build::mul(g, *along, one)?
            }
            (_, Some(_)) => build::sum(g, r, None)?,
            // One count broadcasts to every element, as in NumPy.
            (_, None) => {
                let total = build::sum(g, r, None)?;
                let scaled = build::mul(g, *along, total)?;
                let count = g.apply_out(Arc::new(ShapeI { i: 0 }), &[repeats])?;
                let one = build::scalar_constant(g, DType::Int64, 1.0);
                let single = build::eq(g, count, one)?;
                build::switch(g, single, scaled, total)?
            }
        };
        Ok(Some(vec![shape]))
    }

    /// For one count `r`: the gradient reshaped to `(..., n, r, ...)` and
    /// summed over the `r` axis; for a vector of counts, each output
    /// slice's gradient added into its source slice ([`segment_sums`]).
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let (x, repeats) = (inputs[0], inputs[1]);
        let x_ty = tensor(g, x)?;
        if tensor(g, repeats)?.ndim() != 0 {
            let summed = self.segment_sums(g, x, repeats, output_grads[0])?;
            return Ok(vec![match_dtype(g, summed, x_ty.dtype)?, disconnected(g)]);
        }
        let mut dims = Vec::with_capacity(x_ty.ndim() + 1);
        for i in 0..x_ty.ndim() {
            dims.push(g.apply_out(Arc::new(ShapeI { i }), &[x])?);
            if i == self.axis {
                dims.push(build::cast(g, repeats, DType::Int64)?);
            }
        }
        let shape = known::apply_out(
            g,
            Arc::new(MakeVector {
                dtype: DType::Int64,
            }),
            &dims,
        )?;
        let grouped = build::reshape(g, output_grads[0], shape)?;
        let summed = build::sum(g, grouped, Some(&[self.axis as i64 + 1]))?;
        Ok(vec![match_dtype(g, summed, x_ty.dtype)?, disconnected(g)])
    }

    /// PyTensor's `R_op`: the tangent repeated the same way.
    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        super::grad_rules::value_pushforward(g, node, tangents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_broadcast_like_numpy() {
        let op = Repeat { axis: 0 };
        assert_eq!(op.counts(&Tensor::scalar(2i64), 3).unwrap(), vec![2, 2, 2]);
        let v = Tensor::from_vec(vec![3], vec![1i32, 0, 2]).unwrap();
        assert_eq!(op.counts(&v, 3).unwrap(), vec![1, 0, 2]);
        assert!(op.counts(&v, 2).is_err());
        assert_eq!(op.describe(), "Repeat{axis=0}");
    }
}
