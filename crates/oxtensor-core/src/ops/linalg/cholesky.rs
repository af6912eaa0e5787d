//! `Cholesky`: the triangular factor of a symmetric positive definite matrix
//! (`pytensor/tensor/linalg/decomposition/cholesky.py`), and `CholeskyGrad`,
//! the native op its gradient builds. As in PyTensor, a matrix that is not
//! positive definite gives NaNs unless `on_error="raise"`.

use super::{square_float, tensor_inputs};
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::py_bool;
use crate::ops::Outs;
use crate::ops::{Op, PerformCtx};
use crate::types::Type;
use crate::value::Value;
use std::sync::Arc;

/// `Cholesky{lower=True}`: `L` with `x = L Lᵀ` (or `U = Lᵀ` if not `lower`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cholesky {
    /// Lower (`L`) or upper (`Lᵀ`) factor; that triangle of `x` is read.
    pub lower: bool,
    /// `"nan"`: a matrix that is not positive definite gives NaNs; `"raise"`: a `ValueError`.
    pub on_error: String,
}

impl Cholesky {
    /// A `Cholesky`, checking `on_error`.
    pub fn new(lower: bool, on_error: &str) -> Result<Cholesky> {
        if on_error != "nan" && on_error != "raise" {
            return Err(Error::Value(format!(
                "on_error must be 'raise' or 'nan', got {on_error:?}"
            )));
        }
        Ok(Cholesky {
            lower,
            on_error: on_error.into(),
        })
    }
}

impl Op for Cholesky {
    op_identity!("Cholesky", self => "lower={}", py_bool(self.lower));

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(m,m)->(m,m)")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        Ok(vec![square_float("Cholesky", inputs)?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let dtype = ctx.output_dtype(0)?;
        let nan = self.on_error == "nan";
        let out = linalg::cholesky(inputs[0].tensor()?, dtype, self.lower, nan)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(0);

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let (x, l) = (g.node(node).inputs[0], g.node(node).outputs[0]);
        let op = CholeskyGrad { lower: self.lower };
        let gx = g.apply_out(Arc::new(op), &[l, output_grads[0]])?;
        Ok(vec![super::in_dtype_of(g, gx, x)?])
    }
}

/// `CholeskyGrad{lower=True}(L, gL)`: the gradient of `cholesky` with
/// respect to its input, nonzero only in the triangle it reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CholeskyGrad {
    /// Whether the factor is lower triangular.
    pub lower: bool,
}

impl Op for CholeskyGrad {
    op_identity!("CholeskyGrad", self => "lower={}", py_bool(self.lower));

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let t = tensor_inputs("CholeskyGrad", inputs, 2)?;
        Ok(vec![square_float("CholeskyGrad", &[inputs[0]])?
            .with_dtype(crate::dtype::upcast(&[t[0].dtype, t[1].dtype])?)
            .into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (l, gl) = (inputs[0].tensor()?, inputs[1].tensor()?);
        let out = linalg::cholesky_grad(l, gl, ctx.output_dtype(0)?, self.lower)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(0);
}
