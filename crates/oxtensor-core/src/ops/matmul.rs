//! `Matmul`: NumPy's `matmul` over stacks of matrices, batch axes broadcast
//! (statically, as `Elemwise` broadcasts). PyTensor builds it as
//! `Blockwise(Matmul)`; here it is one native op over inputs of equal rank
//! (the Python `matmul` pads the shorter one with `ExpandDims`).

use crate::build;
use crate::dtype::upcast;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg::matmul;
use crate::op_identity;
use crate::ops::dimshuffle::Axis;
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `Matmul`: `out[..., i, j] = sum_k x[..., i, k] * y[..., k, j]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Matmul;

/// One batch axis of the output: a static 1 takes the other length.
fn batch_len(x: Option<u64>, y: Option<u64>) -> std::result::Result<Option<u64>, ()> {
    match (x, y) {
        (Some(1), other) | (other, Some(1)) => Ok(other),
        (Some(a), Some(b)) if a != b => Err(()),
        (Some(a), _) | (_, Some(a)) => Ok(Some(a)),
        (None, None) => Ok(None),
    }
}

impl Matmul {
    /// The output type, with batch and contracted lengths checked where static.
    pub fn output_type(&self, x: &TensorType, y: &TensorType) -> Result<TensorType> {
        let nd = x.ndim();
        if nd < 2 || y.ndim() != nd {
            return Err(Error::Type(format!(
                "Matmul takes two tensors of the same rank >= 2, got {x} and {y}"
            )));
        }
        let mut shape = Vec::with_capacity(nd);
        for i in 0..nd - 2 {
            shape.push(batch_len(x.shape[i], y.shape[i]).map_err(|()| {
                Error::Value(format!(
                    "Incompatible Matmul batch input shapes {} and {}",
                    x.repr_shape(),
                    y.repr_shape()
                ))
            })?);
        }
        if let (Some(a), Some(b)) = (x.shape[nd - 1], y.shape[nd - 2]) {
            if a != b {
                return Err(Error::Value(format!(
                    "Incompatible shared dimension for dot product: {}, {}",
                    x.repr_shape(),
                    y.repr_shape()
                )));
            }
        }
        shape.push(x.shape[nd - 2]);
        shape.push(y.shape[nd - 1]);
        TensorType::new(upcast(&[x.dtype, y.dtype])?, shape)
    }
}

impl Op for Matmul {
    op_identity!("Matmul");

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(m,k),(k,n)->(m,n)")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, y] = super::arity::exactly("Matmul", inputs)?;
        let x = x.expect_tensor("The first input of Matmul")?;
        let y = y.expect_tensor("The second input of Matmul")?;
        Ok(vec![self.output_type(x, y)?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let dtype = ctx.output_dtype(0)?;
        let bcast = [ctx.input_bcast[0].as_slice(), ctx.input_bcast[1].as_slice()];
        let out = matmul(
            inputs[0].tensor()?,
            inputs[1].tensor()?,
            bcast,
            dtype,
            Some(ctx.pool),
        )?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// Batch axes from whichever input is not statically broadcastable there,
    /// then the rows of `x` and the columns of `y`.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let x_ty = tensor(g, g.node(node).inputs[0])?;
        let (x, y) = (&input_shapes[0], &input_shapes[1]);
        let nd = x.len();
        let mut out: Vec<VarId> = (0..nd - 2)
            .map(|i| if x_ty.shape[i] == Some(1) { y[i] } else { x[i] })
            .collect();
        out.extend([x[nd - 2], y[nd - 1]]);
        Ok(Some(vec![out]))
    }

    /// `gz @ yᵀ` and `xᵀ @ gz`, summed over the axes each input broadcast.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let (x, y, gz) = (inputs[0], inputs[1], output_grads[0]);
        let (xt, yt) = (tensor(g, x)?, tensor(g, y)?);
        let y_t = swap_last(g, y)?;
        let x_t = swap_last(g, x)?;
        let gx = apply(g, gz, y_t)?;
        let gy = apply(g, x_t, gz)?;
        let gx = build::sum_to(g, gx, &xt)?;
        let gy = build::sum_to(g, gy, &yt)?;
        Ok(vec![
            match_dtype(g, gx, xt.dtype)?,
            match_dtype(g, gy, yt.dtype)?,
        ])
    }
}

/// A `Matmul` node on `x` and `y` (of equal rank).
pub fn apply(g: &mut Graph, x: VarId, y: VarId) -> Result<VarId> {
    g.apply_out(Arc::new(Matmul), &[x, y])
}

/// `x` with its last two axes swapped (`mT`).
pub fn swap_last(g: &mut Graph, x: VarId) -> Result<VarId> {
    let nd = tensor(g, x)?.ndim();
    let mut order: Vec<Axis> = (0..nd).map(Some).collect();
    order.swap(nd - 2, nd - 1);
    build::dimshuffle(g, x, order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    fn ty(shape: &[Option<u64>]) -> TensorType {
        TensorType::new(DType::Float64, shape.iter().copied()).unwrap()
    }

    #[test]
    fn matmul_types() {
        let x = ty(&[None, Some(1), Some(3), Some(4)]);
        let y = ty(&[Some(5), Some(7), Some(4), Some(2)]);
        let out = Matmul.output_type(&x, &y).unwrap();
        assert_eq!(out.shape.to_vec(), vec![Some(5), Some(7), Some(3), Some(2)]);
        let bad = ty(&[Some(5), Some(7), Some(3), Some(2)]);
        assert!(Matmul.output_type(&x, &bad).is_err());
        let batch = ty(&[Some(2), Some(7), Some(4), Some(2)]);
        assert!(Matmul.output_type(&y, &batch).is_err());
        assert!(Matmul
            .output_type(&ty(&[Some(3)]), &ty(&[Some(3)]))
            .is_err());
    }
}
