//! `Split{len_splits}`: cuts a tensor along an axis into pieces of given
//! lengths; each output is a view of the input. Mirrors `Split` in
//! `pytensor/tensor/basic.py`.

use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::op_identity;
use crate::ops::join::{join, normalize_axis};
use crate::ops::known::{self, expect_int_scalar, KnownInputs};
use crate::ops::scalar_grad::{disconnected, grad_dtype, tensor};
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{IoMap, Op, PerformCtx};
use crate::tensor::{layout, Tensor};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `Split{len_splits}`: inputs are the tensor, the axis and the lengths (an
/// integer vector of `len_splits` entries).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Split {
    /// The number of outputs.
    pub len_splits: usize,
}

impl KnownInputs for Split {
    fn known_output_types(&self, inputs: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Type>> {
        let [x, axis, splits] = super::arity::exactly("Split", inputs)?;
        let x = x.expect_tensor("The input of Split")?;
        expect_int_scalar(axis, "The axis of Split")?;
        let s = splits.expect_tensor("The splits of Split")?;
        if s.ndim() != 1 || !s.dtype.is_integer() {
            return Err(Error::Type(format!(
                "Split's splits must be an integer vector, got {s}"
            )));
        }
        if x.ndim() == 0 {
            return Err(Error::Type(
                "Split needs an input with at least one dimension".into(),
            ));
        }
        let sizes = self.known_sizes(known[2])?;
        let axis = match known[1] {
            Some(a) => Some(normalize_axis(
                known::int_scalar(a, "The axis")?,
                x.ndim(),
                "Split",
            )?),
            None => None,
        };
        (0..self.len_splits)
            .map(|i| {
                let mut shape = x.shape.to_vec();
                match axis {
                    Some(a) => shape[a] = sizes.as_ref().map(|s| s[i]),
                    None => shape.iter_mut().for_each(|d| *d = None),
                }
                Ok(TensorType::new(x.dtype, shape)?.into())
            })
            .collect()
    }
}

impl Split {
    /// Constant split lengths, checked against `len_splits`.
    fn known_sizes(&self, splits: Option<&Tensor>) -> Result<Option<Vec<u64>>> {
        let Some(t) = splits else { return Ok(None) };
        // A negative length is refused when the node runs, as in PyTensor:
        // building the node only leaves the static shapes unknown.
        if self.has_negative(t)? {
            return Ok(None);
        }
        let sizes = self.runtime_sizes(t)?;
        Ok(Some(sizes.into_iter().map(|s| s as u64).collect()))
    }

    /// Each piece's length as an int64 scalar: constants when the splits
    /// are, else the splits vector cut into length-1 pieces.
    fn size_vars(&self, g: &mut Graph, splits: VarId) -> Result<Vec<VarId>> {
        // Negative constant lengths take the general path: the node reports
        // them when it runs.
        let constant = match g.var(splits).constant().map(|c| &c.value) {
            Some(crate::value::Value::Tensor(t)) if !self.has_negative(t)? => Some(t),
            _ => None,
        };
        if let Some(t) = constant {
            let sizes = self.runtime_sizes(t)?;
            return Ok(sizes
                .iter()
                .map(|&n| crate::ops::infer_shape::dim_constant(g, n as i64))
                .collect());
        }
        let n = self.len_splits;
        let zero = build::scalar_constant(g, crate::dtype::DType::Int64, 0.0);
        let ones = g.tensor_constant(Tensor::from_vec(vec![n], vec![1i64; n])?);
        let pieces = split(g, splits, zero, ones, n)?;
        pieces
            .into_iter()
            .map(|p| {
                let s = build::dimshuffle(g, p, vec![])?;
                build::cast(g, s, crate::dtype::DType::Int64)
            })
            .collect()
    }

