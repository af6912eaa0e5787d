//! Reductions (PyTensor's `tensor/rewriting/math.py` and `basic.py`).
//! Canonicalize: `Sum(Sum(x))` is one `Sum` over the merged axes
//! (`local_reduce_chain`, any reduction of one kind); a reduction over no
//! axis is its input (`local_useless_reduce`); axes of static length 1
//! need no reducing (`local_reduce_broadcastable`); reducing a `Join` of
//! length-1 pieces along the joined axis is an elementwise op
//! (`local_reduce_join`); `sum(MakeVector(a, b))` is `a + b`
//! (`local_sum_make_vector`). Specialize: `sum(a * X) -> a * sum(X)` when
//! `a` is broadcast along the summed axes, `sum(X / a) -> sum(X) / a`
//! (`local_sum_prod_of_mul_or_div`), `sum(-X) -> -sum(X)`
//! (`local_sum_of_neg_to_neg_of_sum`).

use super::util::{
    cast_to, constant_int, elemwise, elemwise_kind, inputs, like, op_as, output, owner_as,
    produced_by, register_phases, single_client, tensor_type,
};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::join::Join;
use crate::ops::make_vector::MakeVector;
use crate::ops::reduce::CAReduce;
use crate::reduction::ReduceKind;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, UNCANONICALIZE, USELESS};
use crate::rewrite::rewriter::{FnRewriter, NodeRewriter, Rewrite, Tracks};
use crate::scalar::ScalarKind;
use std::sync::Arc;

type Transform = fn(&mut FunctionGraph, NodeId) -> Result<Option<Rewrite>>;

fn rewriter(name: &'static str, classes: fn() -> Tracks, f: Transform) -> Arc<dyn NodeRewriter> {
    Arc::new(FnRewriter::new(name, classes, f))
}

fn careduce() -> Tracks {
    Tracks::classes(&["CAReduce"])
}

fn sum() -> Tracks {
    Tracks::classes(&["Sum"])
}

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let chain = rewriter("local_reduce_chain", careduce, local_reduce_chain);
    register_phases(db, &[CANONICALIZE], chain, &[])?;
    let join = rewriter("local_reduce_join", careduce, local_reduce_join);
    register_phases(db, &[CANONICALIZE, UNCANONICALIZE], join, &[])?;
    let useless = rewriter("local_useless_reduce", careduce, local_useless_reduce);
    register_phases(
        db,
        &[CANONICALIZE, USELESS],
        useless,
        &["local_cut_useless_reduce"],
    )?;
    let bcast = rewriter(
        "local_reduce_broadcastable",
        careduce,
        local_reduce_broadcastable,
    );
    register_phases(db, &[CANONICALIZE, UNCANONICALIZE, SPECIALIZE], bcast, &[])?;
    let mv = rewriter("local_sum_make_vector", sum, local_sum_make_vector);
    register_phases(db, &[USELESS, CANONICALIZE, SPECIALIZE], mv, &[])?;
    let factor = rewriter(
        "local_sum_prod_of_mul_or_div",
        sum,
        local_sum_prod_of_mul_or_div,
    );
    register_phases(db, &[SPECIALIZE], factor, &[])?;
    let neg = rewriter(
        "local_sum_of_neg_to_neg_of_sum",
        sum,
        local_sum_of_neg_to_neg_of_sum,
    );
    register_phases(db, &[SPECIALIZE], neg, &[])
}

/// The reduction of `node` and its input.
fn reduction(fg: &FunctionGraph, node: NodeId) -> Option<(CAReduce, VarId)> {
    let op = op_as::<CAReduce>(fg, node)?.clone();
    Some((op, fg.graph().node(node).inputs[0]))
}

/// `op` (a copy of a reduction, maybe with other axes) applied to `x`.
fn reduce(fg: &mut FunctionGraph, op: CAReduce, x: VarId) -> Result<VarId> {
    fg.graph_mut().apply_out(Arc::new(op), &[x])
}

/// `x` without its axes `drop` (each of static length 1).
pub(super) fn squeeze(fg: &mut FunctionGraph, x: VarId, drop: &[usize]) -> Result<VarId> {
    let ndim = tensor_type(fg, x).map_or(0, |t| t.ndim());
    let order = (0..ndim).filter(|a| !drop.contains(a)).map(Some).collect();
    if drop.is_empty() {
        return Ok(x);
    }
    let ds = DimShuffle::new(ndim, order)?;
    fg.graph_mut().apply_out(Arc::new(ds), &[x])
}

