//! Building graphs from Rust: the functions behind `x * 2`, `x.sum()` and
//! friends, inserting the broadcasting `ExpandDims` that PyTensor inserts.
//! The Python layer uses the same plans (e.g. [`Elemwise::plan`]).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, VarId};
use crate::ops::blas::Dot;
use crate::ops::dimshuffle::{Axis, DimShuffle};
use crate::ops::elemwise::Elemwise;
use crate::ops::reduce::CAReduce;
use crate::ops::shape::{Reshape, Shape};
use crate::reduction::ReduceKind;
use crate::scalar::{ScalarKind, ScalarOp};
use crate::types::TensorType;
use std::sync::Arc;

pub mod canonical_slice;
pub mod einsum;
pub mod numpy_index;
pub mod sign;
pub mod variance;
pub mod vectorize;

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
    pow => Pow,
    /// `a // b`.
    int_div => IntDiv,
    /// `a == b`.
    eq => Eq,
    /// `a != b`.
    neq => Neq,
    /// `a & b`.
    and => And,
    /// `second(a, b)`: `b` broadcast to `a`'s shape (`fill`).
    fill => Second
);

unary!(
    /// `-a`.
    neg => Neg,
    /// `exp(a)`.
    exp => Exp,
    /// `log(a)`.
    log => Log,
    /// `sign(a)`.
    sign => Sign,
    /// `a ** 2`.
    sqr => Sqr,
    /// `sin(a)`.
    sin => Sin,
    /// `cos(a)`.
    cos => Cos,
    /// `sigmoid(a)`.
    sigmoid => Sigmoid,
    /// `~a`.
    invert => Invert
);

/// `switch(cond, a, b)`.
pub fn switch(g: &mut Graph, cond: VarId, a: VarId, b: VarId) -> Result<VarId> {
    elemwise(g, ScalarKind::Switch, &[cond, a, b])
}

/// A 0-d constant of `dtype` holding `value`.
pub fn scalar_constant(g: &mut Graph, dtype: DType, value: f64) -> VarId {
    let t = crate::kernels::elemwise::cast::scalar_as(value, dtype);
    g.tensor_constant(t)
}

/// A 0-d integer constant of the dtype a Python int gets (the narrowest
/// of int8 … int64 that holds it, PyTensor's autocast).
pub fn int_constant(g: &mut Graph, value: i64) -> Result<VarId> {
    let dtype = crate::dtype::autocast_int(value.into())?;
    Ok(g.tensor_constant(crate::kernels::elemwise::cast::scalar_as(value, dtype)))
}

/// `zeros_like(like, dtype)`: `fill(like, 0)`.
pub fn zeros_like(g: &mut Graph, like: VarId, dtype: DType) -> Result<VarId> {
    let zero = scalar_constant(g, dtype, 0.0);
    fill(g, like, zero)
}

/// `shape(a)`, an int64 vector.
pub fn shape(g: &mut Graph, a: VarId) -> Result<VarId> {
    g.apply_out(Arc::new(Shape), &[a])
}

/// `a.reshape(shape)` for an integer vector `shape` of static length.
pub fn reshape(g: &mut Graph, a: VarId, shape: VarId) -> Result<VarId> {
    let ndim = tensor_type(g, shape)?.shape[0]
        .ok_or_else(|| Error::Type("reshape needs a shape vector of known length".into()))?;
    g.apply_out(
        Arc::new(Reshape {
            ndim: ndim as usize,
        }),
        &[a, shape],
    )
}

/// The `DimShuffle` order that puts length-1 axes back at the `removed`
/// positions of a rank-`ndim` shape (after a reduction dropped them).
pub fn reinsert_axes(ndim: usize, removed: &[usize]) -> Vec<Axis> {
    let mut kept = 0;
    (0..ndim)
        .map(|i| {
            if removed.contains(&i) {
                None
            } else {
                kept += 1;
                Some(kept - 1)
            }
        })
        .collect()
}

/// Sums `a` over the axes where `target` is statically broadcastable and
/// `a` is not, keeping them as length-1 axes: the gradient of broadcasting.
pub fn sum_to(g: &mut Graph, a: VarId, target: &TensorType) -> Result<VarId> {
    let ty = tensor_type(g, a)?;
    if ty.ndim() != target.ndim() {
        return Err(Error::Type(format!(
            "cannot sum a {} to the shape of a {target}",
            ty
        )));
    }
    let axes: Vec<i64> = (0..ty.ndim())
        .filter(|&i| target.shape[i] == Some(1) && ty.shape[i] != Some(1))
        .map(|i| i as i64)
        .collect();
    if axes.is_empty() {
        return Ok(a);
    }
    let summed = sum(g, a, Some(&axes))?;
    let removed: Vec<usize> = axes.iter().map(|&i| i as usize).collect();
    let order = reinsert_axes(ty.ndim(), &removed);
    dimshuffle(g, summed, order)
}

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
    use crate::graph::testing::graph_with;

    #[test]
    fn broadcasting_inserts_expand_dims() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let two = g.tensor_constant(crate::tensor::Tensor::scalar(2.0f32));
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
