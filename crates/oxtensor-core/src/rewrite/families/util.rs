//! What tensor rewrites share: reading a node (its scalar kind, its
//! inputs' producers), reading constants through the broadcasting around
//! them (PyTensor's `get_underlying_scalar_constant_value`), and building
//! replacements of exactly the type they replace (dtype cast, broadcast).

use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, Graph, NodeId, Value, VarId};
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::elemwise::Elemwise;
use crate::ops::shape::Reshape;
use crate::ops::subtensor::Subtensor;
use crate::ops::{Op, OpRef};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::register_in;
use crate::rewrite::rewriter::NodeRewriter;
use crate::scalar::{ScalarKind, ScalarOp};
use crate::tensor::{Scalar, Tensor};
use crate::types::{TensorType, Type};
use std::sync::Arc;

/// The scalar op of a plain (not inplace) `Elemwise` node.
pub fn plain_scalar_op(fg: &FunctionGraph, node: NodeId) -> Option<&ScalarOp> {
    let op = fg.graph().node(node).op.as_any();
    let e = op.downcast_ref::<Elemwise>()?;
    e.inplace_pattern.is_empty().then_some(&e.scalar_op)
}

/// The scalar kind of a plain (not inplace) `Elemwise` node.
pub fn elemwise_kind(fg: &FunctionGraph, node: NodeId) -> Option<ScalarKind> {
    match plain_scalar_op(fg, node)? {
        ScalarOp::Kind(k) => Some(*k),
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

/// The highest rank among the tensors `vars`, 0 for none: an elementwise
/// node's output rank.
fn max_ndim(fg: &FunctionGraph, vars: &[VarId]) -> usize {
    vars.iter()
        .filter_map(|&v| tensor_type(fg, v).map(TensorType::ndim))
        .max()
        .unwrap_or(0)
}

/// `Elemwise(kind)` on `inputs`, as a new node (lower-rank inputs expanded).
pub fn elemwise(fg: &mut FunctionGraph, kind: ScalarKind, ins: &[VarId]) -> Result<VarId> {
    let ndim = max_ndim(fg, ins);
    let ins = ins
        .iter()
        .map(|&v| expanded_constant(fg, v, ndim))
        .collect::<Result<Vec<_>>>()?;
    build::elemwise(fg.graph_mut(), kind, &ins)
}

/// A constant of lower rank than `ndim` as a constant with leading length-1
/// axes: what constant folding makes of the `ExpandDims` `build::elemwise`
/// would put over it. Building the folded form directly keeps a rewrite
/// and the folding from undoing each other in an equilibrium.
fn expanded_constant(fg: &mut FunctionGraph, v: VarId, ndim: usize) -> Result<VarId> {
    let Some(Value::Tensor(t)) = fg.graph().var(v).constant().map(|c| &c.value) else {
        return Ok(v);
    };
    let missing = ndim.saturating_sub(t.ndim());
    if missing == 0 {
        return Ok(v);
    }
    let shape: Vec<usize> = std::iter::repeat_n(1, missing)
        .chain(t.shape().iter().copied())
        .collect();
    let strides: Vec<isize> = std::iter::repeat_n(0, missing)
        .chain(t.strides().iter().copied())
        .collect();
    let view = t.view(&shape, &strides, t.offset())?;
    Ok(fg.graph_mut().tensor_constant(view))
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

/// The op of `node` as a `T`, when it is one.
pub fn op_as<T: Op>(fg: &FunctionGraph, node: NodeId) -> Option<&T> {
    fg.graph().node(node).op.as_any().downcast_ref::<T>()
}

/// The node computing `v` and its op, when that op is a `T`.
pub fn owner_as<T: Op>(fg: &FunctionGraph, v: VarId) -> Option<(NodeId, &T)> {
    let node = fg.graph().var(v).owner()?;
    Some((node, op_as::<T>(fg, node)?))
}

/// Whether `v` is read once only, so a rewrite that absorbs its
/// computation does not make the graph compute it twice.
pub fn single_client(fg: &FunctionGraph, v: VarId) -> bool {
    fg.clients(v).len() == 1
}

/// The value of a 0-d integer (or bool) constant.
pub fn constant_int(fg: &FunctionGraph, v: VarId) -> Option<i64> {
    int_value(fg.graph(), v)
}

fn int_value(g: &Graph, v: VarId) -> Option<i64> {
    let Value::Tensor(t) = &g.var(v).constant()?.value else {
        return None;
    };
    (t.ndim() == 0)
        .then(|| crate::ops::known::int_at(t, 0, "a constant").ok())
        .flatten()
}

/// The entries of a constant integer vector.
pub fn constant_ints(fg: &FunctionGraph, v: VarId) -> Option<Vec<i64>> {
    int_values(fg.graph(), v)
}

fn int_values(g: &Graph, v: VarId) -> Option<Vec<i64>> {
    let Value::Tensor(t) = &g.var(v).constant()?.value else {
        return None;
    };
    (t.ndim() == 1)
        .then(|| {
            (0..t.len())
                .map(|i| crate::ops::known::int_at(t, i, "a length").ok())
                .collect()
        })
        .flatten()
}

/// `op` applied to `inputs`, typed as PyTensor's `make_node` types it:
/// constant inputs refine the static shape (`Alloc`, `Join`,
/// `SpecifyShape`, ...: [`known::apply_out`](crate::ops::known::apply_out);
/// `Reshape` to a constant shape; `Subtensor` with constant bounds), so
/// a rebuilt node's type says as much as the one it replaces.
pub fn apply(fg: &mut FunctionGraph, op: OpRef, inputs: &[VarId]) -> Result<VarId> {
    typed_apply(fg.graph_mut(), op, inputs)
}

/// [`apply`] on an arena.
pub fn typed_apply(g: &mut Graph, op: OpRef, inputs: &[VarId]) -> Result<VarId> {
    let types: Vec<Type> = inputs
        .iter()
        .map(|&v| Ok(g.try_var(v)?.ty.clone()))
        .collect::<Result<_>>()?;
    let refs: Vec<&Type> = types.iter().collect();
    let any = op.as_any();
    let out = if let Some(r) = any.downcast_ref::<Reshape>() {
        op.output_types(&refs)?;
        let x = types[0].expect_tensor("The input of Reshape")?;
        r.output_type(x, int_values(g, inputs[1]).as_deref())?
    } else if let Some(s) = any.downcast_ref::<Subtensor>() {
        let tensors = refs
            .iter()
            .map(|t| t.expect_tensor("An input of Subtensor"))
            .collect::<Result<Vec<_>>>()?;
        let consts: Vec<Option<i64>> = inputs[1..].iter().map(|&i| int_value(g, i)).collect();
        s.output_type(&tensors, &consts)?
    } else {
        return crate::ops::known::apply_out(g, op, inputs);
    };
    let node = g.add_node(op, inputs.to_vec(), vec![out.into()])?;
    Ok(g.node(node).outputs[0])
}

/// `op` (an `Elemwise`) applied to `inputs` of any ranks, lower ranks
/// expanded on the left as `build::elemwise` does.
pub fn apply_elemwise(fg: &mut FunctionGraph, op: OpRef, inputs: &[VarId]) -> Result<VarId> {
    let ndim = max_ndim(fg, inputs);
    let mut args = Vec::with_capacity(inputs.len());
    for &v in inputs {
        let n = tensor_type(fg, v).map_or(ndim, TensorType::ndim);
        args.push(if n < ndim {
            let ds = Arc::new(DimShuffle::expand_left(n, ndim));
            fg.graph_mut().apply_out(ds, &[v])?
        } else {
            v
        });
    }
    fg.graph_mut().apply_out(op, &args)
}

/// Registers `rw` in each of `phases` with `tags` (PyTensor stacks
/// `@register_canonicalize`, `@register_specialize`, ... on one rewriter).
pub fn register_phases(
    db: &RewriteDb,
    phases: &[&str],
    rw: Arc<dyn NodeRewriter>,
    tags: &[&str],
) -> Result<()> {
    phases
        .iter()
        .try_for_each(|p| register_in(db, p, rw.clone(), tags))
}

/// Whether `v` has one reader, a node, and is not an output (outputs are
/// clients too): a rewrite that absorbs it into a new node then leaves no
/// copy of its work behind.
pub fn read_once(fg: &FunctionGraph, v: VarId) -> bool {
    matches!(fg.clients(v).only(), Some(crate::graph::Client::Node(..)))
}

/// `x` when `v` is `-x`: `neg(x)`, or `mul(-1, x)` in either order with a
/// constant `-1` that neither broadcasts nor upcasts `x` (PyTensor's
/// `is_neg`, which looks through the `mul` form canonicalize gives
/// negations).
pub fn negated(fg: &FunctionGraph, v: VarId) -> Option<VarId> {
    if let Some(n) = produced_by(fg, v, ScalarKind::Neg) {
        return Some(inputs(fg, n)[0]);
    }
    let n = produced_by(fg, v, ScalarKind::Mul)?;
    let [a, b] = inputs(fg, n)[..] else {
        return None;
    };
    let same_type = |x: VarId| tensor_type(fg, x) == tensor_type(fg, v);
    [(a, b), (b, a)]
        .into_iter()
        .find(|&(c, x)| is_constant(fg, c, -1.0) && same_type(x))
        .map(|(_, x)| x)
}

/// The dtype of tensor `v` (`None` for other types).
pub fn dtype_of(fg: &FunctionGraph, v: VarId) -> Option<DType> {
    tensor_type(fg, v).map(|t| t.dtype)
}

/// `vars`, each cast to `dtype` when the dtype they compute in together
/// (their upcast) is not `dtype`: what a rewrite that drops an input which
/// forced an upcast (a float constant among integers) must do so the rest
/// still compute in the dtype the node did, with no new overflow.
pub fn computed_in(fg: &mut FunctionGraph, vars: &[VarId], dtype: DType) -> Result<Vec<VarId>> {
    let dtypes: Vec<DType> = vars.iter().filter_map(|&v| dtype_of(fg, v)).collect();
    if crate::dtype::upcast(&dtypes).ok() == Some(dtype) {
        return Ok(vars.to_vec());
    }
    vars.iter().map(|&v| cast_to(fg, v, dtype)).collect()
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
    crate::kernels::elemwise::elemwise(&ScalarOp::Kind(kind), ins, &bcast, dtype, None)
}

/// Whether the 0-d tensor `t` equals `x` (a complex one: with no imaginary part).
pub fn tensor_is(t: &Tensor, x: f64) -> bool {
    scalar_f64(t.get(0)) == Some(x)
}

/// A new 0-d constant holding `t`'s first element in `dtype`.
pub fn constant_in(fg: &mut FunctionGraph, t: &Tensor, dtype: DType) -> VarId {
    let t = crate::kernels::elemwise::cast::cast_constant(t, dtype);
    fg.graph_mut().tensor_constant(t)
}
