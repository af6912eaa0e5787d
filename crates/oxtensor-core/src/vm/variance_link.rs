//! `var` and `std` at link time. PyTensor builds `var(x, axis)` as
//! `Sum{axis}(Sqr(Sub(x, ExpandDims(TrueDiv(Sum{axis}(x), n)))))` divided
//! by `n - ddof`, two reductions over `x`; the graph keeps that form
//! (`dprint` reads as PyTensor's). When nothing else reads the
//! intermediates, the linker runs that sum of squared deviations as one
//! step, `kernels::variance` (one pass over memory), keeping the nodes to
//! run one by one on calls the kernel does not take.
//!
//! The kernel divides by the true count, so a call runs it only when the
//! graph's divisors multiply to the number of reduced elements (they are
//! `Shape_i` casts; a hand-written `sum(sqr(x - sum(x) / 7))` runs its
//! nodes).

use super::chain::Chain;
use super::program::Step;
use super::thunk::Thunk;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Client, FunctionGraph, NodeId, VarId};
use crate::kernels::alloc::Pool;
use crate::kernels::variance::centred_squares;
use crate::ops::composite::Operand;
use crate::ops::composite_reduce::CompositeReduce;
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::elemwise::Elemwise;
use crate::ops::reduce::{CAReduce, ReduceKind};
use crate::ops::scalar::{ScalarKind, ScalarOp};
use crate::tensor::Scalar;
use crate::value::Value;
use std::collections::{HashMap, HashSet};

/// Inputs of at most this many elements run the nodes one by one: the
/// kernel saves memory traffic, which so small a call does not have, and
/// the nodes give the very bits of an unfused (e.g. profiled) run.
const KERNEL_MIN: usize = 2048;

/// The sum of squared deviations of `x` (input 0) over `axes`, the mean
/// having been divided by inputs `1..` (see the module docs).
struct CentredSquaresThunk {
    axes: Vec<usize>,
    nodes: Chain,
}

impl Thunk for CentredSquaresThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        let x = inputs[0].tensor()?;
        let count: usize = self.axes.iter().map(|&a| x.shape()[a]).product();
        if x.len() > KERNEL_MIN && divides_by(&inputs[1..], count) {
            if let Some(out) = centred_squares(x, &self.axes, Some(&mut *pool)) {
                outputs[0] = Some(out.into());
                return Ok(());
            }
        }
        outputs[0] = Some(self.nodes.run(inputs, pool)?);
        Ok(())
    }
}

/// Whether every element of each divisor is one value and those values
/// multiply to `count` exactly.
fn divides_by(divisors: &[&Value], count: usize) -> bool {
    let mut product = 1.0f64;
    for d in divisors {
        let Ok(t) = d.tensor() else { return false };
        let Some(first) = (!t.is_empty()).then(|| as_f64(t.get(0))).flatten() else {
            return false;
        };
        if !(1..t.len()).all(|i| as_f64(t.get(i)) == Some(first)) {
            return false;
        }
        product *= first;
    }
    product == count as f64
}

fn as_f64(s: Scalar) -> Option<f64> {
    match s {
        Scalar::Float(v, _) => Some(v),
        Scalar::Int(v) => Some(v as f64),
        Scalar::UInt(v) => Some(v as f64),
        _ => None,
    }
}

