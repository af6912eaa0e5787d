//! `LUFactor` (`scipy.linalg.lu_factor`: the packed LU factors and LAPACK's
//! int32 pivots, `pytensor/tensor/linalg/decomposition/lu.py`), its
//! gradient op `LUFactorGrad`, and `PivotToPermutations`, the pivots as a
//! row permutation (what `lu_solve` indexes with).

use super::{check_matrix, float_dtype, tensor_inputs};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::py_bool;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `LUFactor{overwrite_a=False}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LuFactor {
    /// PyTensor's prop, kept for equality and printing; `a` is never written.
    pub overwrite_a: bool,
}

impl Op for LuFactor {
    op_identity!("LUFactor", self => "overwrite_a={}", py_bool(self.overwrite_a));

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(m,m)->(m,m),(m)")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let a = tensor_inputs("LUFactor", inputs, 1)?[0];
        if a.ndim() != 2 {
            return Err(Error::Type(format!(
                "LU only allowed on matrix (2-D) inputs, got {}-D input",
                a.ndim()
            )));
        }
        check_matrix("LUFactor", 0, a, true)?;
        let n = a.shape[0].or(a.shape[1]);
        Ok(vec![
            TensorType::new(float_dtype("LUFactor", a)?, [n, n])?.into(),
            TensorType::new(DType::Int32, [n])?.into(),
        ])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let factors = linalg::lu_factor(inputs[0].tensor()?, ctx.output_dtype(0)?)?;
        super::set_outputs(outputs, factors);
        Ok(())
    }

    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let n = input_shapes[0][0];
        Ok(Some(vec![vec![n, n], vec![n]]))
    }

    /// `LUFactorGrad(LU, pivots, gLU)`; the pivots carry no gradient.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let a = g.node(node).inputs[0];
        let outs = g.node(node).outputs.clone();
        let g_lu = super::zeros_if_disconnected(g, &outs[..1], &output_grads[..1])?[0];
        let ga = g.apply_out(Arc::new(LuFactorGrad), &[outs[0], outs[1], g_lu])?;
        Ok(vec![super::in_dtype_of(g, ga, a)?])
    }
}

/// `LUFactorGrad(LU, pivots, gLU)`: the gradient of `LUFactor`'s input (De
/// Hoog, Anderssen and Lukas, "Differentiation of matrix functionals using
/// triangular factorization").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LuFactorGrad;

impl Op for LuFactorGrad {
    op_identity!("LUFactorGrad");

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(m,m),(m),(m,m)->(m,m)")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let t = tensor_inputs("LUFactorGrad", inputs, 3)?;
        check_matrix("LUFactorGrad", 0, t[0], true)?;
        check_matrix("LUFactorGrad", 2, t[2], true)?;
        if !t[1].dtype.is_integer() || t[1].ndim() != 1 {
            return Err(Error::Type(format!(
                "LUFactorGrad's pivots must be an integer vector, got {}",
                t[1]
            )));
        }
        let dtype = crate::dtype::upcast(&[t[0].dtype, t[2].dtype])?;
        Ok(vec![
            TensorType::new(dtype, t[0].shape.iter().copied())?.into()
        ])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let t: Vec<_> = inputs.iter().map(|v| v.tensor()).collect::<Result<_>>()?;
        let ga = linalg::lu_factor_grad(t[0], t[1], t[2], ctx.output_dtype(0)?)?;
        outputs[0] = Some(ga.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(0);
}

/// `PivotToPermutations{inverse=True}`: LAPACK's pivots as the row order
/// `p` of the factored matrix (`inverse`: row `i` of `LU` is row `p[i]` of
/// `a`), or that order's inverse; int64.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PivotToPermutations {
    /// Which of the two permutations.
    pub inverse: bool,
}

impl Op for PivotToPermutations {
    op_identity!("PivotToPermutations", self => "inverse={}", py_bool(self.inverse));

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(x)->(x)")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let p = tensor_inputs("PivotToPermutations", inputs, 1)?[0];
        if p.ndim() != 1 {
            return Err(Error::Value(
                "PivotToPermutations only works on 1-D inputs".into(),
            ));
        }
        if !p.dtype.is_integer() {
            return Err(Error::Type(format!(
                "PivotToPermutations takes integer pivots, got {p}"
            )));
        }
        Ok(vec![TensorType::new(
            DType::Int64,
            p.shape.iter().copied(),
        )?
        .into()])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let p = linalg::pivots_to_permutation(inputs[0].tensor()?, self.inverse)?;
        outputs[0] = Some(p.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(0);

    crate::ops::constant_grads::disconnected_grads!();
}
