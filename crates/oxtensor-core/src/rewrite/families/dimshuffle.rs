//! `DimShuffle`s (PyTensor's `tensor/rewriting/elemwise.py`):
//! `local_dimshuffle_lift` moves a `DimShuffle` below the `Elemwise` it
//! reads (`DimShuffle(Elemwise(x, y)) -> Elemwise(DimShuffle(x),
//! DimShuffle(y))`), merges consecutive ones, and drops those that change
//! nothing (`local_useless_dimshuffle`), so clusters of elementwise ops are
//! free of them. Uncanonicalize (`uncanonicalize.py`): a `DimShuffle` that
//! only adds axes on the left of an `Alloc` is a longer `Alloc`
//! (`local_dimshuffle_alloc`), and one that only drops length-1 axes of a
//! `Subtensor` indexes them instead (`local_dimshuffle_subtensor`).

use super::util::{
    apply, constant_int, inputs, op_as, owner_as, register_phases, single_client, tensor_type,
};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::alloc::Alloc;
use crate::ops::dimshuffle::{Axis, DimShuffle};
use crate::ops::elemwise::Elemwise;
use crate::ops::infer_shape::dim_constant;
use crate::ops::subtensor::Subtensor;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::node_rw;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, UNCANONICALIZE};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::tensor::index::IdxEntry;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let ds = || Tracks::classes(&["DimShuffle"]);
    let lift = node_rw("local_dimshuffle_lift", ds, local_dimshuffle_lift);
    register_phases(db, &[CANONICALIZE, SPECIALIZE], lift, &[])?;
    let alloc = node_rw("local_dimshuffle_alloc", ds, local_dimshuffle_alloc);
    register_phases(db, &[UNCANONICALIZE], alloc, &[])?;
    let sub = node_rw("local_dimshuffle_subtensor", ds, local_dimshuffle_subtensor);
    register_phases(db, &[UNCANONICALIZE], sub, &[])
}

/// PyTensor's `is_dimshuffle_useless`: the order keeps every axis in
/// place, up to swapping length-1 axes with new ones.
fn is_useless(order: &[Axis], input_shape: &[Option<u64>]) -> bool {
    let one = |a: Axis| a.is_none_or(|i| input_shape[i] == Some(1));
    order.len() == input_shape.len()
        && order
            .iter()
            .enumerate()
            .all(|(i, &a)| a == Some(i) || (input_shape[i] == Some(1) && one(a)))
}

/// `outer` applied after `inner`, as one order on `inner`'s input.
fn compose(inner: &[Axis], outer: &[Axis]) -> Vec<Axis> {
    outer.iter().map(|a| a.and_then(|i| inner[i])).collect()
}

/// `DimShuffle(order)` of `x`, merged with a `DimShuffle` computing `x`,
/// and `x` itself when the result changes nothing.
fn shuffled(fg: &mut FunctionGraph, x: VarId, order: &[Axis]) -> Result<VarId> {
    let (x, order) = match owner_as::<DimShuffle>(fg, x) {
        Some((n, inner)) => (
            fg.graph().node(n).inputs[0],
            compose(&inner.new_order, order),
        ),
        None => (x, order.to_vec()),
    };
    let Some(ty) = tensor_type(fg, x) else {
        return Ok(x);
    };
    if is_useless(&order, &ty.shape) {
        return Ok(x);
    }
    let ds = DimShuffle::new(ty.ndim(), order)?;
    fg.graph_mut().apply_out(Arc::new(ds), &[x])
}

fn local_dimshuffle_lift(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(op) = op_as::<DimShuffle>(fg, node).cloned() else {
        return Ok(None);
    };
    let x = inputs(fg, node)[0];
    let lifted = fg.graph().var(x).owner().filter(|&n| {
        let one_out = fg.graph().node(n).outputs.len() == 1;
        let plain = op_as::<Elemwise>(fg, n).is_some_and(|e| e.inplace_pattern.is_empty());
        one_out && plain && single_client(fg, x)
    });
    let new = match lifted {
        Some(elem) => {
            let elem_op = fg.graph().node(elem).op.clone();
            let mut args = Vec::new();
            for inp in inputs(fg, elem) {
                args.push(shuffled(fg, inp, &op.new_order)?);
            }
            fg.graph_mut().apply_out(elem_op, &args)?
        }
        None => shuffled(fg, x, &op.new_order)?,
    };
    // An unmergeable, useful `DimShuffle` comes back as itself, rebuilt.
    let same = owner_as::<DimShuffle>(fg, new)
        .is_some_and(|(n, o)| *o == op && fg.graph().node(n).inputs[0] == x);
    Ok((!same).then(|| Rewrite::one(new)))
}