fn local_reduce_chain(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((outer, inner_out)) = reduction(fg, node) else {
        return Ok(None);
    };
    let Some((inner_node, inner)) = owner_as::<CAReduce>(fg, inner_out) else {
        return Ok(None);
    };
    let inner = inner.clone();
    // The inner result must be what the outer reduction reads in full:
    // same kind, no dtype change in between (an inner `Sum` to int8
    // would wrap where the merged one does not).
    let same = inner.kind == outer.kind
        && inner.dtype == outer.dtype
        && inner.acc_dtype == outer.acc_dtype;
    if !same || !single_client(fg, inner_out) {
        return Ok(None);
    }
    let x = fg.graph().node(inner_node).inputs[0];
    let ndim = tensor_type(fg, x).map_or(0, |t| t.ndim());
    let inner_axes = inner.axes(ndim);
    let kept: Vec<usize> = (0..ndim).filter(|a| !inner_axes.contains(a)).collect();
    let outer_axes = outer.axes(kept.len());
    let mut axes: Vec<usize> = inner_axes
        .into_iter()
        .chain(outer_axes.iter().map(|&a| kept[a]))
        .collect();
    axes.sort_unstable();
    let merged = CAReduce {
        axis: (axes.len() != ndim).then_some(axes),
        ..outer
    };
    Ok(Some(Rewrite::one(reduce(fg, merged, x)?)))
}

fn local_useless_reduce(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((_, x)) = reduction(fg, node) else {
        return Ok(None);
    };
    let same = fg.graph().var(x).ty == fg.graph().var(output(fg, node)).ty;
    Ok(same.then(|| Rewrite::one(x)))
}

