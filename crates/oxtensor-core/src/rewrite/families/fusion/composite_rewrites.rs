//! The node rewrites of the fusion phase, after `composite_elemwise_fusion`
//! (PyTensor's names and order): `local_useless_composite_outputs` drops
//! a composite's unread outputs and the inputs only they read;
//! `local_careduce_fusion` folds a `Sum` into the elementwise node it
//! reduces (`CAReduce{Composite{...}}`); `local_inline_composite_constants`
//! moves constant inputs that hold one value into the composite.

use crate::error::Result;
use crate::graph::{Client, FunctionGraph, NodeId, VarId};
use crate::kernels::fused::support;
use crate::ops::composite_reduce::CompositeReduce;
use crate::ops::elemwise::Elemwise;
use crate::ops::reduce::CAReduce;
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::scalar::composite::{Composite, Operand};
use crate::scalar::ScalarOp;
use crate::tensor::Tensor;
use crate::value::Value;
use smallvec::SmallVec;
use std::sync::Arc;

/// What these rewrites track: composite `Elemwise` nodes and reductions.
pub(super) fn tracks_elemwise() -> Tracks {
    Tracks::classes(&["Elemwise"])
}

/// `CAReduce` nodes (fused ones included).
pub(super) fn tracks_reductions() -> Tracks {
    Tracks::classes(&["CAReduce"])
}

/// Both.
pub(super) fn tracks_fused() -> Tracks {
    Tracks::classes(&["Elemwise", "CAReduce"])
}

/// The composite of a plain `Elemwise(Composite)` node.
fn composite_of(fg: &FunctionGraph, node: NodeId) -> Option<Arc<Composite>> {
    match crate::rewrite::families::util::plain_scalar_op(fg, node)? {
        ScalarOp::Composite(c) => Some(c.clone()),
        _ => None,
    }
}

/// `local_useless_composite_outputs`: the node without the outputs nobody
/// reads and the inputs only those needed.
pub(super) fn local_useless_composite_outputs(
    fg: &mut FunctionGraph,
    node: NodeId,
) -> Result<Option<Rewrite>> {
    let Some(c) = composite_of(fg, node) else {
        return Ok(None);
    };
    let outs = fg.graph().node(node).outputs.clone();
    let used: Vec<usize> = (0..outs.len())
        .filter(|&i| !fg.clients(outs[i]).is_empty())
        .collect();
    let (smaller, kept) = c.restricted(&used)?;
    if used.is_empty() || (used.len() == outs.len() && kept.len() == c.nin()) {
        return Ok(None);
    }
    let ins = fg.graph().node(node).inputs.clone();
    let args: Vec<VarId> = kept.iter().map(|&i| ins[i]).collect();
    let op = Elemwise::new(ScalarOp::Composite(Arc::new(smaller)));
    let new = fg.graph_mut().apply(Arc::new(op), &args)?;
    let news = fg.graph().node(new).outputs.clone();
    let pairs = used.iter().map(|&i| outs[i]).zip(news).collect();
    Ok(Some(Rewrite::Pairs {
        pairs,
        remove: Vec::new(),
    }))
}

/// `local_careduce_fusion`: `Sum(Elemwise(f)(xs))` as one node reducing
/// `f`'s values as they are computed, when nothing else reads them and
/// the fused kernel runs both.
pub(super) fn local_careduce_fusion(
    fg: &mut FunctionGraph,
    node: NodeId,
) -> Result<Option<Rewrite>> {
    let g = fg.graph();
    let n = g.node(node);
    let Some(sum) = n.op.as_any().downcast_ref::<CAReduce>().cloned() else {
        return Ok(None);
    };
    let [v] = n.inputs[..] else {
        return Ok(None);
    };
    let (Some(producer), Some(ty)) = (g.var(v).owner(), g.var(v).ty.as_tensor()) else {
        return Ok(None);
    };
    let only_reader = matches!(fg.clients(v).only(), Some(&Client::Node(m, _)) if m == node);
    if !only_reader || !support::runs_sum(sum.kind, ty.dtype, sum.acc_dtype, sum.dtype) {
        return Ok(None);
    }
    let Some(pre) = premap(fg, producer) else {
        return Ok(None);
    };
    let args = fg.graph().node(producer).inputs.clone();
    let op = CompositeReduce::new(sum, pre)?;
    let out = fg.graph_mut().apply_out(Arc::new(op), &args)?;
    Ok(Some(Rewrite::one(out)))
}

