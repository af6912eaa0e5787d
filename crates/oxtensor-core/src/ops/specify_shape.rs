//! `SpecifyShape`: refines an input's static shape and checks it at run
//! time; its output is a view of the input. Mirrors
//! `pytensor/tensor/shape.py`'s `SpecifyShape`, except that an unspecified
//! dimension is the constant `-1` (PyTensor's `NoneConst`).

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::op_identity;
use crate::ops::known::{self, expect_int_scalar, KnownInputs};
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{IoMap, Op, PerformCtx};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `SpecifyShape`: inputs are the tensor and one integer scalar per axis
/// (negative: not specified).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SpecifyShape;

impl SpecifyShape {
    fn check_inputs<'a>(inputs: &[&'a Type]) -> Result<&'a TensorType> {
        let Some((x, dims)) = inputs.split_first() else {
            return Err(Error::Type("SpecifyShape needs an input".into()));
        };
        let x = x.expect_tensor("The input of SpecifyShape")?;
        if dims.len() != x.ndim() {
            return Err(Error::Value(format!(
                "Input is {}-dimensional and will never match a shape of length {}.",
                x.ndim(),
                dims.len()
            )));
        }
        for d in dims {
            expect_int_scalar(d, "A shape entry of SpecifyShape")?;
        }
        Ok(x)
    }
}

impl KnownInputs for SpecifyShape {
    fn known_output_types(&self, inputs: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Type>> {
        let x = Self::check_inputs(inputs)?;
        let mut shape = x.shape.to_vec();
        for (i, dim) in shape.iter_mut().enumerate() {
            let Some(want) = known[i + 1].and_then(|t| known::int_scalar(t, "a shape").ok()) else {
                continue;
            };
            match (*dim, u64::try_from(want)) {
                (_, Err(_)) => {}
                (Some(have), Ok(want)) if have != want => {
                    return Err(Error::Value(format!(
                    "SpecifyShape: dim {i} of the input has static shape {have}, expected {want}"
                )))
                }
                (_, Ok(want)) => *dim = Some(want),
            }
        }
        Ok(vec![TensorType::new(x.dtype, shape)?.into()])
    }
}

impl Op for SpecifyShape {
    op_identity!("SpecifyShape");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        self.known_output_types(inputs, &vec![None; inputs.len()])
    }

    fn view_map(&self) -> IoMap {
        vec![(0, vec![0])]
    }

    fn connection_pattern(&self, n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some((0..n_inputs).map(|i| vec![i == 0]).collect()))
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        if inputs.len() - 1 != x.ndim() {
            return Err(Error::Shape(format!(
                "SpecifyShape: got a shape of length {} for a {}-d input",
                inputs.len() - 1,
                x.ndim()
            )));
        }
        for (i, dim) in inputs[1..].iter().enumerate() {
            let want = known::int_scalar(dim.tensor()?, "A shape entry of SpecifyShape")?;
            if want >= 0 && x.shape()[i] as i64 != want {
                return Err(Error::Assertion(format!(
                    "SpecifyShape: dim {i} of input has shape {}, expected {want}.",
                    x.shape()[i]
                )));
            }
        }
        outputs[0] = Some(x.clone().into());
        Ok(())
    }

    /// The specified lengths where given (-1 keeps the input's).
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let inputs = g.node(node).inputs.clone();
        let mut shape = Vec::with_capacity(inputs.len() - 1);
        for (i, &dim) in inputs[1..].iter().enumerate() {
            let len = known::len_var(g, dim)?;
            let unspecified = matches!(
                g.var(dim).constant().map(|c| &c.value),
                Some(Value::Tensor(t)) if known::int_scalar(t, "A length")? < 0
            );
            shape.push(if unspecified { input_shapes[0][i] } else { len });
        }
        Ok(Some(vec![shape]))
    }

    /// The output's gradient with the same shape specified (as PyTensor
    /// does): the gradient graph keeps the static shape the forward one had.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let mut inputs = g.node(node).inputs.clone();
        inputs[0] = output_grads[0];
        let gx = known::apply_out(g, Arc::new(SpecifyShape), &inputs)?;
        Ok(super::grad_rules::value_grad_only(g, node, gx))
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        super::grad_rules::value_pushforward(g, node, tangents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn refines_and_checks_static_shapes() {
        let x: Type = TensorType::new(DType::Float64, [None, Some(3)])
            .unwrap()
            .into();
        let i: Type = TensorType::scalar(DType::Int64).into();
        let two = Tensor::scalar(2i64);
        let none = Tensor::scalar(-1i64);
        let out = SpecifyShape
            .known_output_types(&[&x, &i, &i], &[None, Some(&two), Some(&none)])
            .unwrap();
        assert_eq!(out[0].to_string(), "Matrix(float64, shape=(2, 3))");
        let err = SpecifyShape
            .known_output_types(&[&x, &i, &i], &[None, None, Some(&two)])
            .unwrap_err();
        assert!(err.to_string().contains("static shape 3, expected 2"));
        assert!(SpecifyShape.output_types(&[&x, &i]).is_err());
    }
}
