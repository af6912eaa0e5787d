//! `Expm`: the matrix exponential of a square matrix
//! (`pytensor/tensor/linalg/products.py`'s `expm`, SciPy's), and
//! `ExpmGrad`, its gradient (the Fréchet derivative at `xᵀ`; see
//! [`crate::kernels::linalg::expm_grad`]).

use super::{grad_type, square_to_square};
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

    square_to_square!("Expm", self, x, dtype => linalg::expm(x, dtype));

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
        Ok(vec![grad_type("ExpmGrad", inputs, 2, 0, &[0, 1])?])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (x, gz) = (inputs[0].tensor()?, inputs[1].tensor()?);
        let out = linalg::expm_grad(x, gz, ctx.output_dtype(0)?)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(0);
}
