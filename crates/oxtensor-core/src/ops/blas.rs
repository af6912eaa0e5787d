//! Matrix products: `Dot` for vectors and matrices (`dot`, `@`), and
//! `Dot22`, its matrix-by-matrix form. Mirror `pytensor/tensor/math.py`'s
//! `Dot` and `tensor/blas.py`'s `Dot22`.

use crate::dtype::upcast;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg::dot;
use crate::op_identity;
use crate::ops::grad_rules;
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `Dot`: inner product of vectors, matrix-vector and matrix-matrix products.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dot;

impl Dot {
    /// The output type, with the contracted lengths checked where static.
    pub fn output_type(&self, x: &TensorType, y: &TensorType) -> Result<TensorType> {
        if !(1..=2).contains(&x.ndim()) || !(1..=2).contains(&y.ndim()) {
            return Err(Error::Type(format!(
                "Dot takes vectors and matrices, got inputs of type {x} and {y}"
            )));
        }
        let (k_x, k_y) = (x.shape[x.ndim() - 1], y.shape[0]);
        if let (Some(a), Some(b)) = (k_x, k_y) {
            if a != b {
                return Err(Error::Value(format!(
                    "Incompatible shapes for Dot: {} and {} (contracted lengths {a} and {b})",
                    x.repr_shape(),
                    y.repr_shape()
                )));
            }
        }
        let rows = (x.ndim() == 2).then(|| x.shape[0]);
        let cols = (y.ndim() == 2).then(|| y.shape[1]);
        let dtype = upcast(&[x.dtype, y.dtype])?;
        TensorType::new(dtype, rows.into_iter().chain(cols))
    }
}

/// The two tensor operands of `op` (`Dot` or `Dot22`).
fn operands<'a>(op: &str, inputs: &[&'a Type]) -> Result<[&'a TensorType; 2]> {
    super::arity::tensors(op, inputs, ["first input", "second input"])
}

impl Op for Dot {
    op_identity!("Dot");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, y] = operands("Dot", inputs)?;
        Ok(vec![self.output_type(x, y)?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let out = dot(
            inputs[0].tensor()?,
            inputs[1].tensor()?,
            ctx.output_dtype(0)?,
            Some(ctx.pool),
        )?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// The rows of `x` (if a matrix) then the columns of `y` (if a matrix).
    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let (x, y) = (&input_shapes[0], &input_shapes[1]);
        let rows = (x.len() == 2).then(|| x[0]);
        let cols = (y.len() == 2).then(|| y[1]);
        Ok(Some(vec![rows.into_iter().chain(cols).collect()]))
    }

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        grad_rules::dot_pullback(g, node, output_grads[0])
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        if tangents.iter().all(Option::is_none) {
            return Ok(Some(vec![None]));
        }
        Ok(Some(vec![Some(grad_rules::dot_pushforward(
            g, node, tangents,
        )?)]))
    }
}

/// `Dot22`: `Dot` of two matrices only (PyTensor's BLAS-level op for
/// `gemm`-shaped products); the same kernel, gradient and shapes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dot22;

impl Op for Dot22 {
    op_identity!("Dot22");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, y] = operands("Dot22", inputs)?;
        if x.ndim() != 2 || y.ndim() != 2 {
            return Err(Error::Type(format!(
                "Dot22 takes two matrices, got inputs of type {x} and {y}"
            )));
        }
        Ok(vec![Dot.output_type(x, y)?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        Dot.perform(ctx, inputs, outputs)
    }

    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        Dot.infer_shape(g, node, input_shapes)
    }

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        Dot.pullback(g, node, output_grads)
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        Dot.pushforward(g, node, tangents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn dot_types() {
        let m = TensorType::new(DType::Float32, [Some(2), Some(3)]).unwrap();
        let v = TensorType::new(DType::Float64, [None]).unwrap();
        assert_eq!(
            Dot.output_type(&m, &v).unwrap().to_string(),
            "Vector(float64, shape=(2,))"
        );
        assert_eq!(Dot.output_type(&v, &v).unwrap().ndim(), 0);
        let bad = TensorType::new(DType::Float32, [Some(4), Some(3)]).unwrap();
        assert!(Dot.output_type(&m, &bad).is_err());
    }
}
