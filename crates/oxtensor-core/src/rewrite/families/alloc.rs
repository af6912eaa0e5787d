//! `Alloc` and broadcasting by `second` (PyTensor's
//! `tensor/rewriting/basic.py`). An `Alloc` whose output has its value's
//! type only checks lengths (`local_useless_alloc`: a `SpecifyShape`, or
//! the value when the lengths are its own); leading length-1 axes are an
//! `ExpandDims` (`local_alloc_sink_dimshuffle`); an `Alloc` of an `Alloc`
//! is one (`local_merge_alloc`). After stabilize, `second(x, v)` becomes
//! `v` or `Alloc(v, *x.shape)` (`local_second_to_alloc`), so `x` need not
//! be computed for its shape, and elementwise ops read an `Alloc`'s value
//! directly, broadcasting it themselves (`local_elemwise_alloc`).
//! Uncanonicalize: `Alloc(ExpandDims(x))` is `Alloc(x)`
//! (`local_alloc_dimshuffle`).

use super::shape_feature::{is_length_of, shape_of, shape_rewriter};
use super::util::{
    apply, apply_elemwise, cast_to, constant_int, inputs, op_as, output, owner_as, register_phases,
    tensor_type,
};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::alloc::Alloc;
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::elemwise::Elemwise;
use crate::ops::infer_shape::dim_constant;
use crate::ops::specify_shape::SpecifyShape;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, STABILIZE, UNCANONICALIZE, USELESS};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::scalar::ScalarKind;
use crate::types::TensorType;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let alloc = || Tracks::classes(&["Alloc"]);
    let all = [USELESS, CANONICALIZE, STABILIZE, SPECIALIZE];
    let useless = shape_rewriter("local_useless_alloc", alloc, local_useless_alloc);
    register_phases(db, &all, useless, &["shape_unsafe"])?;
    let sink = shape_rewriter(
        "local_alloc_sink_dimshuffle",
        alloc,
        local_alloc_sink_dimshuffle,
    );
    register_phases(db, &[CANONICALIZE, STABILIZE, SPECIALIZE], sink, &[])?;
    let merge = shape_rewriter("local_merge_alloc", alloc, local_merge_alloc);
    register_phases(db, &all, merge, &[])?;
    let ds = shape_rewriter("local_alloc_dimshuffle", alloc, local_alloc_dimshuffle);
    register_phases(db, &[UNCANONICALIZE], ds, &[])?;
    let second = || Tracks::scalars(&[ScalarKind::Second]);
    let to_alloc = shape_rewriter("local_second_to_alloc", second, local_second_to_alloc);
    register_phases(db, &[STABILIZE, SPECIALIZE], to_alloc, &["shape_unsafe"])?;
    let elemwise = || Tracks::classes(&["Elemwise"]);
    let absorb = shape_rewriter("local_elemwise_alloc", elemwise, local_elemwise_alloc);
    register_phases(
        db,
        &[SPECIALIZE],
        absorb,
        &["shape_unsafe", "local_alloc_elemwise"],
    )
}

fn local_useless_alloc(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let (x, dims) = (ins[0], &ins[1..]);
    let (Some(tx), Some(tout)) = (tensor_type(fg, x), tensor_type(fg, output(fg, node))) else {
        return Ok(None);
    };
    if tx.dtype != tout.dtype || tx.broadcastable() != tout.broadcastable() {
        return Ok(None);
    }
    // The same type: the `Alloc` copies `x`, after checking its lengths
    // (PyTensor's `Assert`); the lengths it cannot prove stay checked.
    let mut spec = vec![x];
    let mut checks = false;
    for (i, &d) in dims.iter().enumerate() {
        if is_length_of(fg, d, x, i)? {
            spec.push(dim_constant(fg.graph_mut(), -1));
        } else {
            spec.push(d);
            checks = true;
        }
    }
    if !checks {
        return Ok(Some(Rewrite::one(x)));
    }
    Ok(Some(Rewrite::one(apply(
        fg,
        Arc::new(SpecifyShape),
        &spec,
    )?)))
}

