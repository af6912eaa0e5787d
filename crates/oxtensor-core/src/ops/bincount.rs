//! `Bincount{minlength}`: how often each non-negative integer occurs in a
//! vector, or the sum of the matching weights (NumPy's `bincount`), as one
//! op with a one-pass kernel (`kernels/index/bincount.rs`). PyTensor composes
//! `bincount` in `pytensor/tensor/extra_ops.py` from `inc_subtensor`.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::index::bincount;
use crate::op_identity;
use crate::ops::advanced_subtensor::AdvancedSubtensor1;
use crate::ops::ifelse::IfElse;
use crate::ops::scalar_grad::{disconnected, match_dtype, tensor};
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::reduction::ReduceKind;
use crate::scalar::ScalarKind;
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `Bincount{minlength}`: inputs are the integer vector `x` and optionally
/// a vector of weights of the same length; the output is int64 counts, or
/// sums in the weights' dtype.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bincount {
    /// The least number of bins (NumPy's `minlength`; 0 for none).
    pub minlength: usize,
}

impl Bincount {
    /// The output's static length: `minlength` for an input statically
    /// empty, else known only at run time.
    fn static_length(&self, x: &TensorType) -> Option<u64> {
        match x.shape.first() {
            Some(Some(0)) => Some(self.minlength as u64),
            _ => None,
        }
    }

    /// The weights' type checks; their dtype is the output's.
    fn weights_dtype(&self, x: &TensorType, w: &Type) -> Result<DType> {
        let w = w.expect_tensor("The weights of bincount")?;
        if w.ndim() != 1 || !(w.dtype.is_integer() || w.dtype.is_float()) {
            return Err(Error::Type(format!(
                "bincount: weights must be a vector of integers or floats, got {w}"
            )));
        }
        if let (Some(Some(a)), Some(Some(b))) = (x.shape.first(), w.shape.first()) {
            if a != b {
                return Err(Error::Shape(format!(
                    "bincount: the weights and x must have the same length, got {b} weights for {a} values"
                )));
            }
        }
        Ok(w.dtype)
    }
}

impl Op for Bincount {
    op_identity!("Bincount");

    fn describe(&self) -> String {
        match self.minlength {
            0 => "Bincount".into(),
            m => format!("Bincount{{minlength={m}}}"),
        }
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let (x, w) = match inputs {
            [x] => (x, None),
            [x, w] => (x, Some(w)),
            _ => {
                return Err(Error::Type(format!(
                    "Bincount takes x and optionally weights, got {} inputs",
                    inputs.len()
                )))
            }
        };
        let x = x.expect_tensor("The input of bincount")?;
        if x.ndim() != 1 || !x.dtype.is_integer() {
            return Err(Error::Type(format!(
                "bincount: x must be a vector of integers, got {x}"
            )));
        }
        let dtype = match w {
            Some(w) => self.weights_dtype(x, w)?,
            None => DType::Int64,
        };
        Ok(vec![TensorType::new(dtype, [self.static_length(x)])?.into()])
    }

