//! `SolveTriangular`: `x` with `a @ x = b` reading one triangle of `a`
//! (`pytensor/tensor/linalg/solvers/triangular.py`), its diagonal taken as
//! ones with `unit_diagonal`; an exact zero on the diagonal gives NaNs, as
//! PyTensor's does (LAPACK's `trtrs` reports it).

use super::solve::{solve_base_methods, solve_pullback};
use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg;
use crate::op_identity;
use crate::ops::arange::arange;
use crate::ops::py_bool;
use crate::ops::shape::ShapeI;
use crate::ops::Op;
use crate::scalar::ScalarKind;
use crate::types::Type;
use std::sync::Arc;

/// `SolveTriangular{unit_diagonal=False, lower=False, b_ndim=1, overwrite_b=False}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SolveTriangular {
    /// `a`'s diagonal is taken as ones (and not read).
    pub unit_diagonal: bool,
    /// Which triangle of `a` is read.
    pub lower: bool,
    /// The rank of `b` (1 or 2).
    pub b_ndim: usize,
    /// PyTensor's prop, kept for equality and printing; `b` is never written.
    pub overwrite_b: bool,
}

impl SolveTriangular {
    /// A `SolveTriangular`, checking `b_ndim`.
    pub fn new(
        unit_diagonal: bool,
        lower: bool,
        b_ndim: usize,
        overwrite_b: bool,
    ) -> Result<SolveTriangular> {
        super::solve::check_solve_props(b_ndim, false, overwrite_b)?;
        Ok(SolveTriangular {
            unit_diagonal,
            lower,
            b_ndim,
            overwrite_b,
        })
    }
}

/// `m` (a square matrix) with the entries outside its triangle `lower`
/// zeroed, and the diagonal too when `strict`.
fn triangle(g: &mut Graph, m: VarId, lower: bool, strict: bool) -> Result<VarId> {
    let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[m])?;
    let (zero, one) = (build::int_constant(g, 0)?, build::int_constant(g, 1)?);
    let idx = arange(g, zero, n, one, DType::Int64)?;
    let rows = build::dimshuffle(g, idx, vec![Some(0), None])?;
    let cols = build::dimshuffle(g, idx, vec![None, Some(0)])?;
    let keep = match (lower, strict) {
        (true, false) => ScalarKind::Ge,
        (true, true) => ScalarKind::Gt,
        (false, false) => ScalarKind::Le,
        (false, true) => ScalarKind::Lt,
    };
    let mask = build::elemwise(g, keep, &[rows, cols])?;
    let dtype = crate::ops::scalar_grad::tensor(g, m)?.dtype;
    let zero = build::scalar_constant(g, dtype, 0.0);
    build::switch(g, mask, m, zero)
}

impl Op for SolveTriangular {
    op_identity!(
        "SolveTriangular",
        self => "unit_diagonal={}, lower={}, b_ndim={}, overwrite_b={}",
        py_bool(self.unit_diagonal),
        py_bool(self.lower),
        self.b_ndim,
        py_bool(self.overwrite_b)
    );

    solve_base_methods!(self, a, b, dtype => {
        linalg::solve_triangular(a, b, dtype, self.lower, self.unit_diagonal)
    });

    /// `SolveBase`'s pullback, `ga` kept to the triangle read (without the
    /// diagonal when it is not read).
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let transposed = SolveTriangular {
            lower: !self.lower,
            overwrite_b: false,
            ..self.clone()
        };
        let (ga, gb) = solve_pullback(g, node, output_grads[0], Arc::new(transposed))?;
        let ga = triangle(g, ga, self.lower, self.unit_diagonal)?;
        Ok(vec![ga, gb])
    }
}