/// The single-output composite `node` computes, when the fused kernel runs
/// it: a fused group's `Composite`, or a lone unary op as a composite of
/// one node. PyTensor (Numba mode) folds only composites, so `sqr(x).sum()`
/// stays `Sum(Sqr)` there; folding the unary op too reads `x` once instead
/// of writing and re-reading a squared copy (`norm(x, axis=1)` ran
/// 1.3-1.5x slower without it, against the link-time fusion this phase
/// replaced). A lone binary op stays apart, as the seeds' `(v + 1).sum()`
/// prints `Sum(Add)`.
fn premap(fg: &FunctionGraph, node: NodeId) -> Option<Arc<Composite>> {
    let g = fg.graph();
    let n = g.node(node);
    let e = n.op.as_any().downcast_ref::<Elemwise>()?;
    let out = g.var(*n.outputs.first()?).ty.as_tensor()?.dtype;
    if !e.inplace_pattern.is_empty() || n.outputs.len() != 1 {
        return None;
    }
    let c = match &e.scalar_op {
        ScalarOp::Composite(c) => c.clone(),
        lone if n.inputs.len() == 1 => Arc::new(one_node(fg, node, lone)?),
        _ => return None,
    };
    let fits = c.nodes().iter().all(|inner| {
        let ds: SmallVec<[_; 4]> = inner.args.iter().map(|&a| c.dtype_of(a)).collect();
        inner.dtype == out && support::runs_node(&inner.op, &ds, inner.dtype)
    });
    fits.then_some(c)
}

/// The composite of `node`'s one scalar op over its inputs.
fn one_node(fg: &FunctionGraph, node: NodeId, op: &ScalarOp) -> Option<Composite> {
    let g = fg.graph();
    let inputs = &g.node(node).inputs;
    let dtypes = inputs
        .iter()
        .map(|&v| Some(g.var(v).ty.as_tensor()?.dtype))
        .collect::<Option<SmallVec<[_; 4]>>>()?;
    let mut b = Composite::builder(&dtypes);
    let args: SmallVec<[Operand; 4]> = (0..inputs.len()).map(Operand::Input).collect();
    let out = b.push(op.clone(), &args).ok()?;
    b.finish(&[out]).ok()
}

/// `local_inline_composite_constants`: constant inputs of one value (and
/// of a static shape of 1s, so the output's type stays) become constants
/// of the inner graph, for a `Composite` node or a fused reduction.
pub(super) fn local_inline_composite_constants(
    fg: &mut FunctionGraph,
    node: NodeId,
) -> Result<Option<Rewrite>> {
    let op = fg.graph().node(node).op.clone();
    let (c, reduce) = match op.as_any().downcast_ref::<CompositeReduce>() {
        Some(r) => (r.pre.clone(), Some(r.reduce.clone())),
        None => match composite_of(fg, node) {
            Some(c) => (c, None),
            None => return Ok(None),
        },
    };
    let ins = fg.graph().node(node).inputs.clone();
    let values: Vec<Option<Tensor>> = ins.iter().map(|&v| inlinable(fg, v)).collect();
    let kept: Vec<usize> = (0..ins.len()).filter(|&i| values[i].is_none()).collect();
    if kept.len() == ins.len() || kept.is_empty() {
        return Ok(None);
    }
    let dtypes: Vec<_> = kept.iter().map(|&i| c.input_dtypes()[i]).collect();
    let mut b = Composite::builder(&dtypes);
    let mut args = Vec::with_capacity(ins.len());
    for (i, value) in values.into_iter().enumerate() {
        args.push(match value {
            Some(t) => b.constant(t)?,
            None => Operand::Input(kept.iter().position(|&k| k == i).unwrap_or(0)),
        });
    }
    let outs = b.inline(&c, &args)?;
    let inner = Arc::new(b.finish(&outs)?);
    let new_ins: Vec<VarId> = kept.iter().map(|&i| ins[i]).collect();
    let g = fg.graph_mut();
    let news = match reduce {
        Some(r) => vec![g.apply_out(Arc::new(CompositeReduce::new(r, inner)?), &new_ins)?],
        None => {
            let n = g.apply(
                Arc::new(Elemwise::new(ScalarOp::Composite(inner))),
                &new_ins,
            )?;
            g.node(n).outputs.clone()
        }
    };
    Ok(Some(Rewrite::Outputs(news.into_iter().map(Some).collect())))
}

/// `v`'s one value as a 0-d tensor, when `v` is a real constant of
/// static shape all 1s.
fn inlinable(fg: &FunctionGraph, v: VarId) -> Option<Tensor> {
    let var = fg.graph().var(v);
    let ty = var.ty.as_tensor()?;
    let Value::Tensor(t) = &var.constant()?.value else {
        return None;
    };
    let ones = ty.shape.iter().all(|&d| d == Some(1));
    if !ones || t.dtype().is_complex() || t.len() != 1 {
        return None;
    }
    t.view(&[], &[], t.offset()).ok()
}
