//! Casts (PyTensor's `local_cast_cast`, canonicalize and specialize, and
//! `local_upcast_elemwise_constant_inputs`, canonicalize): two casts in a
//! row are one when the first loses nothing (`int8 -> int32 -> float64` is
//! `int8 -> float64`), and the constant inputs of an `Elemwise` that
//! upcasts its inputs anyway are cast to its output dtype beforehand, so
//! `1 - x` and `1.0 - x` become the same node and merge.

use super::util::{dtype_of, tensor_type};
use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, Value, VarId};
use crate::kernels::elemwise::cast::cast_constant;
use crate::ops::elemwise::Elemwise;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::node_rw;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::{Rewrite, Track, Tracks};
use crate::scalar::{OutputRule, ScalarKind, ScalarOp};
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    for p in [phase::CANONICALIZE, phase::SPECIALIZE] {
        let cast_cast = node_rw("local_cast_cast", cast_tracks, local_cast_cast);
        register_in(db, p, cast_cast, &[])?;
    }
    let upcast = node_rw(
        "local_upcast_elemwise_constant_inputs",
        upcasting_kinds,
        local_upcast_elemwise_constant_inputs,
    );
    register_in(db, phase::CANONICALIZE, upcast, &[])
}

/// `Elemwise{Cast{d}}` for every dtype `d`.
fn cast_tracks() -> Tracks {
    let ops = DType::ALL
        .iter()
        .map(|&d| Track::Op(Arc::new(Elemwise::new(ScalarOp::Cast(d))) as crate::ops::OpRef));
    Tracks::Some(ops.collect())
}

/// The cast a plain `Elemwise{Cast}` node does, and its input.
fn cast_of(fg: &FunctionGraph, v: VarId) -> Option<(DType, VarId)> {
    let node = fg.graph().var(v).owner()?;
    let n = fg.graph().node(node);
    let e = n.op.as_any().downcast_ref::<Elemwise>()?;
    match e.scalar_op {
        ScalarOp::Cast(d) if e.inplace_pattern.is_empty() => Some((d, n.inputs[0])),
        _ => None,
    }
}

/// `cast(cast(x, d1), d2)`: `cast(x, d1)` when `d1 == d2`; else, when
/// `x -> d1` is exact, `cast(x, d2)` (or `x` itself when `d2` is its dtype).
fn local_cast_cast(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let out = fg.graph().node(node).outputs[0];
    let (Some((d2, inner)), Some((d1, base))) = (cast_of(fg, out), cast_of_input(fg, node)) else {
        return Ok(None);
    };
    if d1 == d2 {
        return Ok(Some(Rewrite::one(inner)));
    }
    let Some(d0) = dtype_of(fg, base) else {
        return Ok(None);
    };
    if !is_an_upcast(d0, d1) {
        return Ok(None);
    }
    Ok(Some(Rewrite::one(build::cast(fg.graph_mut(), base, d2)?)))
}

fn cast_of_input(fg: &FunctionGraph, node: NodeId) -> Option<(DType, VarId)> {
    cast_of(fg, fg.graph().node(node).inputs[0])
}

/// PyTensor's `is_an_upcast`: whether every value of `from` is exactly a
/// value of `to` (kind not lower, precision strictly higher).
fn is_an_upcast(from: DType, to: DType) -> bool {
    let (k1, p1) = rank(from);
    let (k2, p2) = rank(to);
    k2 >= k1 && p2 > p1
}

/// (kind, precision) as PyTensor ranks dtypes (precision in half steps so
/// float16 sits between the 8- and 16-bit integers).
fn rank(d: DType) -> (u8, u8) {
    use DType::*;
    match d {
        Bool => (0, 0),
        UInt8 => (1, 2),
        UInt16 => (1, 4),
        UInt32 => (1, 6),
        UInt64 => (1, 8),
        Int8 => (2, 2),
        Int16 => (2, 4),
        Int32 => (2, 6),
        Int64 => (2, 8),
        Float16 => (3, 3),
        Float32 => (3, 5),
        Float64 => (3, 7),
        Complex64 => (4, 6),
        Complex128 => (4, 8),
    }
}

