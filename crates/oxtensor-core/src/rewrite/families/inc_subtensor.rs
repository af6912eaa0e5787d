//! Writing through an index (PyTensor's `tensor/rewriting/subtensor.py`):
//! setting or incrementing all of `x` is `y` or `x + y`
//! (`local_useless_inc_subtensor`); incrementing by zeros is `x`
//! (`local_incsubtensor_of_zeros`); and a sum of increments of zeros, as
//! gradients of several indexings make, becomes one chain of increments
//! of the sum of the rest (`local_IncSubtensor_serialize`), which needs
//! one array instead of one per term.

use super::shape_feature::{shape_of, shape_rewriter};
use super::subtensor::{decode, simplified, FULL};
use super::util::{
    apply, apply_elemwise, cast_to, elemwise, inputs, is_constant, op_as, output, register_phases,
    single_client, tensor_type,
};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::advanced_inc_subtensor::{AdvancedIncSubtensor, AdvancedIncSubtensor1};
use crate::ops::alloc::Alloc;
use crate::ops::subtensor::IncSubtensor;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, STABILIZE};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::scalar::ScalarKind;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let inc = || Tracks::classes(&["IncSubtensor"]);
    let useless = shape_rewriter(
        "local_useless_inc_subtensor",
        inc,
        local_useless_inc_subtensor,
    );
    register_phases(db, &[CANONICALIZE, SPECIALIZE], useless, &[])?;
    let all = || {
        Tracks::classes(&[
            "IncSubtensor",
            "AdvancedIncSubtensor1",
            "AdvancedIncSubtensor",
        ])
    };
    let zeros = shape_rewriter(
        "local_incsubtensor_of_zeros",
        all,
        local_incsubtensor_of_zeros,
    );
    let old_name = ["local_incsubtensor_of_allocs"];
    register_phases(db, &[CANONICALIZE, STABILIZE], zeros, &old_name)?;
    let add = || Tracks::scalars(&[ScalarKind::Add]);
    let serial = shape_rewriter(
        "local_IncSubtensor_serialize",
        add,
        local_inc_subtensor_serialize,
    );
    register_phases(db, &[CANONICALIZE], serial, &[])
}

/// Whether the node increments (not sets), and so may be moved or dropped.
fn increments(fg: &FunctionGraph, node: NodeId) -> bool {
    if let Some(op) = op_as::<IncSubtensor>(fg, node) {
        return !op.set_instead_of_inc;
    }
    if let Some(op) = op_as::<AdvancedIncSubtensor1>(fg, node) {
        return !op.set_instead_of_inc;
    }
    op_as::<AdvancedIncSubtensor>(fg, node).is_some_and(|op| !op.set_instead_of_inc)
}

/// `v` in `template`'s dtype, broadcast to its shape when it is narrower.
fn filled_like(fg: &mut FunctionGraph, v: VarId, template: VarId) -> Result<VarId> {
    let Some(want) = tensor_type(fg, template).cloned() else {
        return Ok(v);
    };
    let v = cast_to(fg, v, want.dtype)?;
    let same = tensor_type(fg, v).is_some_and(|t| t.broadcastable() == want.broadcastable());
    if same {
        return Ok(v);
    }
    let mut args = vec![v];
    args.extend(shape_of(fg, template)?);
    apply(fg, Arc::new(Alloc), &args)
}

fn local_useless_inc_subtensor(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(op) = op_as::<IncSubtensor>(fg, node).cloned() else {
        return Ok(None);
    };
    let ins = inputs(fg, node);
    let (x, y) = (ins[0], ins[1]);
    let ndim = tensor_type(fg, x).map_or(0, |t| t.ndim());
    for (d, e) in decode(&op.idx_list, &ins[2..], ndim)
        .into_iter()
        .enumerate()
    {
        if simplified(fg, x, d, e)? != FULL {
            return Ok(None);
        }
    }
    // The region is all of `x`: setting it is `y` (shape-unsafe: `y` is
    // taken to fit), incrementing is `x + y`, or `y` when `x` is zeros.
    // `y` goes into `x`'s dtype first, as the op casts it (an int8 `x`
    // plus 0.6 adds 0, not 0.6 truncated after the sum).
    let dtype = tensor_type(fg, x).map(|t| t.dtype);
    let y = match dtype {
        Some(d) => cast_to(fg, y, d)?,
        None => y,
    };
    let new = if op.set_instead_of_inc || is_constant(fg, x, 0.0) {
        y
    } else {
        elemwise(fg, ScalarKind::Add, &[x, y])?
    };
    Ok(Some(Rewrite::one(filled_like(fg, new, x)?)))
}

fn local_incsubtensor_of_zeros(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let useless = increments(fg, node) && is_constant(fg, ins[1], 0.0);
    Ok(useless.then(|| Rewrite::one(ins[0])))
}

