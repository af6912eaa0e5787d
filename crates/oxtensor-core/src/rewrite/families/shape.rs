//! Shapes asked of the graph (PyTensor's `tensor/rewriting/shape.py`):
//! `Shape(x)` becomes a `MakeVector` of `x`'s inferred lengths
//! (`local_shape_to_shape_i`), `Shape_i(x)` of a computed `x` the inferred
//! length itself (`local_track_shape_i`), so `x` need not be computed to
//! know its size; `Shape_i` of a static axis is that constant
//! (`local_Shape_i_ground`); a `SpecifyShape` that the input's type
//! already guarantees goes (`local_useless_specify_shape`), and the shape
//! of one is what it specified (`local_Shape_of_SpecifyShape`).

use super::shape_feature::{shape_of, shape_rewriter, TransformFn};
use super::util::{constant_int, inputs, op_as, output, owner_as, register_phases, tensor_type};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::infer_shape::dim_constant;
use crate::ops::make_vector::MakeVector;
use crate::ops::shape::ShapeI;
use crate::ops::specify_shape::SpecifyShape;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, STABILIZE, USELESS};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::tensor::Tensor;
use std::sync::Arc;

/// The rewriters: name, the op class tracked, the rewrite, its phases.
type Entry = (
    &'static str,
    fn() -> Tracks,
    TransformFn,
    &'static [&'static str],
);

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let shape = || Tracks::classes(&["Shape"]);
    let shape_i = || Tracks::classes(&["Shape_i"]);
    let specify = || Tracks::classes(&["SpecifyShape"]);
    let table: [Entry; 5] = [
        (
            "local_shape_to_shape_i",
            shape,
            local_shape_to_shape_i,
            &[CANONICALIZE, SPECIALIZE],
        ),
        (
            "local_track_shape_i",
            shape_i,
            local_track_shape_i,
            &[CANONICALIZE, SPECIALIZE],
        ),
        (
            "local_Shape_i_ground",
            shape_i,
            local_shape_i_ground,
            &[USELESS, CANONICALIZE],
        ),
        (
            "local_useless_specify_shape",
            specify,
            local_useless_specify_shape,
            &[USELESS, CANONICALIZE, STABILIZE, SPECIALIZE],
        ),
        (
            "local_Shape_of_SpecifyShape",
            shape,
            local_shape_of_specify_shape,
            &[USELESS, CANONICALIZE],
        ),
    ];
    for (name, tracks, f, phases) in table {
        register_phases(db, phases, shape_rewriter(name, tracks, f), &[])?;
    }
    Ok(())
}

/// An int64 vector of the given lengths (a constant when there are none).
fn make_vector(fg: &mut FunctionGraph, dims: &[VarId]) -> Result<VarId> {
    if dims.is_empty() {
        let empty = Tensor::from_vec(vec![0], Vec::<i64>::new())?;
        return Ok(fg.graph_mut().tensor_constant(empty));
    }
    let op = Arc::new(MakeVector {
        dtype: DType::Int64,
    });
    fg.graph_mut().apply_out(op, dims)
}

fn local_shape_to_shape_i(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let x = inputs(fg, node)[0];
    let dims = shape_of(fg, x)?;
    Ok(Some(Rewrite::one(make_vector(fg, &dims)?)))
}

/// `(i, v)` of a `Shape_i{i}(v)` node.
fn shape_i_of(fg: &FunctionGraph, node: NodeId) -> Option<(usize, VarId)> {
    let i = op_as::<ShapeI>(fg, node)?.i;
    match inputs(fg, node)[..] {
        [v] => Some((i, v)),
        _ => None,
    }
}

fn local_track_shape_i(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((i, v)) = shape_i_of(fg, node) else {
        return Ok(None);
    };
    if fg.graph().var(v).owner().is_none() {
        return Ok(None);
    }
    let s = shape_of(fg, v)?[i];
    // `Shape_i(v)` is the answer for ops that cannot tell: no progress.
    let same = owner_as::<ShapeI>(fg, s)
        .is_some_and(|(n, o)| o.i == i && fg.graph().node(n).inputs[0] == v);
    if s == output(fg, node) || same {
        return Ok(None);
    }
    Ok(Some(Rewrite::one(s)))
}

fn local_shape_i_ground(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((i, v)) = shape_i_of(fg, node) else {
        return Ok(None);
    };
    let Some(Some(len)) = tensor_type(fg, v).and_then(|t| t.shape.get(i).copied()) else {
        return Ok(None);
    };
    Ok(Some(Rewrite::one(dim_constant(fg.graph_mut(), len as i64))))
}

/// Whether a `SpecifyShape` length input says nothing (a negative constant).
fn unspecified(fg: &FunctionGraph, dim: VarId) -> bool {
    constant_int(fg, dim).is_some_and(|d| d < 0)
}