    fn has_negative(&self, t: &Tensor) -> Result<bool> {
        for i in 0..t.len() {
            if known::int_at(t, i, "A split length")? < 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn runtime_sizes(&self, t: &Tensor) -> Result<Vec<usize>> {
        if t.len() != self.len_splits {
            return Err(Error::Value(format!(
                "Split: len(splits) != len_splits: {} != {}",
                t.len(),
                self.len_splits
            )));
        }
        (0..t.len())
            .map(|i| {
                let v = known::int_at(t, i, "A split length")?;
                usize::try_from(v).map_err(|_| {
                    Error::Value(format!("Split: the splits have negative values: {v}"))
                })
            })
            .collect()
    }
}

impl Op for Split {
    op_identity!("Split", self => "{}", self.len_splits);

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        self.known_output_types(inputs, &vec![None; inputs.len()])
    }

    fn view_map(&self) -> IoMap {
        (0..self.len_splits).map(|i| (i, vec![0])).collect()
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![
            vec![true; self.len_splits],
            vec![false; self.len_splits],
            vec![false; self.len_splits],
        ]))
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axis = known::int_scalar(inputs[1].tensor()?, "The axis of Split")?;
        let axis = normalize_axis(axis, x.ndim(), "Split")?;
        let sizes = self.runtime_sizes(inputs[2].tensor()?)?;
        let total = layout::sum(sizes.iter().copied(), "Split")?;
        if total != x.shape()[axis] {
            return Err(Error::Shape(format!(
                "Split sizes sum to {total}; expected {}",
                x.shape()[axis]
            )));
        }
        let mut at = 0usize;
        for (out, &n) in outputs.iter_mut().zip(&sizes) {
            let mut shape = x.shape().to_vec();
            shape[axis] = n;
            // An empty piece may start one past the end; keep its offset in range.
            let offset = if n == 0 {
                x.offset()
            } else {
                (x.offset() as isize + at as isize * x.strides()[axis]) as usize
            };
            *out = Some(x.view(&shape, x.strides(), offset)?.into());
            at += n;
        }
        Ok(())
    }

    /// The input's shape with the axis' length replaced by each piece's.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let inputs = g.node(node).inputs.clone();
        let (axis, splits) = (inputs[1], inputs[2]);
        let x_shape = &input_shapes[0];
        let ndim = x_shape.len();
        let sizes = self.size_vars(g, splits)?;
        let known_axis = known::constant_axis(g, axis, ndim, "Split")?;
        let mut shapes = Vec::with_capacity(self.len_splits);
        for size in sizes {
            let mut shape = Vec::with_capacity(ndim);
            for (d, &len) in x_shape.iter().enumerate() {
                shape.push(match known_axis {
                    Some(a) if a == d => size,
                    Some(_) => len,
                    None => known::pick_axis(g, axis, d, ndim, size, len)?,
                });
            }
            shapes.push(shape);
        }
        Ok(Some(shapes))
    }

    /// The output gradients joined back (zeros for disconnected ones).
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let n = g.node(node).clone();
        let dtype = grad_dtype(tensor(g, n.inputs[0])?.dtype);
        let mut parts = Vec::with_capacity(self.len_splits);
        for (&gz, &out) in output_grads.iter().zip(&n.outputs) {
            parts.push(match g.var(gz).ty {
                Type::Disconnected => build::zeros_like(g, out, dtype)?,
                _ => build::cast(g, gz, dtype)?,
            });
        }
        let gx = join(g, n.inputs[1], &parts)?;
        Ok(vec![gx, disconnected(g), disconnected(g)])
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let Some(t) = tangents[0] else {
            return Ok(Some(vec![None; self.len_splits]));
        };
        let n = g.node(node).inputs.clone();
        let parts = split(g, t, n[1], n[2], self.len_splits)?;
        Ok(Some(parts.into_iter().map(Some).collect()))
    }
}

/// `split(x, axis, splits)` from Rust: the `len_splits` outputs.
pub fn split(
    g: &mut Graph,
    x: VarId,
    axis: VarId,
    splits: VarId,
    len_splits: usize,
) -> Result<Vec<VarId>> {
    known::apply(g, Arc::new(Split { len_splits }), &[x, axis, splits])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    /// The output types of a two-way split of a 2 x 4 matrix along axis 1
    /// with constant `sizes`.
    fn two_way_types(op: &Split, sizes: &Tensor) -> Vec<Type> {
        let x: Type = TensorType::new(DType::Float64, [Some(2), Some(4)])
            .unwrap()
            .into();
        let i: Type = TensorType::scalar(DType::Int64).into();
        let v: Type = TensorType::with_ndim(DType::Int64, 1).into();
        let axis = Tensor::scalar(1i64);
        op.known_output_types(&[&x, &i, &v], &[None, Some(&axis), Some(sizes)])
            .unwrap()
    }

    #[test]
    fn split_types_and_views() {
        let op = Split { len_splits: 2 };
        let sizes = Tensor::from_vec(vec![2], vec![1i64, 3]).unwrap();
        let out = two_way_types(&op, &sizes);
        assert_eq!(out[1].to_string(), "Matrix(float64, shape=(2, 3))");
        assert_eq!(op.describe(), "Split{2}");
    }

    #[test]
    fn negative_constant_lengths_leave_the_lengths_unknown() {
        let op = Split { len_splits: 2 };
        let sizes = Tensor::from_vec(vec![2], vec![5i64, -1]).unwrap();
        let out = two_way_types(&op, &sizes);
        assert_eq!(out[0].to_string(), "Matrix(float64, shape=(2, ?))");
        let err = op.runtime_sizes(&sizes).unwrap_err().to_string();
        assert!(err.contains("negative"), "{err}");
    }
}
