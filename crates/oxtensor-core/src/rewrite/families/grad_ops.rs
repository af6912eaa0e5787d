//! The gradient-shaping ops (`zero_grad`, `grad_clip`, ...) only matter
//! while gradients are taken; in a compiled graph they are identities, and
//! PyTensor's `local_view_op` (canonicalize) removes them, so the program
//! that runs holds none (`test_grad_clip` checks exactly that).

use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::ops::grad_ops::GradOp;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::node_rw;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::{Rewrite, Track, Tracks};

/// The class names a `GradOp` takes, one per kind.
const KINDS: [&str; 5] = [
    "ZeroGrad",
    "DisconnectedGrad",
    "UndefinedGrad",
    "GradClip",
    "GradScale",
];

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let tracks = || Tracks::Some(KINDS.iter().map(|k| Track::Class(k.to_string())).collect());
    let remove = node_rw("local_remove_grad_op", tracks, local_remove_grad_op);
    register_in(db, phase::CANONICALIZE, remove, &[])
}

/// `grad_op(x)` is `x`.
fn local_remove_grad_op(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let n = fg.graph().node(node);
    if n.op.as_any().downcast_ref::<GradOp>().is_none() {
        return Ok(None);
    }
    Ok(Some(Rewrite::one(n.inputs[0])))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, Case};
    use super::GradOp;
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::tensor::Tensor;

    use std::sync::Arc;

    #[test]
    fn grad_ops_leave_the_compiled_graph() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let clip = GradOp::clip(-1.0, 1.0).unwrap();
        let clipped = g.apply_out(Arc::new(clip), &[x]).unwrap();
        let scaled = g
            .apply_out(Arc::new(GradOp::scale(2.0)), &[clipped])
            .unwrap();
        let y = build::exp(&mut g, scaled).unwrap();
        let case = Case::new(g, vec![x], vec![y]);
        let args = [Tensor::from_vec(vec![2], vec![0.5, -2.0]).unwrap()];
        check_prints(
            &case,
            &["canonicalize"],
            &args,
            0.0,
            "Exp [id A]\n └─ x [id B]\n",
        );
    }
}