fn local_alloc_sink_dimshuffle(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let (x, dims) = (ins[0], &ins[1..]);
    let ndim = tensor_type(fg, x).map_or(0, |t| t.ndim());
    let pad = dims.len() - ndim;
    let ones = dims[..pad]
        .iter()
        .take_while(|&&d| constant_int(fg, d) == Some(1))
        .count();
    if ones == 0 {
        return Ok(None);
    }
    let mut args = vec![x];
    args.extend_from_slice(&dims[ones..]);
    let inner = apply(fg, Arc::new(Alloc), &args)?;
    let rest = dims.len() - ones;
    let ds = DimShuffle::expand_left(rest, dims.len());
    Ok(Some(Rewrite::one(
        fg.graph_mut().apply_out(Arc::new(ds), &[inner])?,
    )))
}

fn local_merge_alloc(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let outer = inputs(fg, node);
    let Some((inner_node, _)) = owner_as::<Alloc>(fg, outer[0]) else {
        return Ok(None);
    };
    let inner = inputs(fg, inner_node);
    let m = inner[0];
    let m_shape = tensor_type(fg, m)
        .map(|t| t.shape.to_vec())
        .unwrap_or_default();
    let (d_in, d_out) = (&inner[1..], &outer[1..]);
    // From the right, each inner length must be the outer one, or a 1 the
    // outer `Alloc` stretches where `m` has no axis or a static 1 (a
    // non-static 1 of `m` may not be stretched: it must equal the length).
    for k in 1..=d_in.len() {
        let (a, b) = (d_in[d_in.len() - k], d_out[d_out.len() - k]);
        let m_axis = m_shape.len().checked_sub(k).map(|j| m_shape[j]);
        let stretched = constant_int(fg, a) == Some(1) && m_axis.is_none_or(|d| d == Some(1));
        if a != b && !stretched {
            return Ok(None);
        }
    }
    let mut args = vec![m];
    args.extend_from_slice(d_out);
    Ok(Some(Rewrite::one(apply(fg, Arc::new(Alloc), &args)?)))
}

fn local_alloc_dimshuffle(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let Some((ds_node, ds)) = owner_as::<DimShuffle>(fg, ins[0]) else {
        return Ok(None);
    };
    if *ds != DimShuffle::expand_left(ds.input_ndim, ds.new_order.len()) {
        return Ok(None);
    }
    let mut args = vec![fg.graph().node(ds_node).inputs[0]];
    args.extend_from_slice(&ins[1..]);
    Ok(Some(Rewrite::one(apply(fg, Arc::new(Alloc), &args)?)))
}

/// `v` broadcast to the shape of `template`, in `template`'s dtype
/// (PyTensor's `alloc_like`).
fn alloc_like(fg: &mut FunctionGraph, v: VarId, template: VarId) -> Result<VarId> {
    let Some(want) = tensor_type(fg, template).cloned() else {
        return Ok(v);
    };
    let v = cast_to(fg, v, want.dtype)?;
    // A static length 1 where the template's is unknown is not "more
    // specific": `v` would broadcast where the template has `n` elements.
    let fits = |t: &TensorType| want.is_super(t) && t.broadcastable() == want.broadcastable();
    if tensor_type(fg, v).is_some_and(fits) {
        return Ok(v);
    }
    let mut args = vec![v];
    args.extend(shape_of(fg, template)?);
    apply(fg, Arc::new(Alloc), &args)
}

fn local_second_to_alloc(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [shape_ref, value] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some(out_ty) = tensor_type(fg, output(fg, node)).cloned() else {
        return Ok(None);
    };
    let bcast = |fg: &FunctionGraph, v: VarId| tensor_type(fg, v).map(|t| t.broadcastable());
    let out_b = Some(out_ty.broadcastable());
    let value = cast_to(fg, value, out_ty.dtype)?;
    if bcast(fg, value) == out_b {
        // Shape-unsafe: `value` is taken to have `shape_ref`'s lengths
        // already, as it must where neither broadcasts.
        return Ok(Some(Rewrite::one(value)));
    }
    if bcast(fg, shape_ref) != out_b {
        return Ok(None);
    }
    let mut args = vec![value];
    args.extend(shape_of(fg, shape_ref)?);
    Ok(Some(Rewrite::one(apply(fg, Arc::new(Alloc), &args)?)))
}