/// Elementwise kinds whose output dtype is the upcast of their inputs' (or
/// their float upgrade), so an input of another dtype is converted anyway.
fn upcasting_kinds() -> Tracks {
    let kinds: Vec<ScalarKind> = ScalarKind::ALL
        .iter()
        .copied()
        .filter(|k| {
            matches!(
                k.rule(),
                OutputRule::Upcast
                    | OutputRule::UpcastNoBool
                    | OutputRule::UpgradeToFloat
                    | OutputRule::TrueDiv
            )
        })
        .collect();
    Tracks::scalars(&kinds)
}

/// `f(x, c) -> f(x, c')` with `c'` the constant `c` in `f`'s output dtype.
fn local_upcast_elemwise_constant_inputs(
    fg: &mut FunctionGraph,
    node: NodeId,
) -> Result<Option<Rewrite>> {
    let n = fg.graph().node(node);
    let Some(e) = n.op.as_any().downcast_ref::<Elemwise>() else {
        return Ok(None);
    };
    if !e.inplace_pattern.is_empty() {
        return Ok(None);
    }
    let (op, out, ins) = (e.scalar_op.clone(), n.outputs[0], n.inputs.clone());
    let Some(want) = dtype_of(fg, out) else {
        return Ok(None);
    };
    let mut changed = false;
    let mut new_ins = Vec::with_capacity(ins.len());
    for inp in ins {
        let converted = constant_value(fg, inp)
            .filter(|t| t.dtype() != want)
            .map(|t| fg.graph_mut().tensor_constant(cast_constant(&t, want)));
        changed |= converted.is_some();
        new_ins.push(converted.unwrap_or(inp));
    }
    if !changed {
        return Ok(None);
    }
    let new = build::elemwise(fg.graph_mut(), op, &new_ins)?;
    let fits = match (tensor_type(fg, out), tensor_type(fg, new)) {
        (Some(old), Some(t)) => old.is_super(t),
        _ => false,
    };
    Ok(fits.then(|| Rewrite::one(new)))
}

/// The value of `v` when it is a constant tensor.
fn constant_value(fg: &FunctionGraph, v: VarId) -> Option<crate::tensor::Tensor> {
    match &fg.graph().var(v).constant()?.value {
        Value::Tensor(t) => Some(t.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_unchanged, check_prints, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::scalar::ScalarOp;
    use crate::tensor::Tensor;

    fn cast(g: &mut Graph, x: VarId, d: DType) -> VarId {
        build::elemwise(g, ScalarOp::Cast(d), &[x]).unwrap()
    }

    #[test]
    fn an_exact_cast_then_another_is_one_cast() {
        let (mut g, [x]) = graph_with([("x", DType::Int8, 1)]);
        let wide = cast(&mut g, x, DType::Int32);
        let to_float = cast(&mut g, wide, DType::Float64);
        let back = cast(&mut g, wide, DType::Int8);
        let twice = cast(&mut g, x, DType::Int16);
        let twice = cast(&mut g, twice, DType::Int16);
        let case = Case::new(g, vec![x], vec![to_float, back, twice]);
        let args = [Tensor::from_vec(vec![3], vec![-128i8, 5, 127]).unwrap()];
        check_prints(
            &case,
            &["canonicalize"],
            &args,
            0.0,
            "Cast{float64} [id A]\n └─ x [id B]\nx [id B]\nCast{int16} [id C]\n └─ x [id B]\n",
        );
    }

    #[test]
    fn a_lossy_cast_then_another_stays() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let narrow = cast(&mut g, x, DType::Float32);
        let back = cast(&mut g, narrow, DType::Float64);
        let case = Case::new(g, vec![x], vec![back]);
        assert_unchanged(&case, &["canonicalize"]);
    }

    #[test]
    fn constants_take_the_output_dtype_so_equal_expressions_merge() {
        let (mut g, [x]) = graph_with([("x", DType::Float32, 1)]);
        let one_int = g.tensor_constant(Tensor::from_vec(vec![1], vec![1i8]).unwrap());
        let one_float = g.tensor_constant(Tensor::from_vec(vec![1], vec![1.0f32]).unwrap());
        let a = build::sub(&mut g, one_int, x).unwrap();
        let b = build::sub(&mut g, one_float, x).unwrap();
        let case = Case::new(g, vec![x], vec![a, b]);
        let args = [Tensor::from_vec(vec![2], vec![0.5f32, -3.0]).unwrap()];
        check_prints(
            &case,
            &["canonicalize"],
            &args,
            0.0,
            "Sub [id A]\n ├─ [1.] [id B]\n └─ x [id C]\nSub [id A]\n └─ ···\n",
        );
    }
}
