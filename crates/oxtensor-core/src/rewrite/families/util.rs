//! What tensor rewrites share: reading a node (its scalar kind, its
//! inputs' producers), reading constants through the broadcasting around
//! them (PyTensor's `get_underlying_scalar_constant_value`), and building
//! replacements of exactly the type they replace (dtype cast, broadcast).

use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, Value, VarId};
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::elemwise::Elemwise;
use crate::ops::scalar::{ScalarKind, ScalarOp};
use crate::tensor::{Scalar, Tensor};
use crate::types::TensorType;

/// The scalar kind of a plain (not inplace) `Elemwise` node.
pub fn elemwise_kind(fg: &FunctionGraph, node: NodeId) -> Option<ScalarKind> {
    let e = fg
        .graph()
        .node(node)
        .op
        .as_any()
        .downcast_ref::<Elemwise>()?;
    match e.scalar_op {
        ScalarOp::Kind(k) if e.inplace_pattern.is_empty() => Some(k),
        _ => None,
    }
}

/// The node computing `v` when it is an `Elemwise` of `kind`.
pub fn produced_by(fg: &FunctionGraph, v: VarId, kind: ScalarKind) -> Option<NodeId> {
    let node = fg.graph().var(v).owner()?;
    (elemwise_kind(fg, node) == Some(kind)).then_some(node)
}

/// A node's inputs.
pub fn inputs(fg: &FunctionGraph, node: NodeId) -> Vec<VarId> {
    fg.graph().node(node).inputs.clone()
}

/// A node's only output.
pub fn output(fg: &FunctionGraph, node: NodeId) -> VarId {
    fg.graph().node(node).outputs[0]
}

/// The tensor type of `v` (every variable these rewrites touch is a tensor).
pub fn tensor_type(fg: &FunctionGraph, v: VarId) -> Option<&TensorType> {
    fg.graph().var(v).ty.as_tensor()
}

/// The one value every element of `v` holds, when `v` is a constant (seen
/// through `DimShuffle`s and `second`'s value input) of at least one
/// element, all equal.
pub fn constant_scalar(fg: &FunctionGraph, v: VarId) -> Option<Scalar> {
    let g = fg.graph();
    let mut cur = v;
    loop {
        if let Some(c) = g.var(cur).constant() {
            let Value::Tensor(t) = &c.value else {
                return None;
            };
            return uniform_value(t);
        }
        let node = g.var(cur).owner()?;
        let n = g.node(node);
        if n.op.as_any().is::<DimShuffle>() {
            cur = n.inputs[0];
        } else if elemwise_kind(fg, node) == Some(ScalarKind::Second) {
            cur = n.inputs[1];
        } else {
            return None;
        }
    }
}

fn uniform_value(t: &Tensor) -> Option<Scalar> {
    if t.is_empty() {
        return None;
    }
    let first = t.get(0);
    (1..t.len()).all(|i| t.get(i) == first).then_some(first)
}

/// The constant value of `v` as a float, when it has one.
pub fn constant_f64(fg: &FunctionGraph, v: VarId) -> Option<f64> {
    scalar_f64(constant_scalar(fg, v)?)
}

/// An element as a float (`None` for a complex one with an imaginary part).
pub fn scalar_f64(s: Scalar) -> Option<f64> {
    match s {
        Scalar::Bool(b) => Some(b as u8 as f64),
        Scalar::Int(x) => Some(x as f64),
        Scalar::UInt(x) => Some(x as f64),
        Scalar::Float(x, _) => Some(x),
        Scalar::Complex(re, im, _) => (im == 0.0).then_some(re),
    }
}

/// Whether `v` is a constant all of whose elements equal `x`.
pub fn is_constant(fg: &FunctionGraph, v: VarId, x: f64) -> bool {
    constant_f64(fg, v) == Some(x)
}

/// `Elemwise(kind)` on `inputs`, as a new node (lower-rank inputs expanded).
pub fn elemwise(fg: &mut FunctionGraph, kind: ScalarKind, ins: &[VarId]) -> Result<VarId> {
    build::elemwise(fg.graph_mut(), kind, ins)
}

/// `v` in `dtype` (itself if it already is).
pub fn cast_to(fg: &mut FunctionGraph, v: VarId, dtype: DType) -> Result<VarId> {
    match tensor_type(fg, v) {
        Some(t) if t.dtype == dtype => Ok(v),
        _ => build::cast(fg.graph_mut(), v, dtype),
    }
}