fn local_inc_subtensor_serialize(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let out = output(fg, node);
    let Some(out_ty) = tensor_type(fg, out).cloned() else {
        return Ok(None);
    };
    let movable = |fg: &FunctionGraph, v: VarId| {
        fg.graph().var(v).owner().filter(|&n| {
            increments(fg, n)
                && single_client(fg, v)
                && tensor_type(fg, v).is_some_and(|t| t.is_super(&out_ty))
        })
    };
    let (mut rest, mut incs) = (Vec::new(), Vec::new());
    for v in inputs(fg, node) {
        match movable(fg, v) {
            Some(n) => incs.push(n),
            None => rest.push(v),
        }
    }
    if incs.is_empty() {
        return Ok(None);
    }
    rest.extend(incs.iter().map(|&n| fg.graph().node(n).inputs[0]));
    let add = fg.graph().node(node).op.clone();
    let mut tip = match rest.as_slice() {
        [one] => *one,
        many => apply_elemwise(fg, add, many)?,
    };
    for n in incs {
        let mut args = inputs(fg, n);
        args[0] = tip;
        let op = fg.graph().node(n).op.clone();
        tip = fg.graph_mut().apply_out(op, &args)?;
    }
    Ok(Some(Rewrite::one(tip)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{Graph, VarId};
    use crate::ops::subtensor::IncSubtensor;
    use crate::tensor::index::IdxEntry;
    use crate::tensor::Tensor;
    use crate::types::TensorType;
    use std::sync::Arc;

    fn input(g: &mut Graph, dtype: DType, ndim: usize, name: &str) -> VarId {
        g.input(TensorType::with_ndim(dtype, ndim), Some(name))
    }

    fn inc(g: &mut Graph, set: bool, list: Vec<IdxEntry>, args: &[VarId]) -> VarId {
        g.apply_out(Arc::new(IncSubtensor::new(list, set).unwrap()), args)
            .unwrap()
    }

    #[test]
    fn writes_to_everything_or_of_nothing() {
        let mut g = Graph::new();
        let x = input(&mut g, DType::Float64, 2, "x");
        let y = input(&mut g, DType::Float64, 1, "y");
        let set_all = inc(&mut g, true, vec![IdxEntry::FULL], &[x, y]);
        let inc_all = inc(&mut g, false, vec![], &[x, y]);
        let zero = g.tensor_constant(Tensor::scalar(0.0f64));
        let i = g.tensor_constant(Tensor::scalar(1i64));
        let nothing = inc(&mut g, false, vec![IdxEntry::Index(0)], &[x, zero, i]);
        // Setting zeros is not nothing.
        let zeroed = inc(&mut g, true, vec![IdxEntry::Index(0)], &[x, zero, i]);
        let case = Case::new(g, vec![x, y], vec![set_all, inc_all, nothing, zeroed]);
        let args = [
            Tensor::from_vec(vec![2, 3], (0..6).map(|k| k as f64).collect()).unwrap(),
            Tensor::from_vec(vec![3], vec![10.0, 20.0, 30.0]).unwrap(),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Alloc [id A]\n ├─ y [id B]\n ├─ Shape_i{0} [id C]\n │  └─ x [id D]\n └─ Shape_i{1} [id E]\n    └─ x [id D]\nAdd [id F]\n ├─ x [id D]\n └─ ExpandDims{axis=0} [id G]\n    └─ y [id B]\nx [id D]\nSetSubtensor{i} [id H]\n ├─ x [id D]\n ├─ 0.0 [id I]\n └─ 1 [id J]\n");
    }

    #[test]
    fn integer_increments_cast_the_value_first() {
        let mut g = Graph::new();
        let x = input(&mut g, DType::Int8, 1, "x");
        let y = input(&mut g, DType::Float64, 0, "y");
        let inc_all = inc(&mut g, false, vec![IdxEntry::FULL], &[x, y]);
        let case = Case::new(g, vec![x, y], vec![inc_all]);
        let args = [
            Tensor::from_vec(vec![3], vec![-5i8, 0, 127]).unwrap(),
            Tensor::scalar(1.6f64),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Add [id A]\n ├─ x [id B]\n └─ Cast{int8} [id C]\n    └─ ExpandDims{axis=0} [id D]\n       └─ y [id E]\n");
    }

    #[test]
    fn sums_of_increments_become_a_chain() {
        let mut g = Graph::new();
        let x = input(&mut g, DType::Float32, 1, "x");
        let a = input(&mut g, DType::Float32, 0, "a");
        let b = input(&mut g, DType::Float32, 0, "b");
        let zeros = build::zeros_like(&mut g, x, DType::Float32).unwrap();
        let (i0, i2) = (
            g.tensor_constant(Tensor::scalar(0i64)),
            g.tensor_constant(Tensor::scalar(2i64)),
        );
        let ga = inc(&mut g, false, vec![IdxEntry::Index(0)], &[zeros, a, i0]);
        let gb = inc(&mut g, false, vec![IdxEntry::Index(0)], &[zeros, b, i2]);
        let total = build::add(&mut g, ga, gb).unwrap();
        let case = Case::new(g, vec![x, a, b], vec![total]);
        let args = [
            Tensor::from_vec(vec![3], vec![1.0f32, 2.0, 3.0]).unwrap(),
            Tensor::scalar(0.5f32),
            Tensor::scalar(-4.0f32),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "IncSubtensor{i} [id A]\n ├─ IncSubtensor{i} [id B]\n │  ├─ Second [id C]\n │  │  ├─ x [id D]\n │  │  └─ [0.] [id E]\n │  ├─ a [id F]\n │  └─ 0 [id G]\n ├─ b [id H]\n └─ 2 [id I]\n");
    }
}
