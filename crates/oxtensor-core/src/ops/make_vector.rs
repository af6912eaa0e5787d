//! `MakeVector{dtype}`: a vector from scalars (`as_tensor_variable([a, b])`
//! and `stack` of scalars). Mirrors `MakeVector` in `pytensor/tensor/basic.py`.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::alloc::output;
use crate::kernels::copy::{region, write_into};
use crate::kernels::elemwise::cast::cast;
use crate::op_identity;
use crate::ops::known;
use crate::ops::scalar_grad::{grad_dtype, match_dtype, tensor};
use crate::ops::split::split;
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `MakeVector{dtype}`: one 0-d input per element.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MakeVector {
    /// The output dtype; every input must convert to it without loss.
    pub dtype: DType,
}

impl Op for MakeVector {
    op_identity!("MakeVector", self => "dtype='{}'", self.dtype);

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        for ty in inputs {
            let t = ty.expect_tensor("An input of MakeVector")?;
            // PyTensor raises `ValueError` for a non-scalar input (and
            // `TypeError` for a dtype that does not fit, below).
            if t.ndim() != 0 {
                return Err(Error::Value(format!(
                    "MakeVector's inputs must be scalars, got {t}"
                )));
            }
            if t.dtype != self.dtype && !t.dtype.can_cast_safely(self.dtype) {
                return Err(Error::Type(format!(
                    "{}: an input of dtype {} cannot be cast to {} without loss",
                    self.describe(),
                    t.dtype,
                    self.dtype
                )));
            }
        }
        Ok(vec![TensorType::new(
            self.dtype,
            [Some(inputs.len() as u64)],
        )?
        .into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let out = output(Some(ctx.pool), self.dtype, &[inputs.len()])?;
        let size = self.dtype.itemsize();
        for (i, v) in inputs.iter().enumerate() {
            let slot = region(&out, &[], &[], i * size)?;
            write_into(&cast(v.tensor()?, self.dtype)?, &slot)?;
        }
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// As many elements as inputs.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let _ = (node, input_shapes.len());
        let n = crate::ops::infer_shape::dim_constant(g, input_shapes.len() as i64);
        Ok(Some(vec![vec![n]]))
    }

    /// Input `i` gets element `i` of the output gradient (a `Split` into
    /// length-1 pieces, each squeezed to 0-d).
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let n = inputs.len();
        let gz = output_grads[0];
        let zero = build::scalar_constant(g, DType::Int64, 0.0);
        let ones = g.tensor_constant(crate::tensor::Tensor::from_vec(vec![n], vec![1i64; n])?);
        let parts = split(g, gz, zero, ones, n)?;
        let mut grads = Vec::with_capacity(n);
        for (&x, p) in inputs.iter().zip(parts) {
            let e = build::dimshuffle(g, p, vec![])?;
            grads.push(match_dtype(g, e, tensor(g, x)?.dtype)?);
        }
        Ok(grads)
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        if tangents.iter().all(Option::is_none) || !self.dtype.is_continuous() {
            return Ok(Some(vec![None]));
        }
        let inputs = g.node(node).inputs.clone();
        let mut args = Vec::with_capacity(inputs.len());
        for (&x, t) in inputs.iter().zip(tangents) {
            let v = match t {
                Some(t) => *t,
                None => build::zeros_like(g, x, grad_dtype(self.dtype))?,
            };
            args.push(build::cast(g, v, self.dtype)?);
        }
        let op = Arc::new(MakeVector { dtype: self.dtype });
        Ok(Some(vec![Some(known::apply_out(g, op, &args)?)]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types() {
        let i: Type = TensorType::scalar(DType::Int32).into();
        let f: Type = TensorType::scalar(DType::Float64).into();
        let op = MakeVector {
            dtype: DType::Int64,
        };
        assert_eq!(
            op.output_types(&[&i, &i]).unwrap()[0].to_string(),
            "Vector(int64, shape=(2,))"
        );
        assert!(op.output_types(&[&f]).is_err());
        assert_eq!(op.describe(), "MakeVector{dtype='int64'}");
    }
}