fn local_reduce_broadcastable(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((op, x)) = reduction(fg, node) else {
        return Ok(None);
    };
    let Some(ty) = tensor_type(fg, x).cloned() else {
        return Ok(None);
    };
    let axes = op.axes(ty.ndim());
    let cut: Vec<usize> = axes
        .iter()
        .copied()
        .filter(|&a| ty.shape[a] == Some(1))
        .collect();
    if cut.is_empty() {
        return Ok(None);
    }
    let squeezed = squeeze(fg, x, &cut)?;
    let rest: Vec<usize> = axes
        .iter()
        .filter(|a| !cut.contains(a))
        .map(|&a| a - cut.iter().filter(|&&c| c < a).count())
        .collect();
    let out = output(fg, node);
    let new = if rest.is_empty() {
        // One element per output element: the reduction of one value is
        // that value in the output dtype (`all` of an int is `x != 0`,
        // which the cast to bool gives).
        cast_to(fg, squeezed, op.dtype)?
    } else {
        reduce(
            fg,
            CAReduce {
                axis: Some(rest),
                ..op
            },
            squeezed,
        )?
    };
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

/// The elementwise scalar op a reduction folds with.
fn fold_kind(kind: ReduceKind) -> ScalarKind {
    match kind {
        ReduceKind::Sum => ScalarKind::Add,
        ReduceKind::Prod => ScalarKind::Mul,
        ReduceKind::Max => ScalarKind::Maximum,
        ReduceKind::Min => ScalarKind::Minimum,
        ReduceKind::All | ReduceKind::BitAnd => ScalarKind::And,
        ReduceKind::Any | ReduceKind::BitOr => ScalarKind::Or,
        ReduceKind::BitXor => ScalarKind::Xor,
    }
}

fn local_reduce_join(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((op, joined)) = reduction(fg, node) else {
        return Ok(None);
    };
    let Some((join, _)) = owner_as::<Join>(fg, joined) else {
        return Ok(None);
    };
    let ins = inputs(fg, join);
    let (axis, pieces) = (ins[0], &ins[1..]);
    let kind = fold_kind(op.kind);
    let variadic = matches!(kind, ScalarKind::Add | ScalarKind::Mul);
    if pieces.len() < 2 || (pieces.len() > 2 && !variadic) {
        return Ok(None);
    }
    let ndim = tensor_type(fg, joined).map_or(0, |t| t.ndim());
    let Some(axis) = constant_int(fg, axis).map(|a| if a < 0 { a + ndim as i64 } else { a }) else {
        return Ok(None);
    };
    if op.axes(ndim) != [axis as usize] {
        return Ok(None);
    }
    let axis = axis as usize;
    let mut squeezed = Vec::with_capacity(pieces.len());
    for &p in pieces {
        if tensor_type(fg, p).is_none_or(|t| t.shape[axis] != Some(1)) {
            return Ok(None);
        }
        squeezed.push(squeeze(fg, p, &[axis])?);
    }
    let new = elemwise(fg, kind, &squeezed)?;
    // The reduction may change the dtype (a `Sum` of int8 is int64): then
    // the elementwise op would compute in another dtype; leave it.
    let out = output(fg, node);
    if tensor_type(fg, new).map(|t| t.dtype) != tensor_type(fg, out).map(|t| t.dtype) {
        return Ok(None);
    }
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

fn local_sum_make_vector(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((op, v)) = reduction(fg, node) else {
        return Ok(None);
    };
    let Some((mv, _)) = owner_as::<MakeVector>(fg, v) else {
        return Ok(None);
    };
    if op.axes(1) != [0] {
        return Ok(None);
    }
    let elements = inputs(fg, mv);
    let new = match elements.as_slice() {
        [] => crate::build::scalar_constant(fg.graph_mut(), op.dtype, 0.0),
        [one] => *one,
        many => {
            let acc = many
                .iter()
                .map(|&e| cast_to(fg, e, op.acc_dtype))
                .collect::<Result<Vec<_>>>()?;
            elemwise(fg, ScalarKind::Add, &acc)?
        }
    };
    let new = cast_to(fg, new, op.dtype)?;
    Ok(Some(Rewrite::one(new)))
}

/// `a`, when it is broadcast (static length 1) along every axis in `axes`.
fn outside(fg: &FunctionGraph, a: VarId, axes: &[usize]) -> bool {
    tensor_type(fg, a).is_some_and(|t| axes.iter().all(|&i| t.shape[i] == Some(1)))
}

fn local_sum_prod_of_mul_or_div(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((op, prod)) = reduction(fg, node) else {
        return Ok(None);
    };
    let Some(inner) = fg.graph().var(prod).owner() else {
        return Ok(None);
    };
    let kind = elemwise_kind(fg, inner);
    let ty = tensor_type(fg, prod).cloned();
    // Integers must wrap as before: only when the product's dtype is the
    // one the sum accumulates and returns (int64 sums of int64 products).
    let (Some(kind), Some(ty)) = (kind, ty) else {
        return Ok(None);
    };
    if op.dtype != ty.dtype || op.acc_dtype != ty.dtype && !ty.dtype.is_float() {
        return Ok(None);
    }
    let axes = op.axes(ty.ndim());
    let terms = inputs(fg, inner);
    let (outer, rest): (Vec<VarId>, Vec<VarId>) = match kind {
        ScalarKind::Mul => terms.iter().partition(|&&t| outside(fg, t, &axes)),
        ScalarKind::TrueDiv if outside(fg, terms[1], &axes) => (vec![terms[1]], vec![terms[0]]),
        _ => return Ok(None),
    };
    if outer.is_empty() || rest.is_empty() {
        // Nothing to move out, or nothing left to sum: the latter is
        // `local_reduce_broadcastable`'s.
        return Ok(None);
    }
    let mut factors = Vec::with_capacity(outer.len());
    for &t in &outer {
        let t = cast_to(fg, t, ty.dtype)?;
        factors.push(squeeze(fg, t, &axes)?);
    }
    let factor = match factors.as_slice() {
        [one] => *one,
        many => elemwise(fg, ScalarKind::Mul, many)?,
    };
    let inner_term = match rest.as_slice() {
        [one] => *one,
        many => elemwise(fg, ScalarKind::Mul, many)?,
    };
    let inner_term = cast_to(fg, inner_term, ty.dtype)?;
    let summed = reduce(fg, op, inner_term)?;
    let new = match kind {
        ScalarKind::Mul => elemwise(fg, ScalarKind::Mul, &[factor, summed])?,
        _ => elemwise(fg, ScalarKind::TrueDiv, &[summed, factor])?,
    };
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

fn local_sum_of_neg_to_neg_of_sum(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((op, negated)) = reduction(fg, node) else {
        return Ok(None);
    };
    let Some(neg) = produced_by(fg, negated, ScalarKind::Neg) else {
        return Ok(None);
    };
    // `-x` of a narrow integer wraps where the wider sum would not.
    let dtype = tensor_type(fg, negated).map(|t| t.dtype);
    if dtype != Some(op.dtype) {
        return Ok(None);
    }
    let x = inputs(fg, neg)[0];
    let summed = reduce(fg, op, x)?;
    let new = elemwise(fg, ScalarKind::Neg, &[summed])?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, input, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::Graph;
    use crate::reduction::ReduceKind;
    use crate::tensor::Tensor;

    fn arange<T: crate::tensor::Element>(shape: Vec<usize>, f: impl Fn(usize) -> T) -> Tensor {
        let n = shape.iter().product();
        Tensor::from_vec(shape, (0..n).map(f).collect()).unwrap()
    }

    #[test]
    fn nested_reductions_of_one_kind_merge() {
        let (mut g, [x]) = graph_with([("x", DType::Int8, 3)]);
        let inner = build::sum(&mut g, x, Some(&[0])).unwrap();
        let outer = build::sum(&mut g, inner, Some(&[1])).unwrap();
        let y = input(&mut g, DType::Float64, &[None, None], "y");
        let m = build::reduce(&mut g, ReduceKind::Max, y, Some(&[1])).unwrap();
        let mm = build::reduce(&mut g, ReduceKind::Max, m, None).unwrap();
        // A product of sums is left alone.
        let rows = build::sum(&mut g, x, Some(&[2])).unwrap();
        let p = build::reduce(&mut g, ReduceKind::Prod, rows, None).unwrap();
        let case = Case::new(g, vec![x, y], vec![outer, mm, p]);
        let args = [
            arange(vec![2, 3, 4], |i| (i % 7) as i8 - 3),
            arange(vec![2, 3], |i| (i as f64 * 0.7).sin()),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Sum{axes=[0, 2]} [id A]\n └─ x [id B]\nMax{axes=None} [id C]\n └─ y [id D]\nProd{axes=None} [id E]\n └─ Sum{axis=2} [id F]\n    └─ x [id B]\n");
    }

    #[test]
    fn no_reduction_over_length_one_axes() {
        let mut g = Graph::new();
        let x = input(&mut g, DType::Int32, &[Some(1), None], "x");
        let s = build::sum(&mut g, x, None).unwrap();
        let y = input(&mut g, DType::Float64, &[None, Some(1)], "y");
        let n = build::sum(&mut g, y, Some(&[])).unwrap();
        let a = build::reduce(&mut g, ReduceKind::All, y, Some(&[1])).unwrap();
        // Over no axis but to another dtype: it casts, it stays.
        let i = build::sum(&mut g, x, Some(&[])).unwrap();
        let case = Case::new(g, vec![x, y], vec![s, n, a, i]);
        let args = [
            arange(vec![1, 3], |i| i as i32 - 1),
            arange(vec![4, 1], |i| i as f64 - 1.5),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Sum{axis=0} [id A]\n └─ Squeeze{axis=0} [id B]\n    └─ x [id C]\ny [id D]\nCast{bool} [id E]\n └─ Squeeze{axis=1} [id F]\n    └─ y [id D]\nSum{axes=[]} [id G]\n └─ x [id C]\n");
    }

    #[test]
    fn reductions_of_joins_and_make_vectors_are_elementwise() {
        let (mut g, [a, b]) = graph_with([("a", DType::Float64, 1), ("b", DType::Float64, 1)]);
        let ea = build::dimshuffle(&mut g, a, vec![None, Some(0)]).unwrap();
        let eb = build::dimshuffle(&mut g, b, vec![None, Some(0)]).unwrap();
        let zero = g.tensor_constant(Tensor::scalar(0i64));
        let j = crate::ops::join::join(&mut g, zero, &[ea, eb]).unwrap();
        let m = build::reduce(&mut g, ReduceKind::Max, j, Some(&[0])).unwrap();
        let i = input(&mut g, DType::Int32, &[], "i");
        let k = input(&mut g, DType::Int32, &[], "k");
        let op = std::sync::Arc::new(crate::ops::make_vector::MakeVector {
            dtype: DType::Int32,
        });
        let v = g.apply_out(op, &[i, k]).unwrap();
        let s = build::sum(&mut g, v, None).unwrap();
        let case = Case::new(g, vec![a, b, i, k], vec![m, s]);
        let args = [
            Tensor::from_vec(vec![3], vec![1.0, -2.0, 3.0]).unwrap(),
            Tensor::from_vec(vec![3], vec![0.5, 4.0, -3.0]).unwrap(),
            Tensor::scalar(i32::MAX),
            Tensor::scalar(5i32),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Maximum [id A]\n ├─ a [id B]\n └─ b [id C]\nAdd [id D]\n ├─ Cast{int64} [id E]\n │  └─ i [id F]\n └─ Cast{int64} [id G]\n    └─ k [id H]\n");
    }

    #[test]
    fn logical_reductions_of_joins_and_empty_vectors() {
        let mut g = Graph::new();
        let a = input(&mut g, DType::Bool, &[Some(1), None], "a");
        let b = input(&mut g, DType::Bool, &[Some(1), None], "b");
        let zero = g.tensor_constant(Tensor::scalar(0i64));
        let j = crate::ops::join::join(&mut g, zero, &[a, b]).unwrap();
        let any = build::reduce(&mut g, ReduceKind::Any, j, Some(&[0])).unwrap();
        // The sum of bools counts in int64: the elementwise `add` of bools
        // would not, so it stays.
        let count = build::sum(&mut g, j, Some(&[0])).unwrap();
        let op = std::sync::Arc::new(crate::ops::make_vector::MakeVector {
            dtype: DType::Float32,
        });
        let empty = g.apply_out(op, &[]).unwrap();
        let nothing = build::sum(&mut g, empty, None).unwrap();
        let case = Case::new(g, vec![a, b], vec![any, count, nothing]);
        let args = [
            Tensor::from_vec(vec![1, 3], vec![true, false, false]).unwrap(),
            Tensor::from_vec(vec![1, 3], vec![true, true, false]).unwrap(),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Or [id A]\n ├─ Squeeze{axis=0} [id B]\n │  └─ a [id C]\n └─ Squeeze{axis=0} [id D]\n    └─ b [id E]\nSum{axis=0} [id F]\n └─ Join [id G]\n    ├─ 0 [id H]\n    ├─ a [id C]\n    └─ b [id E]\n0.0 [id I]\n");
    }

    #[test]
    fn factors_and_negations_leave_the_sum() {
        let (mut g, [x, a]) = graph_with([("x", DType::Float64, 2), ("a", DType::Float64, 1)]);
        let row = build::dimshuffle(&mut g, a, vec![None, Some(0)]).unwrap();
        let ax = build::mul(&mut g, row, x).unwrap();
        let s0 = build::sum(&mut g, ax, Some(&[0])).unwrap();
        let c = input(&mut g, DType::Float64, &[], "c");
        let xc = build::true_div(&mut g, x, c).unwrap();
        let s1 = build::sum(&mut g, xc, None).unwrap();
        let nx = build::neg(&mut g, x).unwrap();
        let s2 = build::sum(&mut g, nx, Some(&[1])).unwrap();
        // int32 products wrap where an int64 sum of them would not.
        let n = input(&mut g, DType::Int32, &[None], "n");
        let two = g.tensor_constant(Tensor::scalar(2i32));
        let n2 = build::mul(&mut g, two, n).unwrap();
        let s3 = build::sum(&mut g, n2, None).unwrap();
        let case = Case::new(g, vec![x, a, c, n], vec![s0, s1, s2, s3]);
        let args = [
            arange(vec![2, 3], |i| i as f64 * 0.5 - 1.0),
            Tensor::from_vec(vec![3], vec![2.0, -1.0, 0.25]).unwrap(),
            Tensor::scalar(4.0f64),
            Tensor::from_vec(vec![2], vec![i32::MAX, 1]).unwrap(),
        ];
        check_prints(&case, &["canonicalize", "specialize"], &args, 1e-15, "Mul [id A]\n ├─ a [id B]\n └─ Sum{axis=0} [id C]\n    └─ x [id D]\nTrue_div [id E]\n ├─ Sum{axes=None} [id F]\n │  └─ x [id D]\n └─ c [id G]\nNeg [id H]\n └─ Sum{axis=1} [id I]\n    └─ x [id D]\nSum{axes=None} [id J]\n └─ Mul [id K]\n    ├─ [2] [id L]\n    └─ n [id M]\n");
    }
}
