//! Static types from constant inputs. PyTensor's `make_node` of `Alloc`,
//! `Join`, `Split`, `ARange`, `Eye` and `SpecifyShape` reads the values of
//! constant inputs (`zeros((3, n))` is typed `(3, None)`); the `Op` trait's
//! `output_types` sees only types, so these ops also implement
//! [`KnownInputs`], which both graph builders (Rust and Python) consult.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, VarId};
use crate::ops::alloc::{Alloc, AllocEmpty};
use crate::ops::arange::{ARange, Eye};
use crate::ops::join::Join;
use crate::ops::specify_shape::SpecifyShape;
use crate::ops::split::Split;
use crate::ops::{Op, OpRef};
use crate::tensor::{Scalar, Tensor};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// An op whose output types can use the values of its constant inputs.
pub trait KnownInputs: Op {
    /// The output types; `known[i]` is input `i`'s value when it is a constant.
    fn known_output_types(&self, inputs: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Type>>;
}

/// `op` as a [`KnownInputs`], if it is one of the ops that read constants.
pub fn as_known(op: &dyn Op) -> Option<&dyn KnownInputs> {
    let any = op.as_any();
    macro_rules! try_as {
        ($($t:ty),*) => {$(
            if let Some(o) = any.downcast_ref::<$t>() {
                return Some(o);
            }
        )*};
    }
    try_as!(Alloc, AllocEmpty, ARange, Eye, Join, Split, SpecifyShape);
    None
}

/// The output types of `op` on `inputs` of graph `g`, using constant values.
pub fn output_types(g: &Graph, op: &dyn Op, inputs: &[VarId]) -> Result<Vec<Type>> {
    let types: Vec<&Type> = inputs
        .iter()
        .map(|v| g.try_var(*v).map(|d| &d.ty))
        .collect::<Result<_>>()?;
    match as_known(op) {
        Some(k) => {
            let known: Vec<Option<&Tensor>> = inputs
                .iter()
                .map(|v| match g.var(*v).constant().map(|c| &c.value) {
                    Some(Value::Tensor(t)) => Some(t),
                    _ => None,
                })
                .collect();
            k.known_output_types(&types, &known)
        }
        None => op.output_types(&types),
    }
}

/// Applies `op` with constant-aware typing; returns the node's outputs.
pub fn apply(g: &mut Graph, op: OpRef, inputs: &[VarId]) -> Result<Vec<VarId>> {
    let types = output_types(g, op.as_ref(), inputs)?;
    let node = g.add_node(op, inputs.to_vec(), types)?;
    Ok(g.node(node).outputs.clone())
}

/// Applies a single-output op with constant-aware typing.
pub fn apply_out(g: &mut Graph, op: OpRef, inputs: &[VarId]) -> Result<VarId> {
    apply(g, op, inputs)?
        .first()
        .copied()
        .ok_or_else(|| Error::Value("the op has no output".into()))
}

/// An integer element as `i64`, or a `TypeError` naming `what`.
pub fn int_at(t: &Tensor, i: usize, what: &str) -> Result<i64> {
    match t.get(i) {
        Scalar::Int(v) => Ok(v),
        Scalar::UInt(v) => {
            i64::try_from(v).map_err(|_| Error::Value(format!("{what} {v} is too large")))
        }
        Scalar::Bool(b) => Ok(b as i64),
        other => Err(Error::Type(format!(
            "{what} must be an integer, got {other:?}"
        ))),
    }
}

/// The value of a 0-d integer tensor.
pub fn int_scalar(t: &Tensor, what: &str) -> Result<i64> {
    if t.ndim() != 0 {
        return Err(Error::Type(format!(
            "{what} must be a scalar, got shape {:?}",
            t.shape()
        )));
    }
    int_at(t, 0, what)
}

/// A known non-negative length from a constant, as a static dimension.
pub fn known_len(t: Option<&Tensor>) -> Option<u64> {
    t.and_then(|t| int_scalar(t, "a length").ok())
        .and_then(|v| u64::try_from(v).ok())
}

/// Checks that `ty` is a 0-d integer tensor (a length or an axis).
pub fn expect_int_scalar(ty: &Type, what: &str) -> Result<()> {
    let t = ty.expect_tensor(what)?;
    if t.ndim() != 0 || !(t.dtype.is_integer() || t.dtype == DType::Bool) {
        return Err(Error::Type(format!(
            "{what} must be an integer scalar, got {t}"
        )));
    }
    Ok(())
}

/// The tensor type of an input, naming the op in the error.
pub fn tensor_input<'a>(ty: &'a Type, what: &str) -> Result<&'a TensorType> {
    ty.expect_tensor(what)
}

/// A length input as an int64 scalar for `infer_shape`: the constant itself
/// when known, else the variable cast to int64.
pub fn len_var(g: &mut Graph, v: VarId) -> Result<VarId> {
    if let Some(Value::Tensor(t)) = g.var(v).constant().map(|c| &c.value) {
        let n = int_scalar(t, "A length")?;
        return Ok(crate::ops::infer_shape::dim_constant(g, n));
    }
    crate::build::cast(g, v, DType::Int64)
}

/// The symbolic lengths of a node's output from its static type where
/// every axis is known, else `None`.
pub fn static_dims(g: &mut Graph, out: VarId) -> Result<Option<Vec<VarId>>> {
    let ty = g.var(out).ty.expect_tensor("The output")?.clone();
    let Some(dims) = ty.shape.iter().copied().collect::<Option<Vec<u64>>>() else {
        return Ok(None);
    };
    Ok(Some(
        dims.iter()
            .map(|&d| crate::ops::infer_shape::dim_constant(g, d as i64))
            .collect(),
    ))
}

/// A constant axis input, normalised against `ndim`; `None` if symbolic.
pub fn constant_axis(g: &Graph, axis: VarId, ndim: usize, op: &str) -> Result<Option<usize>> {
    match g.var(axis).constant().map(|c| &c.value) {
        Some(Value::Tensor(t)) => Ok(Some(crate::ops::join::normalize_axis(
            int_scalar(t, "The axis")?,
            ndim,
            op,
        )?)),
        _ => Ok(None),
    }
}

/// `along` where the symbolic `axis` names axis `d` of `ndim` (counting
/// from either end), else `other`: a shape entry under a symbolic axis.
pub fn pick_axis(
    g: &mut Graph,
    axis: VarId,
    d: usize,
    ndim: usize,
    along: VarId,
    other: VarId,
) -> Result<VarId> {
    let pos = crate::build::scalar_constant(g, DType::Int64, d as f64);
    let neg = crate::build::scalar_constant(g, DType::Int64, d as f64 - ndim as f64);
    let here = crate::build::eq(g, axis, pos)?;
    let here_neg = crate::build::eq(g, axis, neg)?;
    let cond = crate::build::elemwise(g, crate::scalar::ScalarKind::Or, &[here, here_neg])?;
    crate::build::switch(g, cond, along, other)
}
