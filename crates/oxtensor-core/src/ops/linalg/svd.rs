//! `SVD`: `x = U diag(s) Vh`, singular values descending
//! (`pytensor/tensor/linalg/decomposition/svd.py`). Its gradient covers
//! the singular values; gradients through `U` or `Vh` are out of scope.

use super::eigh::py_bool;
use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::scalar::ScalarKind;
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `SVD{full_matrices=True, compute_uv=True}`: outputs `[U, s, Vh]`, or `[s]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Svd {
    /// `U` (m, m) and `Vh` (n, n) rather than (m, k) and (k, n).
    pub full_matrices: bool,
    /// Whether `U` and `Vh` are outputs at all.
    pub compute_uv: bool,
}

impl Op for Svd {
    op_identity!("SVD");

    fn describe(&self) -> String {
        format!(
            "SVD{{full_matrices={}, compute_uv={}}}",
            py_bool(self.full_matrices),
            py_bool(self.compute_uv)
        )
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let (x, dtype) = super::float_matrix("SVD", inputs)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        let k = m.zip(n).map(|(m, n)| m.min(n));
        let s = TensorType::new(dtype, [k])?.into();
        if !self.compute_uv {
            return Ok(vec![s]);
        }
        let (uc, vr) = if self.full_matrices { (m, n) } else { (k, k) };
        let u = TensorType::new(dtype, [m, uc])?.into();
        let vh = TensorType::new(dtype, [vr, n])?.into();
        Ok(vec![u, s, vh])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let dtype = ctx.output_dtype(0)?;
        let x = inputs[0].tensor()?;
        let outs = linalg::svd(x, dtype, self.full_matrices, self.compute_uv)?;
        super::set_outputs(outputs, outs);
        Ok(())
    }

    fn infer_shape(&self, g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let (m, n) = (input_shapes[0][0], input_shapes[0][1]);
        let k = build::elemwise(g, ScalarKind::Minimum, &[m, n])?;
        if !self.compute_uv {
            return Ok(Some(vec![vec![k]]));
        }
        let (uc, vr) = if self.full_matrices { (m, n) } else { (k, k) };
        Ok(Some(vec![vec![m, uc], vec![k], vec![vr, n]]))
    }

    /// `U[:, :k] diag(gs) Vh[:k]` from a thin SVD of the input.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let disconnected = |v: VarId| matches!(g.var(v).ty, Type::Disconnected);
        let gs = if self.compute_uv {
            if !disconnected(output_grads[0]) || !disconnected(output_grads[2]) {
                return Err(Error::NotImplemented(format!(
                    "{}: the gradient through U and Vh is not implemented, only through the \
                     singular values (use compute_uv=False)",
                    self.describe()
                )));
            }
            output_grads[1]
        } else {
            output_grads[0]
        };
        let x = g.node(node).inputs[0];
        let thin = Svd {
            full_matrices: false,
            compute_uv: true,
        };
        let thin_node = g.apply(Arc::new(thin), &[x])?;
        let parts = g.node(thin_node).outputs.clone();
        let scaled = build::mul(g, parts[0], gs)?;
        let gx = build::dot(g, scaled, parts[2])?;
        Ok(vec![super::in_dtype_of(g, gx, x)?])
    }
}
