//! `Solve`: `x` with `a @ x = b` for a square `a` and a vector or matrix `b`
//! (`pytensor/tensor/linalg/solvers/general.py`), `a` general, symmetric,
//! positive definite or tridiagonal (`assume_a`); a system without a unique
//! solution gives NaNs, as PyTensor's `Solve` does. The type rule and the
//! pullback here are shared with `SolveTriangular` (PyTensor's `SolveBase`).

use super::inverse::transpose;
use super::{float_dtype, tensor_inputs};
use crate::build;
use crate::dtype::upcast;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::linalg::{self, Structure};
use crate::op_identity;
use crate::ops::py_bool;
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::Op;
use crate::types::{TensorType, Type};
use std::sync::Arc;

/// `Solve{assume_a='gen', lower=False, b_ndim=1, overwrite_a=False, overwrite_b=False}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Solve {
    /// The structure assumed of `a`: `gen`, `sym`, `her`, `pos`,
    /// `tridiagonal` or `banded` (PyTensor's short names).
    pub assume_a: String,
    /// Which triangle of `a` a symmetric solve reads.
    pub lower: bool,
    /// The rank of `b` (1 or 2).
    pub b_ndim: usize,
    /// PyTensor's props, kept for equality and printing; the kernel never
    /// writes its inputs (the output is a fresh buffer).
    pub overwrite_a: bool,
    /// As `overwrite_a`.
    pub overwrite_b: bool,
}

const VALID: [&str; 6] = ["gen", "sym", "her", "pos", "tridiagonal", "banded"];
const LONG: [(&str, &str); 4] = [
    ("general", "gen"),
    ("symmetric", "sym"),
    ("hermitian", "her"),
    ("positive definite", "pos"),
];

/// Checks `b_ndim` and PyTensor's rule that one output cannot destroy two inputs.
pub(crate) fn check_solve_props(b_ndim: usize, overwrite_a: bool, overwrite_b: bool) -> Result<()> {
    if !(1..=2).contains(&b_ndim) {
        return Err(Error::Value(format!("b_ndim must be 1 or 2, got {b_ndim}")));
    }
    if overwrite_a && overwrite_b {
        return Err(Error::NotImplemented(
            "It's not yet possible to overwrite_a and overwrite_b simultaneously".into(),
        ));
    }
    Ok(())
}

impl Solve {
    /// A `Solve`, `assume_a` in PyTensor's short or long names (any case).
    pub fn new(
        assume_a: &str,
        lower: bool,
        b_ndim: usize,
        overwrite_a: bool,
        overwrite_b: bool,
    ) -> Result<Solve> {
        let lowered = assume_a.to_lowercase();
        let short = LONG
            .iter()
            .find(|(long, _)| *long == lowered)
            .map_or(lowered.as_str(), |(_, s)| s);
        if !VALID.contains(&short) {
            let long: Vec<_> = LONG.iter().map(|(l, _)| format!("'{l}'")).collect();
            let valid: Vec<_> = VALID.iter().map(|v| format!("'{v}'")).collect();
            return Err(Error::Value(format!(
                "Invalid assume_a: {lowered}. It must be one of [{}] or [{}]",
                valid.join(", "),
                long.join(", ")
            )));
        }
        check_solve_props(b_ndim, overwrite_a, overwrite_b)?;
        Ok(Solve {
            assume_a: short.into(),
            lower,
            b_ndim,
            overwrite_a,
            overwrite_b,
        })
    }

    fn structure(&self) -> Structure {
        match self.assume_a.as_str() {
            "sym" | "her" => Structure::Symmetric,
            "pos" => Structure::Positive,
            "tridiagonal" => Structure::Tridiagonal,
            _ => Structure::General,
        }
    }
}

/// A general `Solve` node for `a @ x = b`.
pub fn solve(g: &mut Graph, a: VarId, b: VarId) -> Result<VarId> {
    let b_ndim = tensor(g, b)?.ndim();
    g.apply_out(
        Arc::new(Solve::new("gen", false, b_ndim, false, false)?),
        &[a, b],
    )
}

