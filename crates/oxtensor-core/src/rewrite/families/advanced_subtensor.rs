//! Advanced indexing (PyTensor's `tensor/rewriting/subtensor.py`): `x[v]`
//! with one integer vector on the first axis is the simpler
//! `AdvancedSubtensor1` (`local_replace_AdvancedSubtensor`, specialize),
//! and a boolean mask index is the integer index of its `nonzero`
//! coordinates (`bool_idx_to_nonzero`; PyTensor runs it for its Numba
//! backend only, tagged `numba` and `shape_unsafe`, and so does this:
//! the mask kernel here reads the mask once, where `nonzero` and a gather
//! read twice).

use super::util::{inputs, op_as, tensor_type};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::advanced_inc_subtensor::AdvancedIncSubtensor;
use crate::ops::advanced_subtensor::{AdvancedSubtensor, AdvancedSubtensor1};
use crate::ops::nonzero::Nonzero;
use crate::rewrite::db::{Entry, RewriteDb, Role};
use crate::rewrite::node_rw;
use crate::rewrite::optdb::phase::SPECIALIZE;
use crate::rewrite::optdb::register_in;
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::tensor::index::IdxEntry;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let adv = || Tracks::classes(&["AdvancedSubtensor"]);
    let take = node_rw(
        "local_replace_AdvancedSubtensor",
        adv,
        local_replace_advanced_subtensor,
    );
    register_in(db, SPECIALIZE, take, &[])?;
    let both = || Tracks::classes(&["AdvancedSubtensor", "AdvancedIncSubtensor"]);
    let mask = node_rw("bool_idx_to_nonzero", both, bool_idx_to_nonzero);
    db.sub_db(SPECIALIZE)?.register(
        "bool_idx_to_nonzero",
        Entry::Node(mask),
        &["numba", "shape_unsafe"],
        0.0,
        Role::Global,
    )
}

fn local_replace_advanced_subtensor(
    fg: &mut FunctionGraph,
    node: NodeId,
) -> Result<Option<Rewrite>> {
    let Some(op) = op_as::<AdvancedSubtensor>(fg, node) else {
        return Ok(None);
    };
    let take_rows = matches!(op.idx_list.split_first(), Some((IdxEntry::Index(0), rest)) if rest.iter().all(|&e| e == IdxEntry::FULL));
    let ins = inputs(fg, node);
    let vector = tensor_type(fg, ins[1]).is_some_and(|t| t.ndim() == 1 && t.dtype.is_integer());
    if !take_rows || !vector {
        return Ok(None);
    }
    let new = fg
        .graph_mut()
        .apply_out(Arc::new(AdvancedSubtensor1), &ins[..2])?;
    Ok(Some(Rewrite::one(new)))
}

/// The index list with each mask entry replaced by one integer entry per
/// mask axis, and the index inputs (masks replaced by their coordinates).
fn masks_to_coordinates(
    fg: &mut FunctionGraph,
    idx_list: &[IdxEntry],
    idx: &[VarId],
) -> Result<Option<(Vec<IdxEntry>, Vec<VarId>)>> {
    let is_mask =
        |fg: &FunctionGraph, v: VarId| tensor_type(fg, v).is_some_and(|t| t.dtype == DType::Bool);
    if !idx.iter().any(|&v| is_mask(fg, v)) {
        return Ok(None);
    }
    let (mut list, mut args) = (Vec::new(), Vec::new());
    let at = |args: &mut Vec<VarId>, v: VarId| {
        args.push(v);
        args.len() - 1
    };
    for &e in idx_list {
        match e {
            IdxEntry::Index(p) if is_mask(fg, idx[p]) => {
                let nz = fg.graph_mut().apply(Arc::new(Nonzero), &[idx[p]])?;
                for c in fg.graph().node(nz).outputs.clone() {
                    list.push(IdxEntry::Index(at(&mut args, c)));
                }
            }
            IdxEntry::Index(p) => list.push(IdxEntry::Index(at(&mut args, idx[p]))),
            IdxEntry::Slice { start, stop, step } => {
                let mut pos = |q: Option<usize>| q.map(|q| at(&mut args, idx[q]));
                let (start, stop, step) = (pos(start), pos(stop), pos(step));
                list.push(IdxEntry::Slice { start, stop, step });
            }
        }
    }
    Ok(Some((list, args)))
}

fn bool_idx_to_nonzero(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let (head, list) = if let Some(op) = op_as::<AdvancedSubtensor>(fg, node) {
        (1, op.idx_list.clone())
    } else if let Some(op) = op_as::<AdvancedIncSubtensor>(fg, node) {
        (2, op.idx_list.clone())
    } else {
        return Ok(None);
    };
    let Some((new_list, args)) = masks_to_coordinates(fg, &list, &ins[head..])? else {
        return Ok(None);
    };
    let mut all = ins[..head].to_vec();
    all.extend(args);
    let op: crate::ops::OpRef = match op_as::<AdvancedIncSubtensor>(fg, node) {
        Some(inc) => Arc::new(AdvancedIncSubtensor::new(new_list, inc.set_instead_of_inc)?),
        None => Arc::new(AdvancedSubtensor::new(new_list)?),
    };
    let new = fg.graph_mut().apply_out(op, &all)?;
    Ok(Some(Rewrite::one(new)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, Case};
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::ops::advanced_subtensor::AdvancedSubtensor;
    use crate::tensor::index::IdxEntry;
    use crate::tensor::Tensor;

    use std::sync::Arc;

    fn index(g: &mut Graph, x: VarId, list: Vec<IdxEntry>, idx: &[VarId]) -> VarId {
        let mut args = vec![x];
        args.extend_from_slice(idx);
        g.apply_out(Arc::new(AdvancedSubtensor::new(list).unwrap()), &args)
            .unwrap()
    }

    #[test]
    fn rows_by_a_vector_and_masks_by_their_coordinates() {
        let (mut g, [x, v, mask]) = graph_with([
            ("x", DType::Float64, 2),
            ("v", DType::Int64, 1),
            ("mask", DType::Bool, 1),
        ]);
        let rows = index(&mut g, x, vec![IdxEntry::Index(0)], &[v]);
        let kept = index(&mut g, x, vec![IdxEntry::Index(0)], &[mask]);
        // Columns by a vector: not the first axis, it stays.
        let cols = index(&mut g, x, vec![IdxEntry::FULL, IdxEntry::Index(0)], &[v]);
        let case = Case::new(g, vec![x, v, mask], vec![rows, kept, cols]);
        let args = [
            Tensor::from_vec(vec![3, 3], (0..9).map(|k| k as f64).collect()).unwrap(),
            Tensor::from_vec(vec![2], vec![2i64, -3]).unwrap(),
            Tensor::from_vec(vec![3], vec![true, false, true]).unwrap(),
        ];
        check_prints(&case, &["canonicalize", "specialize", "numba"], &args, 0.0, "AdvancedSubtensor1 [id A]\n ├─ x [id B]\n └─ v [id C]\nAdvancedSubtensor1 [id D]\n ├─ x [id B]\n └─ Nonzero [id E]\n    └─ mask [id F]\nAdvancedSubtensor{idx_list=(slice(None, None, None), 0)} [id G]\n ├─ x [id B]\n └─ v [id C]\n");
    }
}