fn local_dimshuffle_alloc(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(op) = op_as::<DimShuffle>(fg, node).cloned() else {
        return Ok(None);
    };
    let x = inputs(fg, node)[0];
    let Some((alloc, _)) = owner_as::<Alloc>(fg, x) else {
        return Ok(None);
    };
    if !single_client(fg, x) {
        // The `Alloc` stays for its other readers: no second one.
        return Ok(None);
    }
    let pad = op.new_order.len().saturating_sub(op.input_ndim);
    if op != DimShuffle::expand_left(op.input_ndim, op.new_order.len()) || pad == 0 {
        return Ok(None);
    }
    let ins = inputs(fg, alloc);
    let mut args = vec![ins[0]];
    for _ in 0..pad {
        args.push(dim_constant(fg.graph_mut(), 1));
    }
    args.extend_from_slice(&ins[1..]);
    Ok(Some(Rewrite::one(apply(fg, Arc::new(Alloc), &args)?)))
}

fn local_dimshuffle_subtensor(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(op) = op_as::<DimShuffle>(fg, node).cloned() else {
        return Ok(None);
    };
    let kept = op.shuffle();
    let in_order = kept.windows(2).all(|w| w[0] < w[1]);
    if !op.augment().is_empty() || !in_order || op.drop().is_empty() {
        return Ok(None);
    }
    let x = inputs(fg, node)[0];
    let Some((sub, sub_op)) = owner_as::<Subtensor>(fg, x) else {
        return Ok(None);
    };
    let (idx_list, ins) = (sub_op.idx_list.clone(), inputs(fg, sub));
    let Some(ty) = tensor_type(fg, x) else {
        return Ok(None);
    };
    let drop = op.drop();
    if drop.iter().any(|&d| ty.shape[d] != Some(1)) {
        return Ok(None);
    }
    let source = ins[0];
    let ndim = tensor_type(fg, source).map_or(0, |t| t.ndim());
    let Some((new_list, args)) = index_dropped(fg, &idx_list, &ins[1..], &drop, ndim) else {
        return Ok(None);
    };
    let mut all = vec![source];
    all.extend(args);
    let sub = Subtensor::new(new_list)?;
    let new = apply(fg, Arc::new(sub), &all)?;
    Ok(Some(Rewrite::one(new)))
}