/// Runs each sum of squared deviations from a mean (the pattern above)
/// as one step; `order[k]` is the node of `steps[k]`, and both lose the
/// merged steps.
pub(super) fn link_variances(fg: &FunctionGraph, order: &mut Vec<NodeId>, steps: &mut Vec<Step>) {
    let at: HashMap<NodeId, usize> = order.iter().enumerate().map(|(k, &n)| (n, k)).collect();
    let mut dropped: HashSet<usize> = HashSet::new();
    for (k, &n) in order.iter().enumerate() {
        let Some((axes, nodes)) = centred_sum(fg, n) else {
            continue;
        };
        let Some(mut merged) = nodes
            .iter()
            .map(|m| at.get(m).copied())
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        if merged.iter().any(|&j| steps[j].thunk.is_host()) {
            continue;
        }
        merged.sort_unstable();
        merged.push(k);
        let (chain, inputs) = Chain::take(steps, &merged);
        let thunk = CentredSquaresThunk { axes, nodes: chain };
        steps[k].rewire(Box::new(thunk), inputs);
        dropped.extend(&merged[..merged.len() - 1]);
    }
    let mut k = 0;
    order.retain(|_| (!dropped.contains(&k), k += 1).0);
    let mut k = 0;
    steps.retain(|_| (!dropped.contains(&k), k += 1).0);
}

/// When `n` is `Sum{axes}(Sqr(Sub(x, ExpandDims(mean))))` of a float `x`
/// with `mean = Sum{axes}(x) / d1 / d2 ...`, each intermediate read only
/// there: the axes and the nodes before `n`. The merged step's inputs are
/// then `x` (first read by the mean's `Sum`) and the divisors, in order.
/// Fused, the graph reads `CAReduce{Composite{(i0 + sqr((i1 - i2)))}}(x,
/// ExpandDims(mean))` and the divisions may be one `Composite`; both
/// forms are taken.
fn centred_sum(fg: &FunctionGraph, n: NodeId) -> Option<(Vec<usize>, Vec<NodeId>)> {
    let g = fg.graph();
    let node = g.node(n);
    let (axes, x, centre, d, mut nodes) = match fused_sq_diff(fg, n) {
        Some((axes, x, centre)) => (axes, x, centre, x, vec![]),
        None => {
            let axes = sum_axes(fg, n)?;
            let (sqr, [d]) = elemwise_of::<1>(fg, node.inputs[0], ScalarKind::Sqr)?;
            let (sub, [x, centre]) = elemwise_of::<2>(fg, d, ScalarKind::Sub)?;
            (axes, x, centre, d, vec![sqr, sub])
        }
    };
    let dtype = g.var(x).ty.as_tensor()?.dtype;
    let same_dtype = |v: VarId| g.var(v).ty.as_tensor().map(|t| t.dtype) == Some(dtype);
    let expand = only_reader_owner(fg, centre)?;
    let ds = g.node(expand).op.as_any().downcast_ref::<DimShuffle>()?;
    let ndim = g.var(x).ty.as_tensor()?.ndim();
    let mut mean = reinserts(ds, &axes, ndim).then_some(g.node(expand).inputs[0])?;
    nodes.push(expand);
    let before = nodes.len();
    while let Some((div, num)) = division(fg, mean) {
        nodes.push(div);
        mean = num;
    }
    let sum = only_reader_owner(fg, mean)?;
    let sums_x = g.node(sum).inputs[0] == x && sum_axes(fg, sum)? == axes;
    let floats = matches!(dtype, DType::Float32 | DType::Float64);
    let typed = [node.outputs[0], d, centre, mean]
        .into_iter()
        .all(same_dtype);
    (sums_x && floats && typed && nodes.len() > before).then(|| {
        nodes.push(sum);
        (axes, nodes)
    })
}

/// `(axes, x, centre)` when `n` is a fused `Sum{axes}` of `sqr(x - centre)`.
fn fused_sq_diff(fg: &FunctionGraph, n: NodeId) -> Option<(Vec<usize>, VarId, VarId)> {
    let g = fg.graph();
    let node = g.node(n);
    let op = node.op.as_any().downcast_ref::<CompositeReduce>()?;
    let [x, centre] = node.inputs[..] else {
        return None;
    };
    let [sub, sqr] = op.pre.nodes() else {
        return None;
    };
    let exact = sub.op == ScalarOp::Kind(ScalarKind::Sub)
        && sub.args[..] == [Operand::Input(0), Operand::Input(1)]
        && sqr.op == ScalarOp::Kind(ScalarKind::Sqr)
        && sqr.args[..] == [Operand::Node(0)];
    let input = g.var(x).ty.as_tensor()?;
    let plain = op.reduce.dtype == input.dtype && op.reduce.kind == ReduceKind::Sum;
    (exact && plain).then(|| (op.reduce.axes(input.ndim()), x, centre))
}