/// What an elementwise input becomes without the `Alloc` under it: the
/// allocated value (under the same `DimShuffle`, padded on the left).
fn without_alloc(fg: &mut FunctionGraph, v: VarId) -> Result<Option<VarId>> {
    if let Some((n, _)) = owner_as::<Alloc>(fg, v) {
        return Ok(Some(fg.graph().node(n).inputs[0]));
    }
    let Some((ds_node, ds)) = owner_as::<DimShuffle>(fg, v) else {
        return Ok(None);
    };
    let ds = ds.clone();
    let alloc_out = fg.graph().node(ds_node).inputs[0];
    let Some((alloc, _)) = owner_as::<Alloc>(fg, alloc_out) else {
        return Ok(None);
    };
    let mut value = fg.graph().node(alloc).inputs[0];
    let (have, want) = (
        tensor_type(fg, value).map_or(0, |t| t.ndim()),
        tensor_type(fg, alloc_out).map_or(0, |t| t.ndim()),
    );
    if have < want {
        let pad = DimShuffle::expand_left(have, want);
        value = fg.graph_mut().apply_out(Arc::new(pad), &[value])?;
    }
    Ok(Some(fg.graph_mut().apply_out(Arc::new(ds), &[value])?))
}

fn local_elemwise_alloc(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let plain = op_as::<Elemwise>(fg, node).is_some_and(|e| e.inplace_pattern.is_empty());
    let ins = inputs(fg, node);
    if !plain || ins.len() < 2 || fg.graph().node(node).outputs.len() != 1 {
        return Ok(None);
    }
    let mut changed = false;
    let mut args = Vec::with_capacity(ins.len());
    for &v in &ins {
        match without_alloc(fg, v)? {
            Some(w) => {
                changed = true;
                args.push(w);
            }
            None => args.push(v),
        }
    }
    if !changed {
        return Ok(None);
    }
    let op = fg.graph().node(node).op.clone();
    let new = apply_elemwise(fg, op, &args)?;
    let out = output(fg, node);
    let bcast = |fg: &FunctionGraph, v: VarId| tensor_type(fg, v).map(|t| t.broadcastable());
    let new = if bcast(fg, new) == bcast(fg, out) {
        new
    } else {
        alloc_like(fg, new, out)?
    };
    Ok(Some(Rewrite::one(new)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, check_prints, input, printed, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::ops::alloc::Alloc;
    use crate::ops::known::apply_out;
    use crate::ops::shape::ShapeI;
    use crate::tensor::Tensor;

    use std::sync::Arc;

    fn alloc(g: &mut Graph, args: &[VarId]) -> VarId {
        apply_out(g, Arc::new(Alloc), args).unwrap()
    }

    fn len(g: &mut Graph, x: VarId, i: usize) -> VarId {
        g.apply_out(Arc::new(ShapeI { i }), &[x]).unwrap()
    }

    const PHASES: [&str; 4] = ["canonicalize", "stabilize", "specialize", "uncanonicalize"];

    #[test]
    fn allocs_that_copy_check_or_merge() {
        let (mut g, [x]) = graph_with([("x", DType::Int64, 1)]);
        let n = len(&mut g, x, 0);
        let copy = alloc(&mut g, &[x, n]);
        let five = g.tensor_constant(Tensor::scalar(5i64));
        let checked = alloc(&mut g, &[x, five]);
        let one = g.tensor_constant(Tensor::scalar(1i64));
        let k = input(&mut g, DType::Int64, &[], "k");
        let row = alloc(&mut g, &[x, one, n]);
        let rows = alloc(&mut g, &[row, k, n]);
        let case = Case::new(g, vec![x, k], vec![copy, checked, rows]);
        let args = [
            Tensor::from_vec(vec![5], vec![1i64, -2, 3, 4, 5]).unwrap(),
            Tensor::scalar(2i64),
        ];
        check_prints(&case, &PHASES, &args, 0.0, "x [id A]\nSpecifyShape [id B]\n ├─ x [id A]\n └─ 5 [id C]\nAlloc [id D]\n ├─ x [id A]\n ├─ k [id E]\n └─ Shape_i{0} [id F]\n    └─ x [id A]\n");
    }

    #[test]
    fn an_absorbed_alloc_keeps_its_length() {
        // zeros((n,)) + x with a 0-d x: the Alloc gives the length.
        let (mut g, [n, x]) = graph_with([("n", DType::Int64, 0), ("x", DType::Float64, 0)]);
        let zero = g.tensor_constant(Tensor::scalar(0.0f64));
        let zeros = alloc(&mut g, &[zero, n]);
        let sum = build::add(&mut g, zeros, x).unwrap();
        let case = Case::new(g, vec![n, x], vec![sum]);
        let args = [Tensor::scalar(3i64), Tensor::scalar(2.0f64)];
        let fg = check(&case, &PHASES, &args, 0.0);
        assert!(printed(&fg).starts_with("Alloc"), "{}", printed(&fg));
    }

    #[test]
    fn second_becomes_alloc_and_elementwise_ops_absorb_allocs() {
        let (mut g, [x, c]) = graph_with([("x", DType::Float32, 2), ("c", DType::Float32, 0)]);
        let filled = build::fill(&mut g, x, c).unwrap();
        let e = build::exp(&mut g, x).unwrap();
        let prod = build::mul(&mut g, filled, e).unwrap();
        let y = input(&mut g, DType::Float32, &[None, None], "y");
        let same = build::fill(&mut g, x, y).unwrap();
        let case = Case::new(g, vec![x, c, y], vec![filled, prod, same]);
        let m =
            |f: fn(usize) -> f32| Tensor::from_vec(vec![2, 3], (0..6).map(f).collect()).unwrap();
        let args = [
            m(|i| i as f32 * 0.25),
            Tensor::scalar(3.0f32),
            m(|i| 1.0 - i as f32),
        ];
        check_prints(&case, &PHASES, &args, 0.0, "Alloc [id A]\n ├─ c [id B]\n ├─ Shape_i{0} [id C]\n │  └─ x [id D]\n └─ Shape_i{1} [id E]\n    └─ x [id D]\nMul [id F]\n ├─ ExpandDims{axes=(0, 1)} [id G]\n │  └─ c [id B]\n └─ Exp [id H]\n    └─ x [id D]\ny [id I]\n");
    }

    #[test]
    fn leading_ones_of_an_alloc_are_an_expand_dims() {
        let (mut g, [x]) = graph_with([("x", DType::Bool, 1)]);
        let n = len(&mut g, x, 0);
        let one = g.tensor_constant(Tensor::scalar(1i64));
        let row = alloc(&mut g, &[x, one, n]);
        let case = Case::new(g, vec![x], vec![row]);
        let args = [Tensor::from_vec(vec![2], vec![true, false]).unwrap()];
        check_prints(
            &case,
            &["canonicalize"],
            &args,
            0.0,
            "ExpandDims{axis=0} [id A]\n └─ x [id B]\n",
        );
    }

    #[test]
    fn an_alloc_of_a_non_broadcastable_one_is_not_merged() {
        let (mut g, [m]) = graph_with([("m", DType::Float64, 1)]);
        let one = g.tensor_constant(Tensor::scalar(1i64));
        let k = input(&mut g, DType::Int64, &[], "k");
        let inner = alloc(&mut g, &[m, one]);
        let outer = alloc(&mut g, &[inner, k]);
        let case = Case::new(g, vec![m, k], vec![outer]);
        let args = [
            Tensor::from_vec(vec![1], vec![2.5]).unwrap(),
            Tensor::scalar(1i64),
        ];
        check_prints(
            &case,
            &PHASES,
            &args,
            0.0,
            "Alloc [id A]\n ├─ Alloc [id B]\n │  ├─ m [id C]\n │  └─ 1 [id D]\n └─ k [id E]\n",
        );
    }
}
