//! `Cholesky`: the triangular factor of a symmetric positive definite matrix
//! (`pytensor/tensor/linalg/decomposition/cholesky.py`), and `CholeskyGrad`,
//! the native op its gradient builds. As in PyTensor, a matrix that is not
//! positive definite gives NaNs unless `on_error="raise"`.

use super::{grad_type, square_to_square};
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

    square_to_square!("Cholesky", self, x, dtype => {
        linalg::cholesky(x, dtype, self.lower, self.on_error == "nan")
    });

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
        Ok(vec![grad_type("CholeskyGrad", inputs, 2, 0, &[0, 1])?])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (l, gl) = (inputs[0].tensor()?, inputs[1].tensor()?);
        let out = linalg::cholesky_grad(l, gl, ctx.output_dtype(0)?, self.lower)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(0);
}
