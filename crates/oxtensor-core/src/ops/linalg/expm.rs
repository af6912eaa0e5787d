//! `Expm`: the matrix exponential of a square matrix
//! (`pytensor/tensor/linalg/products.py`'s `expm`, SciPy's), and
//! `ExpmGrad`, its gradient (the Fréchet derivative at `xᵀ`; see
//! [`crate::kernels::linalg::expm_grad`]).

use super::{square_float, tensor_inputs};
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::Outs;
use crate::ops::{Op, PerformCtx};
use crate::types::Type;
use crate::value::Value;
use std::sync::Arc;

/// `Expm`: `exp` of a square matrix, `Σ xᵏ / k!`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expm;

impl Op for Expm {
    op_identity!("Expm");

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(m,m)->(m,m)")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        Ok(vec![square_float("Expm", inputs)?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let out = linalg::expm(inputs[0].tensor()?, ctx.output_dtype(0)?)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(0);

    /// `ExpmGrad(x, gz)`.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let x = g.node(node).inputs[0];
        let gx = g.apply_out(Arc::new(ExpmGrad), &[x, output_grads[0]])?;
        Ok(vec![super::in_dtype_of(g, gx, x)?])
    }
}

/// `ExpmGrad(x, gz)`: the gradient of `expm` at `x`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExpmGrad;

impl Op for ExpmGrad {
    op_identity!("ExpmGrad");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let t = tensor_inputs("ExpmGrad", inputs, 2)?;
        let dtype = crate::dtype::upcast(&[t[0].dtype, t[1].dtype])?;
        Ok(vec![square_float("ExpmGrad", &[inputs[0]])?
            .with_dtype(dtype)
            .into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (x, gz) = (inputs[0].tensor()?, inputs[1].tensor()?);
        let out = linalg::expm_grad(x, gz, ctx.output_dtype(0)?)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(0);
}
