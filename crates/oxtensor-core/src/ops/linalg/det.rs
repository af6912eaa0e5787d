//! `Det`: the determinant of a square matrix, and `SLogDet`, its sign and
//! the log of its absolute value, both through an LU factorisation
//! (`pytensor/tensor/linalg/summary.py`).

use super::inverse::{inv, transpose};
use super::square_float;
use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::scalar_grad::tensor;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `scale · inv(x)ᵀ` in `x`'s dtype: `scale` times the gradient of
/// `log|det(x)|`.
fn scaled_inv_t(g: &mut Graph, x: VarId, scale: VarId) -> Result<VarId> {
    let xi = inv(g, x)?;
    let xi_t = transpose(g, xi)?;
    let gx = build::mul(g, scale, xi_t)?;
    super::in_dtype_of(g, gx, x)
}

/// `Det`: a 0-d output.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Det;

impl Op for Det {
    op_identity!("Det");

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(m,m)->()")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        if let [Type::Tensor(t)] = inputs {
            if let [Some(r), Some(c)] = t.shape[..] {
                if r != c {
                    // PyTensor's words for this one op.
                    return Err(Error::Value(format!(
                        "Determinant not defined for non-square matrix inputs. Shape received is {}",
                        t.repr_shape()
                    )));
                }
            }
        }
        let dtype = square_float("Det", inputs)?.dtype;
        Ok(vec![TensorType::new(dtype, [])?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let out = linalg::det(inputs[0].tensor()?, ctx.output_dtype(0)?)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, _input_shapes: &[Dims]) -> InferredShapes {
        Ok(Some(vec![Vec::new()]))
    }

    /// `gz · det(x) · inv(x)ᵀ`.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let (x, d) = (g.node(node).inputs[0], g.node(node).outputs[0]);
        let scale = build::mul(g, output_grads[0], d)?;
        Ok(vec![scaled_inv_t(g, x, scale)?])
    }
}

/// `SLogDet`: two 0-d outputs, the determinant's sign (0 when singular) and
/// `log|det|`, from the LU diagonal, so no product overflows on the way.
/// PyTensor's `slogdet` builds `sign(det(x))`, `log(abs(det(x)))` and its
/// `slogdet_specialization` rewrite turns them into this op; here
/// `slogdet` builds it directly.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SLogDet;

impl Op for SLogDet {
    op_identity!("SLogDet");

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(m,m)->(),()")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let dtype = square_float("SLogDet", inputs)?.dtype;
        let scalar: Type = TensorType::new(dtype, [])?.into();
        Ok(vec![scalar.clone(), scalar])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let pair = linalg::slogdet(inputs[0].tensor()?, ctx.output_dtype(0)?)?;
        super::set_outputs(outputs, pair);
        Ok(())
    }

    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, _input_shapes: &[Dims]) -> InferredShapes {
        Ok(Some(vec![Vec::new(), Vec::new()]))
    }

    /// `g · inv(x)ᵀ` from the log's gradient; the sign is piecewise
    /// constant, so its gradient adds nothing.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let x = g.node(node).inputs[0];
        let dtype = tensor(g, x)?.dtype;
        let glog = output_grads[1];
        if matches!(g.var(glog).ty, Type::Disconnected) {
            return Ok(vec![build::zeros_like(g, x, dtype)?]);
        }
        Ok(vec![scaled_inv_t(g, x, glog)?])
    }
}
