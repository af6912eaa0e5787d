//! `Unique{return_index, return_inverse, return_counts, axis}`: the sorted
//! distinct elements of a tensor (or distinct slices along an axis), and
//! optionally where each first occurs, which one each element is and how
//! often each occurs (NumPy's `unique`, its inverse flat as in NumPy 1).
//! Mirrors `Unique` in `pytensor/tensor/extra_ops.py`.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::sort::unique;
use crate::op_identity;
use crate::ops::infer_shape::shape_vars;
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `Unique`: one input; outputs are the distinct values, then, as asked,
/// the int64 vectors `index`, `inverse` and `counts`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unique {
    /// Output where each distinct value first occurs.
    pub return_index: bool,
    /// Output which distinct value each input element (slice) is.
    pub return_inverse: bool,
    /// Output how often each distinct value occurs.
    pub return_counts: bool,
    /// Compare slices along this axis (non-negative); `None`: elements of
    /// the flattened input.
    pub axis: Option<usize>,
}

impl Unique {
    /// The integer outputs asked for, in their order.
    fn extras(&self) -> usize {
        [self.return_index, self.return_inverse, self.return_counts]
            .iter()
            .filter(|&&b| b)
            .count()
    }
}

/// A fresh int64 vector of `values`.
fn int_vector(values: Vec<i64>) -> Result<Value> {
    Ok(Tensor::from_vec(vec![values.len()], values)?.into())
}

impl Op for Unique {
    op_identity!(
        "Unique",
        self => "return_index={}, return_inverse={}, return_counts={}, axis={}",
        self.return_index,
        self.return_inverse,
        self.return_counts,
        self.axis.map_or("None".to_string(), |a| a.to_string())
    );

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let x = super::arity::single_input(self, inputs)?;
        let x = x.expect_tensor("The input of unique")?;
        if x.dtype.is_complex() {
            return Err(Error::Type(format!(
                "unique: complex values have no order here, got {x}"
            )));
        }
        let values = match self.axis {
            None => TensorType::new(x.dtype, [None])?,
            Some(a) if a < x.ndim() => {
                let mut shape = x.shape.to_vec();
                shape[a] = None;
                TensorType::new(x.dtype, shape)?
            }
            Some(a) => {
                return Err(Error::Value(format!(
                    "unique: axis {a} is out of bounds for array of dimension {}",
                    x.ndim()
                )))
            }
        };
        let int = Type::from(TensorType::new(DType::Int64, [None])?);
        let mut out = vec![values.into()];
        out.extend(std::iter::repeat_n(int, self.extras()));
        Ok(out)
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let found = unique(inputs[0].tensor()?, self.axis)?;
        let mut values = vec![found.values.into()];
        let asked = [
            (self.return_index, found.index),
            (self.return_inverse, found.inverse),
            (self.return_counts, found.counts),
        ];
        for (wanted, list) in asked {
            if wanted {
                values.push(int_vector(list)?);
            }
        }
        for (slot, v) in outputs.iter_mut().zip(values) {
            *slot = Some(v);
        }
        Ok(())
    }

    /// The inverse's length is known (the input's size, or its length along
    /// the axis); the others come from running.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let outputs = g.node(node).outputs.clone();
        let mut shapes = Vec::with_capacity(outputs.len());
        for (i, &out) in outputs.iter().enumerate() {
            let is_inverse = self.return_inverse && i == 1 + usize::from(self.return_index);
            shapes.push(if is_inverse {
                vec![match self.axis {
                    Some(a) => input_shapes[0][a],
                    None => size_of(g, &input_shapes[0])?,
                }]
            } else {
                shape_vars(g, out)?
            });
        }
        Ok(Some(shapes))
    }
}

/// The number of elements of a tensor, from its shape.
fn size_of(g: &mut Graph, dims: &[VarId]) -> Result<VarId> {
    let mut size = build::scalar_constant(g, DType::Int64, 1.0);
    for &d in dims {
        size = build::mul(g, size, d)?;
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_follow_the_flags() {
        let x = Type::from(TensorType::new(DType::Float32, [None, Some(2)]).unwrap());
        let op = Unique {
            return_index: false,
            return_inverse: true,
            return_counts: true,
            axis: Some(0),
        };
        let out = op.output_types(&[&x]).unwrap();
        assert_eq!(out.len(), 3);
        let values = out[0].as_tensor().unwrap();
        assert_eq!(
            (values.dtype, values.shape.to_vec()),
            (DType::Float32, vec![None, Some(2)])
        );
        assert_eq!(out[1].as_tensor().unwrap().dtype, DType::Int64);
        let flat = Unique {
            axis: None,
            ..op.clone()
        };
        assert_eq!(
            flat.output_types(&[&x]).unwrap()[0]
                .as_tensor()
                .unwrap()
                .ndim(),
            1
        );
        assert!(Unique {
            axis: Some(2),
            ..op
        }
        .output_types(&[&x])
        .is_err());
    }
}
