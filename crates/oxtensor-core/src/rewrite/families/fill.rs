//! `fill` (`second(shape_ref, value)`) in canonical form: it sinks below
//! elementwise ops towards the outputs, where it is dropped when the value
//! already has the output's type (PyTensor's `local_second_sink` and
//! `local_useless_fill`, canonicalize, `shape_unsafe`). Gradients start
//! from `fill(cost, 1)` and broadcast with fills, so this is what lets the
//! canonizers see through them: `fill(x, 1) * y -> fill(x, y) -> y`.
//! Both assume that axes not known to broadcast have equal lengths.

use super::util::{broadcasted_by, dtype_of, output, produced_by, tensor_type};
use crate::build;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::elemwise::Elemwise;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::node_rw;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::scalar::ScalarKind::Second;
use crate::scalar::ScalarOp;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    for (p, tags) in [
        (phase::CANONICALIZE, &["fast_compile", "shape_unsafe"][..]),
        (phase::USELESS, &["shape_unsafe"][..]),
    ] {
        let useless = scalar_rw!("local_useless_fill", [Second], local_useless_fill);
        register_in(db, p, useless, tags)?;
    }
    let sink = node_rw(
        "local_second_sink",
        || Tracks::classes(&["Elemwise"]),
        local_second_sink,
    );
    register_in(db, phase::CANONICALIZE, sink, &["shape_unsafe"])
}

/// `second(s, v) -> v` when `v` has the output's dtype and broadcast pattern.
fn local_useless_fill(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let n = fg.graph().node(node);
    let [_, v] = n.inputs[..] else {
        return Ok(None);
    };
    let (Some(have), Some(want)) = (tensor_type(fg, v), tensor_type(fg, n.outputs[0])) else {
        return Ok(None);
    };
    Ok(have.in_same_class(want).then(|| Rewrite::one(v)))
}

/// `f(second(a, b), second(c, d), e) -> second(c, second(a, f(b, d, e)))`
/// for any elementwise `f` but `second`; a `second` is kept only where it
/// still broadcasts the result.
fn local_second_sink(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(op) = sinkable(fg, node) else {
        return Ok(None);
    };
    let mut models = Vec::new();
    let mut ins: Vec<VarId> = Vec::new();
    for inp in fg.graph().node(node).inputs.clone() {
        match produced_by(fg, inp, Second) {
            Some(s) => {
                let fill = &fg.graph().node(s).inputs;
                models.push(fill[0]);
                ins.push(fill[1]);
            }
            None => ins.push(inp),
        }
    }
    if models.is_empty() {
        return Ok(None);
    }
    let mut new = build::elemwise(fg.graph_mut(), op, &ins)?;
    for m in models {
        if broadcasted_by(fg, new, m) {
            new = build::fill(fg.graph_mut(), m, new)?;
        }
    }
    let out = output(fg, node);
    debug_assert_eq!(dtype_of(fg, new), dtype_of(fg, out));
    Ok(Some(Rewrite::one(new)))
}

/// The scalar op of a plain single-output `Elemwise` other than `second`.
fn sinkable(fg: &FunctionGraph, node: NodeId) -> Option<ScalarOp> {
    let n = fg.graph().node(node);
    let e = n.op.as_any().downcast_ref::<Elemwise>()?;
    let plain = e.inplace_pattern.is_empty() && n.outputs.len() == 1;
    (plain && e.scalar_op != ScalarOp::Kind(Second)).then(|| e.scalar_op.clone())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_unchanged, check_prints, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::tensor::Tensor;

    fn inputs() -> (Graph, [VarId; 3]) {
        graph_with([
            ("x", DType::Float64, 1),
            ("y", DType::Float64, 1),
            ("s", DType::Float64, 0),
        ])
    }

    fn args() -> [Tensor; 3] {
        [
            Tensor::from_vec(vec![3], vec![1.5, -2.0, 0.5]).unwrap(),
            Tensor::from_vec(vec![3], vec![0.25, 4.0, -1.0]).unwrap(),
            Tensor::scalar(0.75f64),
        ]
    }

    #[test]
    fn a_fill_sinks_to_where_it_broadcasts_or_disappears() {
        let (mut g, [x, y, s]) = inputs();
        let one = g.tensor_constant(Tensor::scalar(1.0f64));
        let ones = build::fill(&mut g, x, one).unwrap();
        let gradient_like = build::mul(&mut g, ones, y).unwrap();
        let fs = build::fill(&mut g, x, s).unwrap();
        let e = build::exp(&mut g, fs).unwrap();
        let same = build::fill(&mut g, x, y).unwrap();
        let case = Case::new(g, vec![x, y, s], vec![gradient_like, e, same]);
        check_prints(&case, &["canonicalize"], &args(), 1e-15, "y [id A]\nSecond [id B]\n ├─ x [id C]\n └─ Exp [id D]\n    └─ ExpandDims{axis=0} [id E]\n       └─ s [id F]\ny [id A]\n");
    }

    #[test]
    fn a_fill_that_broadcasts_stays() {
        let (mut g, [x, y, s]) = inputs();
        let fs = build::fill(&mut g, x, s).unwrap();
        let case = Case::new(g, vec![x, y, s], vec![fs]);
        assert_unchanged(&case, &["canonicalize"]);
    }
}
