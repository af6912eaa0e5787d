//! `Reshape` (PyTensor's `tensor/rewriting/shape.py`): a reshape of a
//! reshape is one (`local_reshape_chain`); a reshape to the input's own
//! shape, or of a vector to a vector, is its input
//! (`local_useless_reshape`; both shape-unsafe: they may hide a bad
//! shape). Uncanonicalize: a reshape does not need an `ExpandDims` that
//! keeps the element order in front of it (`local_reshape_dimshuffle`).

use super::shape_feature::{is_length_of, shape_of, shape_rewriter};
use super::util::{
    apply, constant_int, constant_ints, inputs, op_as, output, owner_as, register_phases,
    tensor_type,
};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::make_vector::MakeVector;
use crate::ops::shape::{Reshape, Shape};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, UNCANONICALIZE, USELESS};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let reshape = || Tracks::classes(&["Reshape"]);
    let chain = shape_rewriter("local_reshape_chain", reshape, local_reshape_chain);
    register_phases(db, &[CANONICALIZE, SPECIALIZE], chain, &["shape_unsafe"])?;
    let useless = shape_rewriter("local_useless_reshape", reshape, local_useless_reshape);
    let phases = [USELESS, CANONICALIZE, SPECIALIZE];
    register_phases(db, &phases, useless, &["shape_unsafe"])?;
    let ds = shape_rewriter(
        "local_reshape_dimshuffle",
        reshape,
        local_reshape_dimshuffle,
    );
    register_phases(db, &[UNCANONICALIZE], ds, &[])
}

fn local_reshape_chain(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [inner, shape] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some((inner_node, _)) = owner_as::<Reshape>(fg, inner) else {
        return Ok(None);
    };
    let x = fg.graph().node(inner_node).inputs[0];
    let op = fg.graph().node(node).op.clone();
    Ok(Some(Rewrite::one(apply(fg, op, &[x, shape])?)))
}

/// One entry of a shape vector: a known length, or a scalar variable.
#[derive(Clone, Copy, PartialEq)]
enum Len {
    Known(i64),
    Var(VarId),
}

/// The entries of a constant or `MakeVector` shape vector.
fn entries(fg: &FunctionGraph, shape: VarId) -> Option<Vec<Len>> {
    if let Some(values) = constant_ints(fg, shape) {
        return Some(values.into_iter().map(Len::Known).collect());
    }
    let (mv, _) = owner_as::<MakeVector>(fg, shape)?;
    let ins = &fg.graph().node(mv).inputs;
    Some(
        ins.iter()
            .map(|&v| constant_int(fg, v).map_or(Len::Var(v), Len::Known))
            .collect(),
    )
}

/// Whether `len` is known to be the length of axis `i` of `x`.
fn is_length(fg: &mut FunctionGraph, len: Len, x: VarId, i: usize) -> Result<bool> {
    match len {
        Len::Var(v) => is_length_of(fg, v, x, i),
        Len::Known(n) => {
            let fixed = tensor_type(fg, x)
                .and_then(|t| t.shape[i])
                .map(|n| n as i64);
            let inferred = shape_of(fg, x)?[i];
            Ok(Some(n) == fixed || constant_int(fg, inferred) == Some(n))
        }
    }
}

fn local_useless_reshape(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [x, shape] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let (Some(tx), Some(tout)) = (tensor_type(fg, x), tensor_type(fg, output(fg, node))) else {
        return Ok(None);
    };
    let ndim = tx.ndim();
    if ndim != tout.ndim() {
        return Ok(None);
    }
    if ndim == 1 && tx.broadcastable() == tout.broadcastable() {
        return Ok(Some(Rewrite::one(x)));
    }
    let of_x = owner_as::<Shape>(fg, shape).is_some_and(|(n, _)| fg.graph().node(n).inputs[0] == x);
    if of_x {
        return Ok(Some(Rewrite::one(x)));
    }
    let Some(lens) = entries(fg, shape) else {
        return Ok(None);
    };
    let (mut free, mut matched) = (0, 0);
    for (i, &len) in lens.iter().enumerate() {
        if len == Len::Known(-1) {
            free += 1;
            matched += 1;
        } else if is_length(fg, len, x, i)? {
            matched += 1;
        }
    }
    // All lengths the input's (one -1 at most), or all but one with no
    // -1: the one left can only be the input's too (or the graph errs).
    let useless = (free <= 1 && matched == ndim) || (free == 0 && matched + 1 == ndim);
    Ok(useless.then(|| Rewrite::one(x)))
}