/// PyTensor's `SolveBase.make_node`: `a` a matrix, `b` of rank `b_ndim`
/// with as many rows, `x` of `b`'s shape in the float dtype of both.
pub(crate) fn solve_output_type(b_ndim: usize, inputs: &[&Type]) -> Result<Type> {
    let t = tensor_inputs("Solve", inputs, 2)?;
    let (a, b) = (t[0], t[1]);
    if a.ndim() != 2 {
        return Err(Error::Value(format!(
            "`A` must be a matrix; got {a} instead."
        )));
    }
    if b.ndim() != b_ndim {
        return Err(Error::Value(format!(
            "`b` must have {b_ndim} dims; got {b} instead."
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
    Ok(TensorType::new(dtype, b.shape.iter().copied())?.into())
}

/// The core signature of a solve whose `b` has rank `b_ndim`.
pub(crate) fn solve_signature(b_ndim: usize) -> Option<&'static str> {
    match b_ndim {
        1 => Some("(m,m),(m)->(m)"),
        _ => Some("(m,m),(m,n)->(m,n)"),
    }
}

/// Writes `SolveBase`'s methods: the core signature and type rule for
/// `b` of rank `self.b_ndim`, `x` shaped like `b`, and `perform` as
/// `$kernel`, which sees `a`, `b` and the output dtype under the names
/// given (`self` too, for the kernel's props).
macro_rules! solve_base_methods {
    ($self:ident, $a:ident, $b:ident, $dtype:ident => $kernel:expr) => {
        fn gufunc_signature(&self) -> Option<&'static str> {
            $crate::ops::linalg::solve::solve_signature(self.b_ndim)
        }

        fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
            let out = $crate::ops::linalg::solve::solve_output_type(self.b_ndim, inputs)?;
            Ok(vec![out])
        }

        $crate::ops::perform_one!($self, ctx, inputs => {
            let ($a, $b) = (inputs[0].tensor()?, inputs[1].tensor()?);
            let $dtype = ctx.output_dtype(0)?;
            $kernel
        });

        $crate::ops::shape_rules::shape_of_input!(1);
    };
}
pub(crate) use solve_base_methods;

/// `SolveBase`'s pullback (Giles 2008): `gb = solve'(aᵀ, gz)` with
/// `transposed` (the same op reading the other triangle), and
/// `ga = -gb ⊗ x` (`-gb · xᵀ` for a matrix `b`), in the inputs' dtypes.
pub(crate) fn solve_pullback(
    g: &mut Graph,
    node: NodeId,
    gz: VarId,
    transposed: Arc<dyn Op>,
) -> Result<(VarId, VarId)> {
    let (a, b) = (g.node(node).inputs[0], g.node(node).inputs[1]);
    let x = g.node(node).outputs[0];
    let a_t = transpose(g, a)?;
    let gb = g.apply_out(transposed, &[a_t, gz])?;
    let prod = if tensor(g, b)?.ndim() == 1 {
        let col = build::dimshuffle(g, gb, vec![Some(0), None])?;
        let row = build::dimshuffle(g, x, vec![None, Some(0)])?;
        build::dot(g, col, row)?
    } else {
        let x_t = transpose(g, x)?;
        build::dot(g, gb, x_t)?
    };
    let ga = build::neg(g, prod)?;
    let (da, db) = (tensor(g, a)?.dtype, tensor(g, b)?.dtype);
    Ok((match_dtype(g, ga, da)?, match_dtype(g, gb, db)?))
}

impl Op for Solve {
    op_identity!(
        "Solve",
        self => "assume_a='{}', lower={}, b_ndim={}, overwrite_a={}, overwrite_b={}",
        self.assume_a,
        py_bool(self.lower),
        self.b_ndim,
        py_bool(self.overwrite_a),
        py_bool(self.overwrite_b)
    );

    // `b` a vector or a matrix of right-hand sides (`b_ndim`).
    solve_base_methods!(self, a, b, dtype => {
        linalg::solve_structured(a, b, dtype, self.structure(), self.lower)
    });

    /// [`solve_pullback`] with the other triangle of `aᵀ` (the same one of `a`).
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let transposed = Solve {
            lower: !self.lower,
            overwrite_a: false,
            overwrite_b: false,
            ..self.clone()
        };
        let (ga, gb) = solve_pullback(g, node, output_grads[0], Arc::new(transposed))?;
        Ok(vec![ga, gb])
    }
}
