//! Pullbacks and pushforwards of the structural built-in ops: `DimShuffle`,
//! the reductions, `Reshape`, `Dot` and `IfElse` (`Elemwise`'s live with the
//! scalar derivatives in `scalar_grad.rs`). Each op's trait methods call
//! the function here named after it.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::ops::dimshuffle::{Axis, DimShuffle};
use crate::ops::ifelse::IfElse;
use crate::ops::reduce::CAReduce;
use crate::ops::scalar_grad::{disconnected, grad_dtype, match_dtype, tensor};
use crate::ops::Tangents;
use crate::reduction::ReduceKind;
use crate::types::Type;
use std::sync::Arc;

/// `pullback` of an op whose output holds its input's values (a copy, a
/// contiguous view): the output's gradient unchanged.
macro_rules! identity_pullback {
    () => {
        $crate::ops::constant_grads::pullback_fn!(_g, _node, output_grads => {
            Ok(vec![output_grads[0]])
        });
    };
}
pub(crate) use identity_pullback;

fn is_disconnected(g: &Graph, v: VarId) -> bool {
    matches!(g.var(v).ty, Type::Disconnected)
}

fn io(g: &Graph, node: NodeId) -> (Vec<VarId>, Vec<VarId>) {
    let n = g.node(node);
    (n.inputs.clone(), n.outputs.clone())
}

/// `DimShuffle`: the inverse shuffle of the output gradient; new axes are
/// summed away (they have length 1), dropped axes come back as length 1.
pub fn dimshuffle_pullback(
    op: &DimShuffle,
    g: &mut Graph,
    gz: VarId,
    input: VarId,
) -> Result<VarId> {
    let augment = op.augment();
    let gz_ty = tensor(g, gz)?;
    let all_one = augment.iter().all(|&a| gz_ty.shape[a] == Some(1));
    let (source, positions): (VarId, Vec<usize>) = if all_one || augment.is_empty() {
        (gz, (0..op.new_order.len()).collect())
    } else {
        let axes: Vec<i64> = augment.iter().map(|&a| a as i64).collect();
        let summed = build::sum(g, gz, Some(&axes))?;
        let mut kept = 0;
        let pos = (0..op.new_order.len())
            .map(|i| {
                if augment.contains(&i) {
                    usize::MAX
                } else {
                    kept += 1;
                    kept - 1
                }
            })
            .collect();
        (summed, pos)
    };
    let order: Vec<Axis> = (0..op.input_ndim)
        .map(|k| {
            op.new_order
                .iter()
                .position(|a| *a == Some(k))
                .map(|p| positions[p])
        })
        .collect();
    let out = build::dimshuffle(g, source, order)?;
    match_dtype(g, out, tensor(g, input)?.dtype)
}

/// The output gradient of a reduction with the reduced axes put back as
/// length-1 axes, so it broadcasts against the input.
fn expand_reduced(op: &CAReduce, g: &mut Graph, v: VarId, ndim: usize) -> Result<VarId> {
    let order = build::reinsert_axes(ndim, &op.axes(ndim));
    build::dimshuffle(g, v, order)
}

/// The reductions: the gradient broadcast back over the reduced axes,
/// times the derivative of the reduction (1 for sum, the arg-extremum
/// mask for max/min, the product of the other elements for prod).
pub fn reduce_pullback(op: &CAReduce, g: &mut Graph, node: NodeId, gz: VarId) -> Result<VarId> {
    let (inputs, outputs) = io(g, node);
    let (x, z) = (inputs[0], outputs[0]);
    let x_ty = tensor(g, x)?;
    let gz_e = expand_reduced(op, g, gz, x_ty.ndim())?;
    let term = match op.kind {
        ReduceKind::Sum => build::fill(g, x, gz_e)?,
        ReduceKind::Max | ReduceKind::Min => {
            let z_e = expand_reduced(op, g, z, x_ty.ndim())?;
            let mask = build::eq(g, x, z_e)?;
            build::mul(g, gz_e, mask)?
        }
        ReduceKind::Prod => prod_pullback(op, g, x, z, gz_e)?,
        // Folds of bools or bits: nothing to differentiate.
        ReduceKind::All
        | ReduceKind::Any
        | ReduceKind::BitAnd
        | ReduceKind::BitOr
        | ReduceKind::BitXor => build::zeros_like(g, x, grad_dtype(x_ty.dtype))?,
    };
    match_dtype(g, term, x_ty.dtype)
}