fn local_reshape_dimshuffle(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [shuffled, shape] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some((ds_node, ds)) = owner_as::<DimShuffle>(fg, shuffled) else {
        return Ok(None);
    };
    // Only new axes around the input's axes in order: the same elements
    // in the same order.
    let kept: Vec<usize> = ds.shuffle();
    if kept != (0..ds.input_ndim).collect::<Vec<_>>() {
        return Ok(None);
    }
    let x = fg.graph().node(ds_node).inputs[0];
    let Some(op) = op_as::<Reshape>(fg, node).cloned() else {
        return Ok(None);
    };
    Ok(Some(Rewrite::one(apply(fg, Arc::new(op), &[x, shape])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, input, Case};
    use super::super::util::typed_apply;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::ops::make_vector::MakeVector;
    use crate::ops::shape::{Reshape, ShapeI};
    use crate::tensor::Tensor;

    use std::sync::Arc;

    /// `x.reshape(dims)` typed as Python types it.
    fn reshape(g: &mut Graph, x: VarId, dims: &[i64]) -> VarId {
        let shape = g.tensor_constant(Tensor::from_vec(vec![dims.len()], dims.to_vec()).unwrap());
        typed_apply(g, Arc::new(Reshape { ndim: dims.len() }), &[x, shape]).unwrap()
    }

    #[test]
    fn reshapes_chain_into_one_and_vanish_when_useless() {
        let mut g = Graph::new();
        let x = input(&mut g, DType::Float64, &[Some(2), Some(3)], "x");
        let flat = reshape(&mut g, x, &[6]);
        let chained = reshape(&mut g, flat, &[3, 2]);
        let y = input(&mut g, DType::Int8, &[None, None], "y");
        let shp = build::shape(&mut g, y).unwrap();
        let same = build::reshape(&mut g, y, shp).unwrap();
        let n0 = g.apply_out(Arc::new(ShapeI { i: 0 }), &[y]).unwrap();
        let minus = g.tensor_constant(Tensor::scalar(-1i64));
        let mv = g
            .apply_out(
                Arc::new(MakeVector {
                    dtype: DType::Int64,
                }),
                &[n0, minus],
            )
            .unwrap();
        let also = build::reshape(&mut g, y, mv).unwrap();
        let v = input(&mut g, DType::Int8, &[None], "v");
        let vv = reshape(&mut g, v, &[-1]);
        let case = Case::new(g, vec![x, y, v], vec![chained, same, also, vv]);
        let args = [
            Tensor::from_vec(vec![2, 3], (0..6).map(|i| i as f64).collect()).unwrap(),
            Tensor::from_vec(vec![2, 2], vec![1i8, 2, 3, 4]).unwrap(),
            Tensor::from_vec(vec![0], Vec::<i8>::new()).unwrap(),
        ];
        check_prints(
            &case,
            &["canonicalize"],
            &args,
            0.0,
            "Reshape{2} [id A]\n ├─ x [id B]\n └─ [3 2] [id C]\ny [id D]\ny [id D]\nv [id E]\n",
        );
    }

    #[test]
    fn a_reshape_to_other_lengths_stays() {
        let (mut g, [y]) = graph_with([("y", DType::Float64, 2)]);
        let n0 = g.apply_out(Arc::new(ShapeI { i: 0 }), &[y]).unwrap();
        let n1 = g.apply_out(Arc::new(ShapeI { i: 1 }), &[y]).unwrap();
        let mv = g
            .apply_out(
                Arc::new(MakeVector {
                    dtype: DType::Int64,
                }),
                &[n1, n0],
            )
            .unwrap();
        let swapped = build::reshape(&mut g, y, mv).unwrap();
        let e = build::dimshuffle(&mut g, y, vec![None, Some(0), Some(1)]).unwrap();
        let flat = reshape(&mut g, e, &[-1]);
        let case = Case::new(g, vec![y], vec![swapped, flat]);
        let args = [Tensor::from_vec(vec![2, 3], (0..6).map(|i| i as f64).collect()).unwrap()];
        check_prints(&case, &["canonicalize", "uncanonicalize"], &args, 0.0, "Reshape{2} [id A]\n ├─ y [id B]\n └─ MakeVector{dtype='int64'} [id C]\n    ├─ Shape_i{1} [id D]\n    │  └─ y [id B]\n    └─ Shape_i{0} [id E]\n       └─ y [id B]\nReshape{1} [id F]\n ├─ y [id B]\n └─ [-1] [id G]\n");
    }
}