/// `v` made to stand for `old`: cast to its dtype, and broadcast against
/// `like` (inputs of the node being replaced, which carry its shape) when
/// `v`'s static shape is narrower than `old`'s (PyTensor's `fill`); a
/// variable of `like` that would not broadcast `v` further is skipped.
pub fn like(fg: &mut FunctionGraph, v: VarId, old: VarId, like: &[VarId]) -> Result<VarId> {
    let Some(want) = tensor_type(fg, old).cloned() else {
        return Ok(v);
    };
    let mut out = cast_to(fg, v, want.dtype)?;
    for &l in like {
        if covers(fg, out, &want) {
            break;
        }
        if l != out && broadcasted_by(fg, out, l) {
            out = build::fill(fg.graph_mut(), l, out)?;
            out = cast_to(fg, out, want.dtype)?;
        }
    }
    Ok(out)
}

/// Whether `x` would be broadcast by `y` in an `Elemwise` (PyTensor's
/// `broadcasted_by`): `y` has more axes, or a non-length-1 axis where `x`
/// has a static 1.
pub fn broadcasted_by(fg: &FunctionGraph, x: VarId, y: VarId) -> bool {
    let (Some(tx), Some(ty)) = (tensor_type(fg, x), tensor_type(fg, y)) else {
        return false;
    };
    if tx.ndim() < ty.ndim() {
        return true;
    }
    let tail = &tx.shape[tx.ndim() - ty.ndim()..];
    tail.iter()
        .zip(&ty.shape)
        .any(|(a, b)| *a == Some(1) && *b != Some(1))
}

/// Whether `v` has `want`'s rank and no static 1 where `want` has a longer
/// (or unknown) axis, i.e. it broadcasts to nothing larger than itself.
fn covers(fg: &FunctionGraph, v: VarId, want: &TensorType) -> bool {
    let Some(t) = tensor_type(fg, v) else {
        return false;
    };
    t.ndim() == want.ndim()
        && t.shape
            .iter()
            .zip(&want.shape)
            .all(|(have, need)| *have != Some(1) || *need == Some(1))
}

/// The dtype of `v` (every variable these rewrites touch is a tensor).
pub fn dtype_of(fg: &FunctionGraph, v: VarId) -> Option<DType> {
    tensor_type(fg, v).map(|t| t.dtype)
}

/// Whether `v` is a real or complex float (where `x * y / y` is `x` up to
/// rounding, and where NaN can occur).
pub fn is_inexact(fg: &FunctionGraph, v: VarId) -> bool {
    dtype_of(fg, v).is_some_and(|d| d.is_float() || d.is_complex())
}

/// The one value of a constant all of whose elements are equal, as a 0-d
/// tensor of the constant's dtype (PyTensor's `TensorConstant.unique_value`).
/// `v` must be the constant itself, or a broadcast of it (`DimShuffle`s
/// only: unlike [`constant_scalar`], a `second` is not looked through, as
/// its shape input may matter).
pub fn unique_value(fg: &FunctionGraph, v: VarId) -> Option<Tensor> {
    let g = fg.graph();
    let mut cur = v;
    while let Some(node) = g.var(cur).owner() {
        let n = g.node(node);
        if !n.op.as_any().is::<DimShuffle>() {
            return None;
        }
        cur = n.inputs[0];
    }
    let Value::Tensor(t) = &g.var(cur).constant()?.value else {
        return None;
    };
    uniform_value(t)?;
    t.view(&[], &[], t.offset()).ok()
}

/// `kind` applied to 0-d constants, computed in `dtype` as the kernels
/// compute it at run time (wrapping integers, IEEE floats).
pub fn fold(kind: ScalarKind, ins: &[&Tensor], dtype: DType) -> Result<Tensor> {
    let bcast = vec![Vec::new(); ins.len()];
    crate::kernels::elemwise::elemwise(ScalarOp::Kind(kind), ins, &bcast, dtype, None)
}

/// Whether the 0-d tensor `t` equals `x` (a complex one: with no imaginary part).
pub fn tensor_is(t: &Tensor, x: f64) -> bool {
    scalar_f64(t.get(0)) == Some(x)
}

/// A new 0-d constant holding `t`'s first element in `dtype`.
pub fn constant_in(fg: &mut FunctionGraph, t: &Tensor, dtype: DType) -> VarId {
    let t = crate::kernels::cast::cast(t, dtype);
    fg.graph_mut().tensor_constant(t)
}
