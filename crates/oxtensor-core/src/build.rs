//! Building graphs from Rust: the functions behind `x * 2`, `x.sum()` and
//! friends, inserting the broadcasting `ExpandDims` that PyTensor inserts.
//! The Python layer uses the same plans (e.g. [`Elemwise::plan`]).

use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, VarId};
use crate::ops::blas::Dot;
use crate::ops::dimshuffle::{Axis, DimShuffle};
use crate::ops::elemwise::Elemwise;
use crate::ops::reduce::{CAReduce, ReduceKind};
use crate::ops::scalar::{ScalarKind, ScalarOp};
use crate::types::TensorType;
use std::sync::Arc;

fn tensor_type(g: &Graph, v: VarId) -> Result<TensorType> {
    Ok(g.try_var(v)?.ty.expect_tensor("An input")?.clone())
}

/// Applies a scalar op elementwise, broadcasting lower-rank inputs.
pub fn elemwise(g: &mut Graph, op: impl Into<ScalarOp>, inputs: &[VarId]) -> Result<VarId> {
    let op = Elemwise::new(op);
    let types: Vec<TensorType> = inputs
        .iter()
        .map(|&v| tensor_type(g, v))
        .collect::<Result<_>>()?;
    let plan = op.plan(&types.iter().collect::<Vec<_>>())?;
    let mut args = Vec::with_capacity(inputs.len());
    for (&v, expand) in inputs.iter().zip(plan.expand) {
        args.push(match expand {
            Some(ds) => g.apply_out(Arc::new(ds), &[v])?,
            None => v,
        });
    }
    g.apply_out(Arc::new(op), &args)
}

macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident => $kind:ident),*) => {$(
        $(#[$doc])*
        pub fn $name(g: &mut Graph, a: VarId, b: VarId) -> Result<VarId> {
            elemwise(g, ScalarKind::$kind, &[a, b])
        }
    )*};
}

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident => $kind:ident),*) => {$(
        $(#[$doc])*
        pub fn $name(g: &mut Graph, a: VarId) -> Result<VarId> {
            elemwise(g, ScalarKind::$kind, &[a])
        }
    )*};
}

binary!(
    /// `a + b`.
    add => Add,
    /// `a - b`.
    sub => Sub,
    /// `a * b`.
    mul => Mul,
    /// `a / b`.
    true_div => TrueDiv,
    /// `a ** b`.
    pow => Pow
);

unary!(
    /// `-a`.
    neg => Neg,
    /// `exp(a)`.
    exp => Exp,
    /// `log(a)`.
    log => Log
);

/// Converts to a dtype (`astype`); the same variable if the dtype matches.
pub fn cast(g: &mut Graph, a: VarId, dtype: DType) -> Result<VarId> {
    if tensor_type(g, a)?.dtype == dtype {
        return Ok(a);
    }
    elemwise(g, ScalarOp::Cast(dtype), &[a])
}

/// Reorders and expands axes (`x.dimshuffle(...)`).
pub fn dimshuffle(g: &mut Graph, a: VarId, order: Vec<Axis>) -> Result<VarId> {
    let ndim = tensor_type(g, a)?.ndim();
    g.apply_out(Arc::new(DimShuffle::new(ndim, order)?), &[a])
}

/// A reduction over `axis` (`None`: all axes).
pub fn reduce(g: &mut Graph, kind: ReduceKind, a: VarId, axis: Option<&[i64]>) -> Result<VarId> {
    let op = CAReduce::new(kind, axis, &tensor_type(g, a)?)?;
    g.apply_out(Arc::new(op), &[a])
}

/// `a.sum(axis)`.
pub fn sum(g: &mut Graph, a: VarId, axis: Option<&[i64]>) -> Result<VarId> {
    reduce(g, ReduceKind::Sum, a, axis)
}

/// `dot(a, b)` for vectors and matrices.
pub fn dot(g: &mut Graph, a: VarId, b: VarId) -> Result<VarId> {
    g.apply_out(Arc::new(Dot), &[a, b])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Tensor;

    #[test]
    fn broadcasting_inserts_expand_dims() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let two = g.tensor_constant(Tensor::scalar(2.0f32));
        let y = mul(&mut g, x, two).unwrap();
        let node = g.node(g.var(y).owner().unwrap());
        assert_eq!(
            g.describe_node(g.var(y).owner().unwrap()),
            "Mul(x, ExpandDims{axis=0}.0)"
        );
        assert_eq!(
            g.var(node.inputs[1]).ty.to_string(),
            "Vector(float32, shape=(1,))"
        );
        assert_eq!(g.var(y).ty.to_string(), "Vector(float64, shape=(?,))");
        assert_eq!(cast(&mut g, x, DType::Float64).unwrap(), x);
    }
}