/// The node dividing `v`'s numerator (a `TrueDiv`, or a `Composite` of
/// divisions of its first input, `((i0 / i1) / i2)`) and that numerator,
/// when nothing else reads `v`.
fn division(fg: &FunctionGraph, v: VarId) -> Option<(NodeId, VarId)> {
    if let Some((div, [num, _])) = elemwise_of::<2>(fg, v, ScalarKind::TrueDiv) {
        return Some((div, num));
    }
    let m = only_reader_owner(fg, v)?;
    let node = fg.graph().node(m);
    let e = node.op.as_any().downcast_ref::<Elemwise>()?;
    let ScalarOp::Composite(c) = &e.scalar_op else {
        return None;
    };
    let chain = c.nodes().iter().enumerate().all(|(j, n)| {
        let first = if j == 0 {
            Operand::Input(0)
        } else {
            Operand::Node(j - 1)
        };
        n.op == ScalarOp::Kind(ScalarKind::TrueDiv)
            && n.args.len() == 2
            && n.args[0] == first
            && n.args[1] == Operand::Input(j + 1)
    });
    let whole = c.outputs() == [c.nodes().len() - 1] && c.nin() == c.nodes().len() + 1;
    (chain && whole && e.inplace_pattern.is_empty()).then(|| (m, node.inputs[0]))
}

/// The axes of `n` when it is a plain `Sum` (output dtype its input's).
fn sum_axes(fg: &FunctionGraph, n: NodeId) -> Option<Vec<usize>> {
    let g = fg.graph();
    let node = g.node(n);
    let op = node.op.as_any().downcast_ref::<CAReduce>()?;
    let input = g.var(node.inputs[0]).ty.as_tensor()?;
    (op.kind == ReduceKind::Sum && op.dtype == input.dtype).then(|| op.axes(input.ndim()))
}

/// The node computing `v` and its inputs, when it is a plain `Elemwise`
/// of `kind` with `N` inputs and `v` has no other reader.
fn elemwise_of<const N: usize>(
    fg: &FunctionGraph,
    v: VarId,
    kind: ScalarKind,
) -> Option<(NodeId, [VarId; N])> {
    let m = only_reader_owner(fg, v)?;
    let node = fg.graph().node(m);
    let e = node.op.as_any().downcast_ref::<Elemwise>()?;
    let plain = e.scalar_op == ScalarOp::Kind(kind) && e.inplace_pattern.is_empty();
    plain
        .then(|| node.inputs[..].try_into().ok())
        .flatten()
        .map(|ins| (m, ins))
}

/// The node computing `v` when `v` has one reader and is not an output.
fn only_reader_owner(fg: &FunctionGraph, v: VarId) -> Option<NodeId> {
    let one = matches!(fg.clients(v), [Client::Node(..)]) && !fg.outputs().contains(&v);
    one.then(|| fg.graph().var(v).owner()).flatten()
}

/// Whether `ds` puts back exactly `axes` (as broadcastable axes) into a
/// tensor of `ndim` axes from which they were summed away.
fn reinserts(ds: &DimShuffle, axes: &[usize], ndim: usize) -> bool {
    let mut kept = 0..ndim - axes.len();
    ds.input_ndim == ndim - axes.len()
        && ds.new_order.len() == ndim
        && ds
            .new_order
            .iter()
            .enumerate()
            .all(|(i, a)| match axes.contains(&i) {
                true => a.is_none(),
                false => *a == kept.next(),
            })
}

#[cfg(test)]
#[path = "variance_link_tests.rs"]
mod tests;