    /// `x` only picks bins: no gradient flows to it.
    fn connection_pattern(&self, n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some((0..n_inputs).map(|i| vec![i == 1]).collect()))
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let w = inputs.get(1).map(|w| w.tensor()).transpose()?;
        outputs[0] = Some(bincount(ctx.pool, x, w, self.minlength)?.into());
        Ok(())
    }

    /// `max(x) + 1` (0 for an empty `x`, through a lazy `if`: `max` of
    /// nothing raises), at least `minlength`.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let x = g.node(node).inputs[0];
        let x_ty = tensor(g, x)?;
        if let Some(len) = self.static_length(&x_ty) {
            let len = build::scalar_constant(g, DType::Int64, len as f64);
            return Ok(Some(vec![vec![len]]));
        }
        let top = build::reduce(g, ReduceKind::Max, x, None)?;
        let top = build::cast(g, top, DType::Int64)?;
        let one = build::scalar_constant(g, DType::Int64, 1.0);
        let mut len = build::add(g, top, one)?;
        if x_ty.shape[0].is_none() {
            let zero = build::scalar_constant(g, DType::Int64, 0.0);
            let any = build::neq(g, input_shapes[0][0], zero)?;
            len = g.apply_out(Arc::new(IfElse { n_outs: 1 }), &[any, len, zero])?;
        }
        if self.minlength > 0 {
            let minlength = build::scalar_constant(g, DType::Int64, self.minlength as f64);
            len = build::elemwise(g, ScalarKind::Maximum, &[len, minlength])?;
        }
        Ok(Some(vec![vec![len]]))
    }

    /// The weights' gradient is the output's gradient at each value's bin,
    /// `gz[x]`; `x` is disconnected.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let mut out = vec![disconnected(g)];
        if let Some(&w) = inputs.get(1) {
            let gw = g.apply_out(Arc::new(AdvancedSubtensor1), &[output_grads[0], inputs[0]])?;
            let w_dtype = tensor(g, w)?.dtype;
            out.push(match_dtype(g, gw, w_dtype)?);
        }
        Ok(out)
    }

    /// Linear in the weights: the same op on their tangent.
    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let Some(&Some(t)) = tangents.get(1) else {
            return Ok(Some(vec![None]));
        };
        let x = g.node(node).inputs[0];
        let out = g.apply_out(Arc::new(self.clone()), &[x, t])?;
        Ok(Some(vec![Some(out)]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::test_support::perform_first;
    use crate::tensor::Tensor;

    fn vector(dtype: DType, n: Option<u64>) -> Type {
        TensorType::new(dtype, [n]).unwrap().into()
    }

    #[test]
    fn types_and_names() {
        let op = Bincount { minlength: 4 };
        assert_eq!(op.describe(), "Bincount{minlength=4}");
        assert_eq!(Bincount { minlength: 0 }.describe(), "Bincount");
        let x = vector(DType::UInt16, None);
        let w = vector(DType::Float32, None);
        // Inputs, and the output's dtype and static length (`None`: refused).
        type Case<'a> = (&'a [&'a Type], Option<(DType, Option<u64>)>);
        let cases: &[Case] = &[
            (&[&x], Some((DType::Int64, None))),
            (&[&x, &w], Some((DType::Float32, None))),
            (
                &[&vector(DType::Int8, Some(0))],
                Some((DType::Int64, Some(4))),
            ),
            (&[&vector(DType::Float64, None)], None),
            (&[&x, &vector(DType::Bool, None)], None),
            (
                &[&vector(DType::Int8, Some(2)), &vector(DType::Int8, Some(3))],
                None,
            ),
            (&[], None),
        ];
        for (inputs, want) in cases {
            let got = op.output_types(inputs);
            match want {
                Some((dtype, len)) => {
                    let ty = got.unwrap();
                    let ty = ty[0].as_tensor().unwrap();
                    assert_eq!((ty.dtype, ty.shape[0]), (*dtype, *len));
                }
                None => assert!(got.is_err(), "{inputs:?}"),
            }
        }
    }

    #[test]
    fn perform_counts_with_and_without_weights() {
        let op = Bincount { minlength: 0 };
        let x: Value = Tensor::from_vec(vec![4], vec![2i32, 0, 2, 3])
            .unwrap()
            .into();
        let w: Value = Tensor::from_vec(vec![4], vec![0.5f32, 1.0, 2.0, 4.0])
            .unwrap()
            .into();
        let counts = Tensor::from_vec(vec![4], vec![1i64, 0, 2, 1]).unwrap();
        assert!(perform_first(&op, &[&x]).unwrap().same_values(&counts));
        let sums = Tensor::from_vec(vec![4], vec![1.0f32, 0.0, 2.5, 4.0]).unwrap();
        assert!(perform_first(&op, &[&x, &w]).unwrap().same_values(&sums));
    }
}
