//! `DimShuffle`: reorder, drop (length-1) and insert broadcastable
//! dimensions. Its output is a view of its input. Mirrors the `DimShuffle`
//! of `pytensor/tensor/elemwise.py`, including its `str` forms.

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::op_identity;
use crate::ops::grad_rules;
use crate::ops::infer_shape;
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{IoMap, Op, PerformCtx};
use crate::types::{fmt_tuple, TensorType, Type};
use crate::value::Value;

/// One entry of `new_order`: an input axis, or `'x'` for a new length-1 axis.
pub type Axis = Option<usize>;

/// `DimShuffle(input_ndim, new_order)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DimShuffle {
    /// The rank of the input.
    pub input_ndim: usize,
    /// For each output axis, the input axis it comes from (`None` = `'x'`).
    pub new_order: Vec<Axis>,
}

impl DimShuffle {
    /// Validates the order as PyTensor's constructor does.
    pub fn new(input_ndim: usize, new_order: Vec<Axis>) -> Result<Self> {
        for (i, axis) in new_order.iter().enumerate() {
            let Some(j) = axis else { continue };
            if *j >= input_ndim {
                return Err(Error::Value(format!(
                    "new_order[{i}] is {j}, but the input only has {input_ndim} axes."
                )));
            }
            if new_order[i + 1..].contains(axis) {
                return Err(Error::Value(format!(
                    "The same input dimension may not appear twice in the list of output \
                     dimensions: {}",
                    fmt_order(&new_order)
                )));
            }
        }
        Ok(DimShuffle {
            input_ndim,
            new_order,
        })
    }

    /// Left-pads a rank-`ndim` input to rank `target` (broadcasting).
    pub fn expand_left(ndim: usize, target: usize) -> Self {
        let order = std::iter::repeat_n(None, target - ndim)
            .chain((0..ndim).map(Some))
            .collect();
        DimShuffle {
            input_ndim: ndim,
            new_order: order,
        }
    }

    /// Reverses the axes (`x.T`).
    pub fn transpose(ndim: usize) -> Self {
        DimShuffle {
            input_ndim: ndim,
            new_order: (0..ndim).rev().map(Some).collect(),
        }
    }

    /// The kept input axes, in output order.
    pub fn shuffle(&self) -> Vec<usize> {
        self.new_order.iter().flatten().copied().collect()
    }

    /// Input axes that are dropped.
    pub fn drop(&self) -> Vec<usize> {
        (0..self.input_ndim)
            .filter(|i| !self.new_order.contains(&Some(*i)))
            .collect()
    }

    /// Output positions of the new axes.
    pub fn augment(&self) -> Vec<usize> {
        self.new_order
            .iter()
            .enumerate()
            .filter(|(_, a)| a.is_none())
            .map(|(i, _)| i)
            .collect()
    }

    fn is_shuffled(&self) -> bool {
        self.shuffle().windows(2).any(|w| w[0] > w[1])
    }

    /// Whether this swaps the last two axes and keeps the rest in place.
    fn is_matrix_transpose(&self) -> bool {
        let n = self.input_ndim;
        let expected: Vec<Axis> = (0..n.saturating_sub(2))
            .map(Some)
            .chain([Some(n.wrapping_sub(1)), Some(n.wrapping_sub(2))])
            .collect();
        n >= 2 && self.is_shuffled() && self.new_order == expected
    }

    /// The output type for an input type, checking that dropped axes are 1.
    pub fn output_type(&self, input: &TensorType) -> Result<TensorType> {
        if input.ndim() != self.input_ndim {
            return Err(Error::Type(format!(
                "The number of dimensions of the input is incorrect for this op. Expected {}, got {}.",
                self.input_ndim,
                input.ndim()
            )));
        }
        for d in self.drop() {
            if !matches!(input.shape[d], Some(1) | None) {
                return Err(Error::Type(format!(
                    "Input dropped dimension {d} must have length 1 but has {}",
                    input.shape[d].unwrap_or(0)
                )));
            }
        }
        let shape = self
            .new_order
            .iter()
            .map(|a| a.map_or(Some(1), |i| input.shape[i]));
        TensorType::new(input.dtype, shape)
    }
}

fn fmt_order(order: &[Axis]) -> String {
    let items = order
        .iter()
        .map(|a| a.map_or("'x'".to_string(), |i| i.to_string()));
    fmt_tuple(items)
}

fn fmt_axes(axes: &[usize]) -> String {
    fmt_tuple(axes.iter().map(|a| a.to_string()))
}

