//! `QR`: `x = Q R` with orthonormal `Q` and upper-trapezoidal `R`
//! (`pytensor/tensor/linalg/decomposition/qr.py`), in the modes `"full"`/
//! `"complete"` (square `Q`), `"reduced"`/`"economic"` and `"r"` (only `R`,
//! of the input's shape), and `QRGrad`, the native op its gradient builds
//! (for a square `R`: a reduced QR of a matrix with `m >= n`).

use super::tensor_inputs;
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

/// `QR{mode='full'}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Qr {
    /// `"full"`, `"complete"`, `"reduced"`, `"economic"` or `"r"`.
    pub mode: String,
}

impl Qr {
    /// A `QR`, checking the mode (`"raw"` is out of scope).
    pub fn new(mode: &str) -> Result<Qr> {
        match mode {
            "full" | "complete" | "reduced" | "economic" | "r" => Ok(Qr { mode: mode.into() }),
            "raw" => Err(Error::OutOfScope(
                "QR with mode='raw' is not supported".into(),
            )),
            other => Err(Error::Value(format!(
                "QR mode must be one of 'full', 'complete', 'reduced', 'economic', 'r', \
                 got {other:?}"
            ))),
        }
    }

    fn complete(&self) -> bool {
        matches!(self.mode.as_str(), "full" | "complete" | "r")
    }

    fn with_q(&self) -> bool {
        self.mode != "r"
    }
}

impl Op for Qr {
    op_identity!("QR", self => "mode='{}'", self.mode);

    /// `Q` square and `R` as `a` (`"full"`), both reduced to `k = min(m, n)`,
    /// or `R` alone in `a`'s shape (`"r"`).
    fn gufunc_signature(&self) -> Option<&'static str> {
        match self.mode.as_str() {
            "full" | "complete" => Some("(m,n)->(m,m),(m,n)"),
            "reduced" | "economic" => Some("(m,n)->(m,k),(k,n)"),
            "r" => Some("(m,n)->(m,n)"),
            _ => None,
        }
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let (x, dtype) = super::float_matrix("QR", inputs)?;
        let (m, n) = (x.shape[0], x.shape[1]);
        let k = if self.complete() {
            m
        } else {
            m.zip(n).map(|(m, n)| m.min(n))
        };
        let r = TensorType::new(dtype, [k, n])?.into();
        if !self.with_q() {
            return Ok(vec![r]);
        }
        Ok(vec![TensorType::new(dtype, [m, k])?.into(), r])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let dtype = ctx.output_dtype(0)?;
        let x = inputs[0].tensor()?;
        let outs = linalg::qr(x, dtype, self.complete(), self.with_q())?;
        super::set_outputs(outputs, outs);
        Ok(())
    }

    fn infer_shape(&self, g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let (m, n) = (input_shapes[0][0], input_shapes[0][1]);
        let k = if self.complete() {
            m
        } else {
            build::elemwise(g, ScalarKind::Minimum, &[m, n])?
        };
        if !self.with_q() {
            return Ok(Some(vec![vec![k, n]]));
        }
        Ok(Some(vec![vec![m, k], vec![k, n]]))
    }

    /// `QRGrad(Q, R, gQ, gR)`, a disconnected output's gradient as zeros.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        if !self.with_q() {
            return Err(Error::NotImplemented(
                "the gradient of QR{mode='r'} is not implemented (use mode='reduced')".into(),
            ));
        }
        let x = g.node(node).inputs[0];
        let outs = g.node(node).outputs.clone();
        let mut args = outs.clone();
        args.extend(super::zeros_if_disconnected(g, &outs, output_grads)?);
        let gx = g.apply_out(Arc::new(QrGrad), &args)?;
        Ok(vec![super::in_dtype_of(g, gx, x)?])
    }
}

/// `QRGrad(Q, R, gQ, gR)`: the gradient of `QR` with respect to its input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QrGrad;

impl Op for QrGrad {
    op_identity!("QRGrad");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let t = tensor_inputs("QRGrad", inputs, 4)?;
        let dtype = crate::dtype::upcast(&[t[0].dtype, t[2].dtype, t[3].dtype])?;
        Ok(vec![TensorType::new(
            dtype,
            [t[0].shape[0], t[1].shape[1]],
        )?
        .into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let t: Vec<_> = inputs.iter().map(|v| v.tensor()).collect::<Result<_>>()?;
        let out = linalg::qr_grad(t[0], t[1], t[2], t[3], ctx.output_dtype(0)?)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        Ok(Some(vec![vec![input_shapes[0][0], input_shapes[1][1]]]))
    }
}