/// `prod`'s gradient without dividing by zero: `z / x` where the reduced
/// slice has no zero, the product of the others at the one zero of a slice
/// with exactly one, and 0 elsewhere.
fn prod_pullback(op: &CAReduce, g: &mut Graph, x: VarId, z: VarId, gz_e: VarId) -> Result<VarId> {
    let x_ty = tensor(g, x)?;
    let ndim = x_ty.ndim();
    let axes: Vec<i64> = op.axes(ndim).iter().map(|&a| a as i64).collect();
    let dt = grad_dtype(x_ty.dtype);
    let zero = build::scalar_constant(g, x_ty.dtype, 0.0);
    let one = build::scalar_constant(g, x_ty.dtype, 1.0);
    let is_zero = build::eq(g, x, zero)?;
    let n_zeros = build::reduce(g, ReduceKind::Sum, is_zero, Some(&axes))?;
    let n_zeros = expand_reduced(op, g, n_zeros, ndim)?;
    let no_zero_x = build::switch(g, is_zero, one, x)?;
    let prod_others = build::reduce(g, ReduceKind::Prod, no_zero_x, Some(&axes))?;
    let prod_others = expand_reduced(op, g, prod_others, ndim)?;
    let z_e = expand_reduced(op, g, z, ndim)?;
    let plain = build::true_div(g, z_e, x)?;
    let zero_f = build::scalar_constant(g, dt, 0.0);
    let at_zero = build::switch(g, is_zero, prod_others, zero_f)?;
    let count_zero = build::scalar_constant(g, DType::Int64, 0.0);
    let count_one = build::scalar_constant(g, DType::Int64, 1.0);
    let none = build::eq(g, n_zeros, count_zero)?;
    let single = build::eq(g, n_zeros, count_one)?;
    let single_part = build::switch(g, single, at_zero, zero_f)?;
    let d = build::switch(g, none, plain, single_part)?;
    build::mul(g, gz_e, d)
}

/// `Reshape`: the output gradient reshaped to the input's shape; the shape
/// input is disconnected.
pub fn reshape_pullback(g: &mut Graph, node: NodeId, gz: VarId) -> Result<Vec<VarId>> {
    let (inputs, _) = io(g, node);
    let shp = build::shape(g, inputs[0])?;
    let gx = build::reshape(g, gz, shp)?;
    let gx = match_dtype(g, gx, tensor(g, inputs[0])?.dtype)?;
    Ok(vec![gx, disconnected(g)])
}

/// `outer(a, b)` of two vectors, as broadcasting.
fn outer(g: &mut Graph, a: VarId, b: VarId) -> Result<VarId> {
    let col = build::dimshuffle(g, a, vec![Some(0), None])?;
    let row = build::dimshuffle(g, b, vec![None, Some(0)])?;
    build::mul(g, col, row)
}

fn transpose(g: &mut Graph, a: VarId) -> Result<VarId> {
    build::dimshuffle(g, a, vec![Some(1), Some(0)])
}

/// `Dot` of vectors and matrices: `gz · yᵀ` and `xᵀ · gz` in each rank combination.
pub fn dot_pullback(g: &mut Graph, node: NodeId, gz: VarId) -> Result<Vec<VarId>> {
    let (inputs, _) = io(g, node);
    let (x, y) = (inputs[0], inputs[1]);
    let (xt, yt) = (tensor(g, x)?, tensor(g, y)?);
    let (gx, gy) = match (xt.ndim(), yt.ndim()) {
        (1, 1) => (build::mul(g, gz, y)?, build::mul(g, gz, x)?),
        (2, 1) => {
            let xt_ = transpose(g, x)?;
            (outer(g, gz, y)?, build::dot(g, xt_, gz)?)
        }
        (1, 2) => (build::dot(g, y, gz)?, outer(g, x, gz)?),
        (2, 2) => {
            let yt_ = transpose(g, y)?;
            let xt_ = transpose(g, x)?;
            (build::dot(g, gz, yt_)?, build::dot(g, xt_, gz)?)
        }
        (a, b) => {
            return Err(Error::Type(format!(
                "Dot's gradient needs vectors or matrices, got ranks {a} and {b}"
            )))
        }
    };
    let gx = match_dtype(g, gx, xt.dtype)?;
    let gy = match_dtype(g, gy, yt.dtype)?;
    Ok(vec![
        broadcastable_like(g, gx, &xt)?,
        broadcastable_like(g, gy, &yt)?,
    ])
}

/// `grad` with the length-1 axes of `input`'s type known: a product with
/// the other operand loses them where only one side knew (a `(1,)` vector
/// times a `(?,)` one), and a gradient must fit its input's type. A
/// `SpecifyShape` restores them, as PyTensor's `Dot` gradient does.
fn broadcastable_like(
    g: &mut Graph,
    grad: VarId,
    input: &crate::types::TensorType,
) -> Result<VarId> {
    let have = tensor(g, grad)?;
    let lost = (input.shape.iter().zip(&have.shape)).any(|(i, h)| *i == Some(1) && h.is_none());
    if !lost || have.ndim() != input.ndim() {
        return Ok(grad);
    }
    let mut inputs = vec![grad];
    for d in &input.shape {
        let len = if *d == Some(1) { 1 } else { -1 };
        inputs.push(build::int_constant(g, len)?);
    }
    crate::ops::known::apply_out(
        g,
        Arc::new(crate::ops::specify_shape::SpecifyShape),
        &inputs,
    )
}

