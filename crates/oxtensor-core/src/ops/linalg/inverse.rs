//! `MatrixInverse`: `inv(x)` of a square matrix (`pytensor/tensor/linalg/
//! inverse.py`); an exactly singular matrix is a `ValueError`, as in NumPy.

use super::square_to_square;
use crate::build;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::Op;
use crate::types::Type;
use std::sync::Arc;

/// `MatrixInverse`: the inverse of a square matrix.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MatrixInverse;

/// `xᵀ` of a matrix.
pub(crate) fn transpose(g: &mut Graph, x: VarId) -> Result<VarId> {
    build::dimshuffle(g, x, vec![Some(1), Some(0)])
}

/// An `inv(x)` node.
pub fn inv(g: &mut Graph, x: VarId) -> Result<VarId> {
    g.apply_out(Arc::new(MatrixInverse), &[x])
}

impl Op for MatrixInverse {
    op_identity!("MatrixInverse");

    square_to_square!("MatrixInverse", self, x, dtype => linalg::inv(x, dtype));

    /// `-(Xᵀ · gz · Xᵀ)` with `X = inv(x)`.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let (x, xi) = (g.node(node).inputs[0], g.node(node).outputs[0]);
        let xi_t = transpose(g, xi)?;
        let left = build::dot(g, xi_t, output_grads[0])?;
        let prod = build::dot(g, left, xi_t)?;
        let gx = build::neg(g, prod)?;
        Ok(vec![super::in_dtype_of(g, gx, x)?])
    }
}
