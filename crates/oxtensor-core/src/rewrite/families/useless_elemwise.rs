//! Elementwise nodes that do nothing (PyTensor's `local_useless_elemwise`,
//! canonicalize): `add(x)`, `mul(x)` and `identity(x)` are `x`; `x == x`
//! is all true, `x != x` all false (for non-float `x`, where no NaN can
//! make them differ); `x & x` and `x | x` are `x`, `x ^ x` is all false.
//! And double negation, `-(-x) -> x` (`local_neg_neg`).

use super::util::{elemwise_kind, inputs, like, output, produced_by, tensor_type};
use crate::build;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::ops::scalar::ScalarKind::{self, *};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::{FnRewriter, NodeRewriter, Rewrite, Tracks};
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let useless: Arc<dyn NodeRewriter> = Arc::new(FnRewriter::new(
        "local_useless_elemwise",
        || Tracks::scalars(&[Add, Mul, Identity, Eq, Neq, And, Or, Xor]),
        local_useless_elemwise,
    ));
    register_in(db, phase::CANONICALIZE, useless, &[])?;
    let neg_neg: Arc<dyn NodeRewriter> = Arc::new(FnRewriter::new(
        "local_neg_neg",
        || Tracks::scalars(&[Neg]),
        local_neg_neg,
    ));
    register_in(db, phase::CANONICALIZE, neg_neg, &[])
}

fn local_useless_elemwise(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(kind) = elemwise_kind(fg, node) else {
        return Ok(None);
    };
    let ins = inputs(fg, node);
    let out = output(fg, node);
    let new = match (kind, ins.as_slice()) {
        (Add | Mul | Identity, [x]) => *x,
        (And | Or, [a, b]) if a == b => *a,
        (Eq | Neq | Xor, [a, b]) if a == b && !is_float(fg, *a) => {
            let truth = kind == Eq;
            build::scalar_constant(
                fg.graph_mut(),
                crate::dtype::DType::Bool,
                truth as u8 as f64,
            )
        }
        _ => return Ok(None),
    };
    let new = like(fg, new, out, &ins)?;
    Ok(Some(Rewrite::one(new)))
}

fn is_float(fg: &FunctionGraph, v: crate::graph::VarId) -> bool {
    tensor_type(fg, v).is_none_or(|t| t.dtype.is_float() || t.dtype.is_complex())
}

fn local_neg_neg(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [x] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some(inner) = produced_by(fg, x, ScalarKind::Neg) else {
        return Ok(None);
    };
    let y = inputs(fg, inner)[0];
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, y, out, &[])?)))
}

#[cfg(test)]
mod tests {
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph};
    use crate::rewrite::db::Query;
    use crate::rewrite::optdb::optdb;
    use crate::rewrite::{rewrite_graph, RunContext};
    use crate::types::TensorType;

    fn canonicalize(fg: &mut FunctionGraph) {
        let pass = optdb().query(&Query::including(&["canonicalize"])).unwrap();
        let mut run = RunContext::default();
        rewrite_graph(pass.as_ref(), fg, &mut run).unwrap();
        assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    }

    #[test]
    fn double_negation_and_self_comparison_disappear() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Int64, 1), Some("x"));
        let n = build::neg(&mut g, x).unwrap();
        let nn = build::neg(&mut g, n).unwrap();
        let e = build::eq(&mut g, x, x).unwrap();
        let mut fg = FunctionGraph::new(g, vec![x], vec![nn, e]).unwrap();
        canonicalize(&mut fg);
        assert_eq!(fg.outputs()[0], x);
        let printed = crate::print::debugprint(&fg, &Default::default());
        assert!(
            printed.contains("Second"),
            "x == x is a fill of True: {printed}"
        );
        fg.check_integrity().unwrap();
    }
}