/// `Dot`'s pushforward: `vx · y + x · vy`.
pub fn dot_pushforward(g: &mut Graph, node: NodeId, t: &[Option<VarId>]) -> Result<VarId> {
    let (inputs, outputs) = io(g, node);
    let mut total = None;
    for (k, v) in t.iter().enumerate() {
        let Some(v) = *v else { continue };
        let term = if k == 0 {
            build::dot(g, v, inputs[1])?
        } else {
            build::dot(g, inputs[0], v)?
        };
        total = Some(match total {
            None => term,
            Some(s) => build::add(g, s, term)?,
        });
    }
    let total = total.ok_or_else(|| Error::Value("Dot's pushforward got no tangent".into()))?;
    match_dtype(g, total, tensor(g, outputs[0])?.dtype)
}

/// `IfElse`: each branch's inputs get the output gradient when their branch
/// is taken and zeros otherwise; the condition gets zeros (a small change
/// of the condition takes the same branch).
pub fn ifelse_pullback(
    op: &IfElse,
    g: &mut Graph,
    node: NodeId,
    output_grads: &[VarId],
) -> Result<Vec<VarId>> {
    let (inputs, outputs) = io(g, node);
    let n = op.n_outs;
    let cond = inputs[0];
    let mut grads = Vec::with_capacity(n);
    let mut zeros = Vec::with_capacity(n);
    for k in 0..n {
        let dt = grad_dtype(tensor(g, outputs[k])?.dtype);
        let gk = if is_disconnected(g, output_grads[k]) {
            build::zeros_like(g, outputs[k], dt)?
        } else {
            output_grads[k]
        };
        zeros.push(build::zeros_like(g, gk, dt)?);
        grads.push(gk);
    }
    let branch = |g: &mut Graph, first: &[VarId], second: &[VarId]| -> Result<Vec<VarId>> {
        let mut args = vec![cond];
        args.extend_from_slice(first);
        args.extend_from_slice(second);
        let node = g.apply(Arc::new(op.clone()), &args)?;
        Ok(g.node(node).outputs.clone())
    };
    let when_true = branch(g, &grads, &zeros)?;
    let when_false = branch(g, &zeros, &grads)?;
    let cond_dt = grad_dtype(tensor(g, cond)?.dtype);
    let mut out = vec![build::zeros_like(g, cond, cond_dt)?];
    for (k, v) in when_true.into_iter().chain(when_false).enumerate() {
        let input = inputs[1 + k];
        out.push(match_dtype(g, v, tensor(g, input)?.dtype)?);
    }
    Ok(out)
}

/// `IfElse`'s pushforward: the same choice between the branches' tangents.
pub fn ifelse_pushforward(
    op: &IfElse,
    g: &mut Graph,
    node: NodeId,
    t: &[Option<VarId>],
) -> Result<Vec<Option<VarId>>> {
    let (inputs, _) = io(g, node);
    if t[1..].iter().all(Option::is_none) {
        return Ok(vec![None; op.n_outs]);
    }
    let mut args = vec![inputs[0]];
    for k in 1..inputs.len() {
        args.push(match t[k] {
            Some(v) => v,
            None => {
                let dt = grad_dtype(tensor(g, inputs[k])?.dtype);
                build::zeros_like(g, inputs[k], dt)?
            }
        });
    }
    let node = g.apply(Arc::new(op.clone()), &args)?;
    Ok(g.node(node).outputs.iter().map(|&v| Some(v)).collect())
}

/// The gradients of an op whose input 0 is the value and whose other
/// inputs are parameters (lengths, shapes): `gv` for the value, the others
/// disconnected.
pub fn value_grad_only(g: &mut Graph, node: NodeId, gv: VarId) -> Vec<VarId> {
    let n = g.node(node).inputs.len();
    let mut grads = vec![gv];
    grads.extend((1..n).map(|_| disconnected(g)));
    grads
}

/// The tangent of an op linear in its value (input 0) for fixed
/// parameters (`Alloc`, `SpecifyShape`, `Repeat`, `DimShuffle`): the op applied to the value's
/// tangent with the same parameters; none when the value has none.
pub fn value_pushforward(g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
    let Some(t) = tangents[0] else {
        return Ok(Some(vec![None]));
    };
    let (op, mut inputs) = (g.node(node).op.clone(), g.node(node).inputs.clone());
    inputs[0] = t;
    Ok(Some(vec![Some(crate::ops::known::apply_out(
        g, op, &inputs,
    )?)]))
}
