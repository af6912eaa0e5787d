//! `Join` (PyTensor's `tensor/rewriting/basic.py`): a join of one tensor
//! is that tensor (`local_join_1`), and constant pieces empty along the
//! joined axis add nothing (`local_join_empty`).

use super::util::{apply, constant_int, inputs, register_phases, tensor_type};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, Value, VarId};
use crate::ops::join::Join;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, USELESS};
use crate::rewrite::rewriter::{FnRewriter, NodeRewriter, Rewrite, Tracks};
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let join = || Tracks::classes(&["Join"]);
    let phases = [USELESS, CANONICALIZE, SPECIALIZE];
    let one: Arc<dyn NodeRewriter> = Arc::new(FnRewriter::new("local_join_1", join, local_join_1));
    register_phases(db, &phases, one, &[])?;
    let empty: Arc<dyn NodeRewriter> =
        Arc::new(FnRewriter::new("local_join_empty", join, local_join_empty));
    register_phases(db, &phases, empty, &[])
}

fn local_join_1(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    match inputs(fg, node)[..] {
        [_, x] => Ok(Some(Rewrite::one(x))),
        _ => Ok(None),
    }
}

/// Whether `v` is a constant with no element along `axis`.
fn empty_along(fg: &FunctionGraph, v: VarId, axis: usize) -> bool {
    match fg.graph().var(v).constant().map(|c| &c.value) {
        Some(Value::Tensor(t)) => t.shape().get(axis) == Some(&0),
        _ => false,
    }
}

fn local_join_empty(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let Some(ndim) = ins
        .get(1)
        .and_then(|&x| tensor_type(fg, x))
        .map(|t| t.ndim())
    else {
        return Ok(None);
    };
    let Some(axis) = constant_int(fg, ins[0]) else {
        return Ok(None);
    };
    let axis = if axis < 0 { axis + ndim as i64 } else { axis };
    let Ok(axis) = usize::try_from(axis) else {
        return Ok(None);
    };
    let kept: Vec<VarId> = ins[1..]
        .iter()
        .copied()
        .filter(|&v| !empty_along(fg, v, axis))
        .collect();
    if kept.len() == ins.len() - 1 || kept.is_empty() {
        // Nothing to drop, or nothing left (constant folding's case).
        return Ok(None);
    }
    let mut args = vec![ins[0]];
    args.extend(kept);
    let new = apply(fg, Arc::new(Join), &args)?;
    let dtype = |v| tensor_type(fg, v).map(|t| t.dtype);
    // An empty piece may have widened the dtype: then it does something.
    if dtype(new) != dtype(fg.graph().node(node).outputs[0]) {
        return Ok(None);
    }
    Ok(Some(Rewrite::one(new)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, Case};
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::ops::join::join;
    use crate::tensor::Tensor;
    use crate::types::TensorType;

    #[test]
    fn joins_of_one_and_of_empty_pieces() {
        let (mut g, [x, y]) = graph_with([("x", DType::Float64, 2), ("y", DType::Float64, 2)]);
        let axis = g.tensor_constant(Tensor::scalar(1i64));
        let one = join(&mut g, axis, &[x]).unwrap();
        let empty = g.tensor_constant(Tensor::zeros(DType::Float64, &[2, 0]).unwrap());
        let two = join(&mut g, axis, &[x, empty, y]).unwrap();
        // An empty float64 piece makes an int8 join float64: it stays.
        let i = g.input(TensorType::with_ndim(DType::Int8, 2), Some("i"));
        let widened = join(&mut g, axis, &[i, empty]).unwrap();
        let case = Case::new(g, vec![x, y, i], vec![one, two, widened]);
        let m = |n: usize| {
            Tensor::from_vec(vec![2, n], (0..2 * n).map(|k| k as f64).collect()).unwrap()
        };
        let args = [
            m(2),
            m(1),
            Tensor::from_vec(vec![2, 1], vec![3i8, -4]).unwrap(),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "x [id A]\nSpecifyShape [id B]\n ├─ Join [id C]\n │  ├─ 1 [id D]\n │  ├─ x [id A]\n │  └─ y [id E]\n ├─ 2 [id F]\n └─ -1 [id G]\nJoin [id H]\n ├─ 1 [id D]\n ├─ i [id I]\n └─ [[] []] [id J]\n");
    }
}