fn local_useless_specify_shape(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let Some(ty) = tensor_type(fg, ins[0]) else {
        return Ok(None);
    };
    let guaranteed = ty.shape.iter().zip(&ins[1..]).all(|(have, &dim)| {
        unspecified(fg, dim) || have.is_some_and(|n| constant_int(fg, dim) == Some(n as i64))
    });
    Ok(guaranteed.then(|| Rewrite::one(ins[0])))
}

fn local_shape_of_specify_shape(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let x = inputs(fg, node)[0];
    let Some((spec, _)) = owner_as::<SpecifyShape>(fg, x) else {
        return Ok(None);
    };
    let ins = inputs(fg, spec);
    let mut dims = Vec::with_capacity(ins.len() - 1);
    for (i, &dim) in ins[1..].iter().enumerate() {
        // A symbolic length may be negative (unspecified) at run time, so
        // only a constant one is taken; the others are read from `x`.
        dims.push(match constant_int(fg, dim) {
            Some(n) if n >= 0 => dim_constant(fg.graph_mut(), n),
            _ => fg
                .graph_mut()
                .apply_out(Arc::new(ShapeI { i }), &[ins[0]])?,
        });
    }
    Ok(Some(Rewrite::one(make_vector(fg, &dims)?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::Graph;
    use crate::ops::shape::ShapeI;
    use crate::tensor::Tensor;
    use crate::types::TensorType;
    use std::sync::Arc;

    fn matrix(
        g: &mut Graph,
        dtype: DType,
        shape: [Option<u64>; 2],
        name: &str,
    ) -> crate::graph::VarId {
        g.input(TensorType::new(dtype, shape).unwrap(), Some(name))
    }

    #[test]
    fn shape_of_a_product_reads_the_inputs_lengths() {
        let mut g = Graph::new();
        let x = matrix(&mut g, DType::Float64, [None, Some(3)], "x");
        let y = matrix(&mut g, DType::Float64, [Some(3), None], "y");
        let d = build::dot(&mut g, x, y).unwrap();
        let e = build::exp(&mut g, d).unwrap();
        let shp = build::shape(&mut g, e).unwrap();
        let case = Case::new(g, vec![x, y], vec![shp]);
        let args = [
            Tensor::from_vec(vec![2, 3], vec![1.0f64; 6]).unwrap(),
            Tensor::from_vec(vec![3, 4], vec![1.0f64; 12]).unwrap(),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "MakeVector{dtype='int64'} [id A]\n ├─ Shape_i{0} [id B]\n │  └─ x [id C]\n └─ Shape_i{1} [id D]\n    └─ y [id E]\n");
    }

    #[test]
    fn length_of_an_intermediate_and_of_a_static_axis() {
        let mut g = Graph::new();
        let x = matrix(&mut g, DType::Int32, [None, Some(4)], "x");
        let s = build::sum(&mut g, x, Some(&[1])).unwrap();
        let n0 = g.apply_out(Arc::new(ShapeI { i: 0 }), &[s]).unwrap();
        let n1 = g.apply_out(Arc::new(ShapeI { i: 1 }), &[x]).unwrap();
        let total = build::sum(&mut g, s, None).unwrap();
        let of_scalar = build::shape(&mut g, total).unwrap();
        let case = Case::new(g, vec![x], vec![n0, n1, of_scalar]);
        let args = [Tensor::from_vec(vec![0, 4], Vec::<i32>::new()).unwrap()];
        check_prints(
            &case,
            &["canonicalize"],
            &args,
            0.0,
            "Shape_i{0} [id A]\n └─ x [id B]\n4 [id C]\n[] [id D]\n",
        );
    }

    #[test]
    fn specify_shape_the_type_guarantees_goes_and_its_shape_is_the_spec() {
        let mut g = Graph::new();
        let x = matrix(&mut g, DType::Float32, [Some(2), None], "x");
        let two = g.tensor_constant(Tensor::scalar(2i64));
        let none = g.tensor_constant(Tensor::scalar(-1i64));
        let three = g.tensor_constant(Tensor::scalar(3i64));
        let spec = |g: &mut Graph, d: crate::graph::VarId| {
            crate::ops::known::apply_out(
                g,
                Arc::new(crate::ops::specify_shape::SpecifyShape),
                &[x, two, d],
            )
            .unwrap()
        };
        let useless = spec(&mut g, none);
        let kept = spec(&mut g, three);
        let e = build::exp(&mut g, useless).unwrap();
        let shp = build::shape(&mut g, kept).unwrap();
        let case = Case::new(g, vec![x], vec![e, kept, shp]);
        let args = [Tensor::from_vec(vec![2, 3], vec![0.5f32; 6]).unwrap()];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Exp [id A]\n └─ x [id B]\nSpecifyShape [id C]\n ├─ x [id B]\n ├─ 2 [id D]\n └─ 3 [id E]\n[2 3] [id F]\n");
    }
}
