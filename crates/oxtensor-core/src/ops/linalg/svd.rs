//! `SVD`: `x = U diag(s) Vh`, singular values descending
//! (`pytensor/tensor/linalg/decomposition/svd.py`), and `SVDGrad`, the
//! gradient of a thin SVD through all three outputs. With full matrices
//! only the singular values have a gradient: the extra columns of `U` and
//! rows of `Vh` are any orthonormal completion, so no gradient flows
//! through them (PyTensor's `NotImplementedError`).

use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::py_bool;
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
    op_identity!(
        "SVD",
        self => "full_matrices={}, compute_uv={}",
        py_bool(self.full_matrices),
        py_bool(self.compute_uv)
    );

    /// The shapes of `numpy.linalg.svd`'s results, `k = min(m, n)`.
    fn gufunc_signature(&self) -> Option<&'static str> {
        Some(match (self.compute_uv, self.full_matrices) {
            (true, true) => "(m,n)->(m,m),(k),(n,n)",
            (true, false) => "(m,n)->(m,k),(k),(k,n)",
            (false, _) => "(m,n)->(k)",
        })
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

    /// Through the singular values alone: `U[:, :k] diag(gs) Vh[:k]` from a
    /// thin SVD of the input. Through `U` or `Vh` too: `SVDGrad` of this
    /// (thin) node's outputs.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let disconnected = |v: VarId| matches!(g.var(v).ty, Type::Disconnected);
        let x = g.node(node).inputs[0];
        if self.compute_uv && !(disconnected(output_grads[0]) && disconnected(output_grads[2])) {
            if self.full_matrices {
                return Err(Error::NotImplemented(format!(
                    "{}: Gradient of svd not implemented for full_matrices=True through U or \
                     Vh (their extra columns are any orthonormal completion); use \
                     full_matrices=False",
                    self.describe()
                )));
            }
            let outs = g.node(node).outputs.clone();
            let mut args = outs.clone();
            args.extend(super::zeros_if_disconnected(g, &outs, output_grads)?);
            let gx = g.apply_out(Arc::new(SvdGrad), &args)?;
            return Ok(vec![super::in_dtype_of(g, gx, x)?]);
        }
        let gs = output_grads[usize::from(self.compute_uv)];
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

/// `SVDGrad(U, s, Vh, gU, gs, gVh)`: the gradient of a thin SVD with
/// respect to its input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SvdGrad;

impl Op for SvdGrad {
    op_identity!("SVDGrad");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let t = super::tensor_inputs("SVDGrad", inputs, 6)?;
        let dtypes: Vec<_> = t.iter().map(|t| t.dtype).collect();
        let dtype = crate::dtype::upcast(&dtypes)?;
        Ok(vec![TensorType::new(
            dtype,
            [t[0].shape[0], t[2].shape[1]],
        )?
        .into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let t: Vec<_> = inputs.iter().map(|v| v.tensor()).collect::<Result<_>>()?;
        let factors = [t[0], t[1], t[2]];
        let grads = [t[3], t[4], t[5]];
        let out = linalg::svd_grad(factors, grads, ctx.output_dtype(0)?)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        Ok(Some(vec![vec![input_shapes[0][0], input_shapes[2][1]]]))
    }
}
