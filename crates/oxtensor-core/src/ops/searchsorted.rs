//! `SearchsortedOp{side}`: where each value would go in a sorted vector to
//! keep it sorted (NumPy's `searchsorted`), through an optional `sorter`
//! permutation. Mirrors `SearchsortedOp` in `pytensor/tensor/extra_ops.py`.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::sort::{compare_dtype, searchsorted};
use crate::op_identity;
use crate::ops::scalar_grad::{disconnected, grad_dtype, tensor};
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `SearchsortedOp{side}`: inputs are the sorted vector `x`, the values
/// `v` and optionally the integer vector `sorter`; the output is int64 in
/// `v`'s shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SearchsortedOp {
    /// `side='right'`: insert after equal elements (else before).
    pub right: bool,
}

impl SearchsortedOp {
    /// PyTensor's `side` prop.
    pub fn side(&self) -> &'static str {
        if self.right {
            "right"
        } else {
            "left"
        }
    }
}

impl Op for SearchsortedOp {
    op_identity!("SearchsortedOp", self => "side={}", self.side());

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let (x, v, sorter) = match inputs {
            [x, v] => (x, v, None),
            [x, v, s] => (x, v, Some(s)),
            _ => {
                return Err(Error::Type(format!(
                    "SearchsortedOp takes x, v and optionally sorter, got {} inputs",
                    inputs.len()
                )))
            }
        };
        let x = x.expect_tensor("The sorted input (x) of searchsorted")?;
        let v = v.expect_tensor("The values (v) of searchsorted")?;
        if x.ndim() != 1 {
            return Err(Error::Value(format!(
                "searchsorted: x must be a vector (1-d), got {x}"
            )));
        }
        compare_dtype(x.dtype, v.dtype)?;
        if let Some(s) = sorter {
            let s = s.expect_tensor("The sorter of searchsorted")?;
            if s.ndim() != 1 {
                return Err(Error::Value(format!(
                    "searchsorted: sorter must be a vector (1-d), got {s}"
                )));
            }
            if !s.dtype.is_integer() {
                return Err(Error::Type(format!(
                    "searchsorted: sorter must be an integer vector, got {s}"
                )));
            }
        }
        Ok(vec![TensorType::new(DType::Int64, v.shape.clone())?.into()])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let sorter = inputs.get(2).map(|s| s.tensor()).transpose()?;
        let found = searchsorted(inputs[0].tensor()?, inputs[1].tensor()?, sorter, self.right)?;
        outputs[0] = Some(found.into());
        Ok(())
    }

    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        Ok(Some(vec![input_shapes[1].clone()]))
    }

    /// Piecewise constant in `x` and `v`: zero gradients (as PyTensor
    /// gives); the sorter only permutes (disconnected).
    fn pullback(&self, g: &mut Graph, node: NodeId, _output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let mut out = Vec::with_capacity(inputs.len());
        for &input in &inputs[..2] {
            let dtype = grad_dtype(tensor(g, input)?.dtype);
            out.push(build::zeros_like(g, input, dtype)?);
        }
        if inputs.len() == 3 {
            out.push(disconnected(g));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::test_support::ty;

    #[test]
    fn type_rules() {
        let op = SearchsortedOp { right: false };
        assert_eq!(op.describe(), "SearchsortedOp{side=left}");
        let (x, v) = (ty(DType::Float64, 1), ty(DType::Float32, 3));
        let out = op.output_types(&[&x, &v]).unwrap();
        assert_eq!(out[0].as_tensor().unwrap().ndim(), 3);
        assert!(op.output_types(&[&x, &v, &ty(DType::Int8, 1)]).is_ok());
        // `Value` (not 1-d) and `Type` (not integer) errors, as PyTensor raises.
        let err = op.output_types(&[&v, &x]).unwrap_err();
        assert!(matches!(err, Error::Value(_)), "{err}");
        let err = op
            .output_types(&[&x, &v, &ty(DType::Float32, 1)])
            .unwrap_err();
        assert!(matches!(err, Error::Type(_)), "{err}");
        let err = op
            .output_types(&[&x, &v, &ty(DType::Int32, 2)])
            .unwrap_err();
        assert!(matches!(err, Error::Value(_)), "{err}");
    }
}