impl Op for DimShuffle {
    op_identity!("DimShuffle");

    fn describe(&self) -> String {
        let (drop, augment) = (self.drop(), self.augment());
        let shuffled = self.is_shuffled();
        if augment.is_empty() && self.is_matrix_transpose() {
            return "MatrixTranspose".into();
        }
        match (drop.is_empty(), augment.is_empty(), shuffled) {
            (true, false, false) if augment.len() == 1 => {
                format!("ExpandDims{{axis={}}}", augment[0])
            }
            (true, false, false) => format!("ExpandDims{{axes={}}}", fmt_axes(&augment)),
            (false, true, false) if drop.len() == 1 => format!("Squeeze{{axis={}}}", drop[0]),
            (false, true, false) => format!("Squeeze{{axes={}}}", fmt_axes(&drop)),
            (true, true, true) => format!("Transpose{{axes={}}}", fmt_axes(&self.shuffle())),
            _ => {
                let items: Vec<String> = self
                    .new_order
                    .iter()
                    .map(|a| a.map_or("x".to_string(), |i| i.to_string()))
                    .collect();
                format!("DimShuffle{{order=[{}]}}", items.join(","))
            }
        }
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [input] = super::arity::exactly("DimShuffle", inputs)?;
        Ok(vec![self
            .output_type(input.expect_tensor("The input of DimShuffle")?)?
            .into()])
    }

    fn view_map(&self) -> IoMap {
        vec![(0, vec![0])]
    }

    /// A view: kept axes keep their strides, new axes get stride 0.
    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        if let Some(d) = self.drop().into_iter().find(|&d| x.shape()[d] != 1) {
            return Err(Error::Shape(format!(
                "{} cannot drop dimension {d} of an input of shape {:?}: its length is not 1",
                self.describe(),
                x.shape()
            )));
        }
        let shape: Vec<usize> = self
            .new_order
            .iter()
            .map(|a| a.map_or(1, |i| x.shape()[i]))
            .collect();
        let strides: Vec<isize> = self
            .new_order
            .iter()
            .map(|a| a.map_or(0, |i| x.strides()[i]))
            .collect();
        outputs[0] = Some(x.view(&shape, &strides, x.offset())?.into());
        Ok(())
    }

    fn infer_shape(&self, g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let shape = self
            .new_order
            .iter()
            .map(|axis| match axis {
                Some(i) => input_shapes[0][*i],
                None => infer_shape::dim_constant(g, 1),
            })
            .collect();
        Ok(Some(vec![shape]))
    }

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let input = g.node(node).inputs[0];
        Ok(vec![grad_rules::dimshuffle_pullback(
            self,
            g,
            output_grads[0],
            input,
        )?])
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        grad_rules::value_pushforward(g, node, tangents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    fn ds(ndim: usize, order: &[i64]) -> DimShuffle {
        let order = order
            .iter()
            .map(|&a| if a < 0 { None } else { Some(a as usize) })
            .collect();
        DimShuffle::new(ndim, order).unwrap()
    }

    #[test]
    fn names_like_pytensor() {
        assert_eq!(ds(0, &[-1]).describe(), "ExpandDims{axis=0}");
        assert_eq!(ds(1, &[-1, -1, 0]).describe(), "ExpandDims{axes=(0, 1)}");
        assert_eq!(ds(2, &[1, 0]).describe(), "MatrixTranspose");
        assert_eq!(ds(3, &[2, 1, 0]).describe(), "Transpose{axes=(2, 1, 0)}");
        assert_eq!(ds(2, &[1]).describe(), "Squeeze{axis=0}");
        assert_eq!(ds(2, &[1, -1, 0]).describe(), "DimShuffle{order=[1,x,0]}");
    }

    #[test]
    fn types_and_errors() {
        let m = TensorType::new(DType::Float64, [None, Some(1)]).unwrap();
        assert_eq!(
            ds(2, &[0]).output_type(&m).unwrap().shape.as_slice(),
            &[None]
        );
        assert_eq!(
            ds(2, &[1, -1, 0]).output_type(&m).unwrap().shape.as_slice(),
            &[Some(1), Some(1), None]
        );
        let fixed = TensorType::new(DType::Float64, [Some(3), Some(1)]).unwrap();
        assert!(ds(2, &[1]).output_type(&fixed).is_err());
        assert!(DimShuffle::new(1, vec![Some(1)]).is_err());
        assert!(DimShuffle::new(2, vec![Some(0), Some(0)]).is_err());
    }
}