/// The index list and inputs of `x[idx]` with the output axes `drop`
/// (each of length 1) taken by an integer index instead: the slice's
/// start, when it is a non-negative constant (then a valid index) or
/// absent (0). `None` for a slice with a step or another start.
fn index_dropped(
    fg: &mut FunctionGraph,
    idx_list: &[IdxEntry],
    idx: &[VarId],
    drop: &[usize],
    ndim: usize,
) -> Option<(Vec<IdxEntry>, Vec<VarId>)> {
    let mut entries = Vec::with_capacity(ndim);
    let mut args: Vec<VarId> = Vec::new();
    let mut out_axis = 0;
    for d in 0..ndim {
        let mut pos = |p: Option<usize>| {
            p.map(|p| {
                args.push(idx[p]);
                args.len() - 1
            })
        };
        match idx_list.get(d).copied().unwrap_or(IdxEntry::FULL) {
            IdxEntry::Index(p) => entries.push(IdxEntry::Index(pos(Some(p))?)),
            IdxEntry::Slice {
                start, step: None, ..
            } if drop.contains(&out_axis) => {
                let first = match start {
                    None => dim_constant(fg.graph_mut(), 0),
                    Some(p) if constant_int(fg, idx[p]).is_some_and(|s| s >= 0) => idx[p],
                    Some(_) => return None,
                };
                args.push(first);
                entries.push(IdxEntry::Index(args.len() - 1));
                out_axis += 1;
            }
            IdxEntry::Slice { .. } if drop.contains(&out_axis) => return None,
            IdxEntry::Slice { start, stop, step } => {
                let (start, stop, step) = (pos(start), pos(stop), pos(step));
                entries.push(IdxEntry::Slice { start, stop, step });
                out_axis += 1;
            }
        }
    }
    while entries.last() == Some(&IdxEntry::FULL) {
        entries.pop();
    }
    Some((entries, args))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, check_prints, input, printed, Case};
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::ops::subtensor::Subtensor;
    use crate::tensor::index::IdxEntry;
    use crate::tensor::Tensor;

    use std::sync::Arc;

    fn m(f: fn(usize) -> f64) -> Tensor {
        Tensor::from_vec(vec![2, 3], (0..6).map(f).collect()).unwrap()
    }

    #[test]
    fn transposes_sink_to_the_inputs_and_merge() {
        let (mut g, [x, y]) = graph_with([("x", DType::Float64, 2), ("y", DType::Float64, 2)]);
        let e = build::exp(&mut g, x).unwrap();
        let s = build::add(&mut g, e, y).unwrap();
        let t = build::dimshuffle(&mut g, s, vec![Some(1), Some(0)]).unwrap();
        let p = build::mul(&mut g, x, y).unwrap();
        let pt = build::dimshuffle(&mut g, p, vec![Some(1), Some(0)]).unwrap();
        let tt = build::dimshuffle(&mut g, pt, vec![Some(1), Some(0)]).unwrap();
        let r = input(&mut g, DType::Float64, &[Some(1), None], "r");
        let squeezed = build::dimshuffle(&mut g, r, vec![Some(1)]).unwrap();
        let back = build::dimshuffle(&mut g, squeezed, vec![None, Some(0)]).unwrap();
        let case = Case::new(g, vec![x, y, r], vec![t, tt, back]);
        let args = [
            m(|i| i as f64 * 0.1),
            m(|i| 2.0 - i as f64),
            Tensor::from_vec(vec![1, 3], vec![1.0, 2.0, 3.0]).unwrap(),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Add [id A]\n ├─ Exp [id B]\n │  └─ MatrixTranspose [id C]\n │     └─ x [id D]\n └─ MatrixTranspose [id E]\n    └─ y [id F]\nMul [id G]\n ├─ x [id D]\n └─ y [id F]\nr [id H]\n");
    }

    #[test]
    fn a_shared_elementwise_result_is_not_recomputed_transposed() {
        let (mut g, [x]) = graph_with([("x", DType::Int32, 2)]);
        let n = build::neg(&mut g, x).unwrap();
        let t = build::dimshuffle(&mut g, n, vec![Some(1), Some(0)]).unwrap();
        let case = Case::new(g, vec![x], vec![t, n]);
        let args = [Tensor::from_vec(vec![2, 2], vec![1i32, 2, 3, 4]).unwrap()];
        let fg = check(&case, &["canonicalize"], &args, 0.0);
        // Canonicalize writes `-x` as `-1 * x` (`local_neg_to_mul`).
        assert_eq!(
            printed(&fg),
            "MatrixTranspose [id A]\n └─ Mul [id B]\n    ├─ [[-1]] [id C]\n    └─ x [id D]\n\
             Mul [id B]\n └─ ···\n"
        );
    }

    #[test]
    fn uncanonicalize_puts_axes_into_allocs_and_indices() {
        let (mut g, [v, n]) = graph_with([("v", DType::Float64, 1), ("n", DType::Int64, 0)]);
        let a = crate::ops::known::apply_out(&mut g, Arc::new(crate::ops::alloc::Alloc), &[v, n])
            .unwrap();
        let row = build::dimshuffle(&mut g, a, vec![None, Some(0)]).unwrap();
        let x = input(&mut g, DType::Float64, &[None, Some(3)], "x");
        let (zero, one) = (
            g.tensor_constant(Tensor::scalar(0i64)),
            g.tensor_constant(Tensor::scalar(1i64)),
        );
        let list = vec![
            IdxEntry::FULL,
            IdxEntry::Slice {
                start: Some(0),
                stop: Some(1),
                step: None,
            },
        ];
        let sub = Arc::new(Subtensor::new(list).unwrap());
        let col = super::super::util::typed_apply(&mut g, sub, &[x, zero, one]).unwrap();
        let first = build::dimshuffle(&mut g, col, vec![Some(0)]).unwrap();
        let case = Case::new(g, vec![v, n, x], vec![row, first]);
        let args = [
            Tensor::from_vec(vec![3], vec![1.0, 2.0, 3.0]).unwrap(),
            Tensor::scalar(3i64),
            m(|i| i as f64),
        ];
        check_prints(&case, &["uncanonicalize"], &args, 0.0, "Alloc [id A]\n ├─ v [id B]\n ├─ 1 [id C]\n └─ n [id D]\nSubtensor{:, i} [id E]\n ├─ x [id F]\n └─ 0 [id G]\n");
    }
}
