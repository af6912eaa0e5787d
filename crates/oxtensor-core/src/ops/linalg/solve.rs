//! `Solve`: `x` with `a @ x = b` for a square `a` and a vector or matrix `b`
//! (`pytensor/tensor/linalg/solvers/general.py`), by LU with partial
//! pivoting; an exactly singular `a` is a `ValueError`, as in NumPy.

use super::inverse::transpose;
use super::{check_matrix, float_dtype, tensor_inputs};
use crate::build;
use crate::dtype::upcast;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::Outs;
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `Solve{assume_a='gen', lower=False, b_ndim=1}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Solve {
    /// The structure assumed of `a`; only `"gen"` (general) runs here.
    pub assume_a: String,
    /// Which triangle of `a` a structured solve reads.
    pub lower: bool,
    /// The rank of `b` (1 or 2).
    pub b_ndim: usize,
}

impl Solve {
    /// A `Solve`, refusing structures other than `"gen"` and ranks other than 1 and 2.
    pub fn new(assume_a: &str, lower: bool, b_ndim: usize) -> Result<Solve> {
        if assume_a != "gen" {
            return Err(Error::OutOfScope(format!(
                "Solve with assume_a='{assume_a}' is not supported; only 'gen' is"
            )));
        }
        if !(1..=2).contains(&b_ndim) {
            return Err(Error::Value(format!(
                "Solve's b_ndim must be 1 or 2, got {b_ndim}"
            )));
        }
        Ok(Solve {
            assume_a: assume_a.into(),
            lower,
            b_ndim,
        })
    }

    fn output_type(&self, a: &TensorType, b: &TensorType) -> Result<TensorType> {
        check_matrix("Solve", 0, a, true)?;
        if b.ndim() != self.b_ndim {
            return Err(Error::Value(format!(
                "Solve{{b_ndim={}}} takes b of rank {}, got a {b}",
                self.b_ndim, self.b_ndim
            )));
        }
        let n = a.shape[0].or(a.shape[1]);
        if let (Some(n), Some(m)) = (n, b.shape[0]) {
            if n != m {
                return Err(Error::Value(format!(
                    "Solve: a of shape {} and b of shape {} do not match",
                    a.repr_shape(),
                    b.repr_shape()
                )));
            }
        }
        let dtype = float_dtype("Solve", &TensorType::new(upcast(&[a.dtype, b.dtype])?, [])?)?;
        TensorType::new(dtype, b.shape.iter().copied())
    }
}

/// A `Solve` node for `a @ x = b`.
pub fn solve(g: &mut Graph, a: VarId, b: VarId) -> Result<VarId> {
    let b_ndim = tensor(g, b)?.ndim();
    g.apply_out(Arc::new(Solve::new("gen", false, b_ndim)?), &[a, b])
}

impl Op for Solve {
    op_identity!("Solve");

    /// `b` a vector or a matrix of right-hand sides (`b_ndim`).
    fn gufunc_signature(&self) -> Option<&'static str> {
        match self.b_ndim {
            1 => Some("(m,m),(m)->(m)"),
            _ => Some("(m,m),(m,n)->(m,n)"),
        }
    }

    fn describe(&self) -> String {
        let lower = if self.lower { "True" } else { "False" };
        format!(
            "Solve{{assume_a='{}', lower={lower}, b_ndim={}}}",
            self.assume_a, self.b_ndim
        )
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let t = tensor_inputs("Solve", inputs, 2)?;
        Ok(vec![self.output_type(t[0], t[1])?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (a, b) = (inputs[0].tensor()?, inputs[1].tensor()?);
        if a.shape()[0] != b.shape()[0] {
            return Err(Error::Shape(format!(
                "Solve: a of shape {:?} and b of shape {:?} do not match",
                a.shape(),
                b.shape()
            )));
        }
        outputs[0] = Some(linalg::solve(a, b, ctx.output_dtype(0)?)?.into());
        Ok(())
    }

    crate::ops::shape_rules::shape_of_input!(1);

    /// `gb = solve(aᵀ, gz)` and `ga = -gb ⊗ x` (`-gb · xᵀ` for a matrix `b`).
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let (a, b) = (g.node(node).inputs[0], g.node(node).inputs[1]);
        let x = g.node(node).outputs[0];
        let a_t = transpose(g, a)?;
        let gb = solve(g, a_t, output_grads[0])?;
        let prod = if self.b_ndim == 1 {
            let col = build::dimshuffle(g, gb, vec![Some(0), None])?;
            let row = build::dimshuffle(g, x, vec![None, Some(0)])?;
            build::dot(g, col, row)?
        } else {
            let x_t = transpose(g, x)?;
            build::dot(g, gb, x_t)?
        };
        let ga = build::neg(g, prod)?;
        let (da, db) = (tensor(g, a)?.dtype, tensor(g, b)?.dtype);
        Ok(vec![match_dtype(g, ga, da)?, match_dtype(g, gb, db)?])
    }
}
