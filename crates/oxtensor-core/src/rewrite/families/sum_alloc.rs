//! A sum or product of an `Alloc` of a scalar without the array (PyTensor's
//! `local_opt_alloc`, specialize): `sum(alloc(v, *dims))` is `v` times the
//! number of elements reduced, `prod` is `v` to that power, and the axes
//! that stay are an `Alloc` of that. Gradients of sums over broadcast
//! scalars make these (`sum(log(sigma))` over data gives `sum(alloc(-1, n))`).

use super::util::{apply, cast_to, elemwise, inputs, op_as, owner_as, tensor_type};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::alloc::Alloc;
use crate::ops::infer_shape::dim_constant;
use crate::ops::reduce::CAReduce;
use crate::reduction::ReduceKind;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::SPECIALIZE;
use crate::rewrite::rewriter::{FnRewriter, Rewrite, Tracks};
use crate::scalar::ScalarKind;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let tracks = || Tracks::classes(&["Sum", "Prod"]);
    let rw = Arc::new(FnRewriter::new("local_opt_alloc", tracks, local_opt_alloc));
    super::util::register_phases(db, &[SPECIALIZE], rw, &[])
}

fn local_opt_alloc(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(op) = op_as::<CAReduce>(fg, node).cloned() else {
        return Ok(None);
    };
    let combine = match op.kind {
        ReduceKind::Sum => ScalarKind::Mul,
        ReduceKind::Prod => ScalarKind::Pow,
        _ => return Ok(None),
    };
    let Some((alloc, _)) = owner_as::<Alloc>(fg, inputs(fg, node)[0]) else {
        return Ok(None);
    };
    let ins = inputs(fg, alloc);
    let dims = ins[1..].to_vec();
    let Some(value) = as_scalar(fg, ins[0])? else {
        return Ok(None);
    };
    let axes = op.axes(dims.len());
    let reduced: Vec<VarId> = axes.iter().map(|&a| dims[a]).collect();
    let count = product(fg, &reduced)?;
    let count = cast_to(fg, count, op.dtype)?;
    let value = cast_to(fg, value, op.dtype)?;
    let total = elemwise(fg, combine, &[value, count])?;
    let kept: Vec<VarId> = (0..dims.len())
        .filter(|a| !axes.contains(a))
        .map(|a| dims[a])
        .collect();
    let out = match kept.is_empty() {
        true => total,
        false => apply(fg, Arc::new(Alloc), &[&[total][..], &kept].concat())?,
    };
    Ok(Some(Rewrite::Outputs(vec![Some(out)])))
}

/// `v` as a 0-d tensor when it holds one element by its type (every axis
/// of static length 1, as gradients make them: `[-1.]`); `None` otherwise.
fn as_scalar(fg: &mut FunctionGraph, v: VarId) -> Result<Option<VarId>> {
    let Some(t) = tensor_type(fg, v) else {
        return Ok(None);
    };
    let ndim = t.ndim();
    if ndim == 0 {
        return Ok(Some(v));
    }
    if !t.shape.iter().all(|&d| d == Some(1)) {
        return Ok(None);
    }
    let all: Vec<usize> = (0..ndim).collect();
    super::reduce::squeeze(fg, v, &all).map(Some)
}

/// The product of some lengths, in int64 (1 for none).
fn product(fg: &mut FunctionGraph, lens: &[VarId]) -> Result<VarId> {
    let Some((&first, rest)) = lens.split_first() else {
        return Ok(dim_constant(fg.graph_mut(), 1));
    };
    let mut acc = cast_to(fg, first, DType::Int64)?;
    for &len in rest {
        let len = cast_to(fg, len, DType::Int64)?;
        acc = elemwise(fg, ScalarKind::Mul, &[acc, len])?;
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, input, printed, Case};
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::ops::alloc::alloc;
    use crate::ops::shape::ShapeI;
    use crate::reduction::ReduceKind;
    use crate::tensor::Tensor;
    use std::sync::Arc;

    #[test]
    fn a_sum_or_product_of_an_alloc_needs_no_array() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 2)]);
        let v = input(&mut g, DType::Float64, &[Some(1)], "v");
        let n0 = g.apply_out(Arc::new(ShapeI { i: 0 }), &[x]).unwrap();
        let n1 = g.apply_out(Arc::new(ShapeI { i: 1 }), &[x]).unwrap();
        let a = alloc(&mut g, v, &[n0, n1]).unwrap();
        let all = build::sum(&mut g, a, None).unwrap();
        let rows = build::sum(&mut g, a, Some(&[1])).unwrap();
        let p = build::reduce(&mut g, ReduceKind::Prod, a, Some(&[0])).unwrap();
        let case = Case::new(g, vec![x, v], vec![all, rows, p]);
        let xs = Tensor::from_vec(vec![3, 4], vec![0.0f64; 12]).unwrap();
        let args = [xs, Tensor::from_vec(vec![1], vec![-1.5f64]).unwrap()];
        let fg = check(&case, &["canonicalize", "specialize"], &args, 1e-12);
        let text = printed(&fg);
        assert!(!text.contains("Sum") && !text.contains("Prod"), "{text}");
    }
}
