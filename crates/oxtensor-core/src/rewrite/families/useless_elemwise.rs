//! Elementwise nodes that do nothing (PyTensor's `local_useless_elemwise`,
//! useless, canonicalize and specialize): `add(x)`, `mul(x)` and
//! `identity(x)` are `x`; `x == x` is all true, `x != x` all false (for
//! non-float `x`, where no NaN can make them differ); `x & x` and `x | x`
//! are `x`, `x ^ x` is all false; `x & 0` is 0 and `x | 0` is `x`, and for
//! bools `x & 1` is `x` and `x | 1` is 1. And double negation, `-(-x) -> x`
//! (`local_neg_neg`).

use super::util::{
    elemwise_kind, inputs, like, output, produced_by, tensor_is, tensor_type, unique_value,
};
use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{self, *};

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    for (p, tags) in [
        (phase::USELESS, &[][..]),
        (phase::CANONICALIZE, &["fast_compile"][..]),
        (phase::SPECIALIZE, &[][..]),
    ] {
        let useless = scalar_rw!(
            "local_useless_elemwise",
            [Add, Mul, Identity, Eq, Neq, And, Or, Xor],
            local_useless_elemwise
        );
        register_in(db, p, useless, tags)?;
    }
    let neg_neg = scalar_rw!("local_neg_neg", [Neg], local_neg_neg);
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
        (And | Or, [a, b]) => match logic_with_constant(fg, kind, out, *a, *b) {
            Some(v) => v,
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    let new = like(fg, new, out, &ins)?;
    Ok(Some(Rewrite::one(new)))
}

/// `x & c` or `x | c` (either order) for a constant `c`: what it is, when
/// the constant decides (`& 0`, `| 0`, and for bools `& 1`, `| 1`). A
/// constant that could broadcast an axis of `x` of unknown length is left
/// alone, as PyTensor leaves it.
fn logic_with_constant(
    fg: &mut FunctionGraph,
    kind: ScalarKind,
    out: VarId,
    a: VarId,
    b: VarId,
) -> Option<VarId> {
    let dtype = tensor_type(fg, out)?.dtype;
    for (c, x) in [(a, b), (b, a)] {
        let Some(value) = unique_value(fg, c) else {
            continue;
        };
        let c_broadcasts =
            tensor_type(fg, c).is_some_and(|t| t.shape.iter().all(|d| *d == Some(1)));
        if !c_broadcasts && tensor_type(fg, x).is_none_or(|t| t.shape.contains(&None)) {
            return None;
        }
        let constant = |fg: &mut FunctionGraph, v| build::scalar_constant(fg.graph_mut(), dtype, v);
        return match (kind, tensor_is(&value, 0.0)) {
            (And, true) => Some(constant(fg, 0.0)),
            (Or, true) => Some(x),
            (And, false) if dtype == DType::Bool => Some(x),
            (Or, false) if dtype == DType::Bool => Some(constant(fg, 1.0)),
            _ => None,
        };
    }
    None
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
    use crate::graph::testing::graph_with;
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
        let (mut g, [x]) = graph_with([("x", DType::Int64, 1)]);
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

    #[test]
    fn a_constant_that_decides_a_logical_op() {
        use super::super::testing::{assert_unchanged, check_prints, Case};
        use crate::tensor::Tensor;
        let mut g = Graph::new();
        let b = g.input(TensorType::new(DType::Bool, [Some(3)]).unwrap(), Some("b"));
        let i = g.input(TensorType::with_ndim(DType::Int32, 1), Some("i"));
        let yes = g.tensor_constant(Tensor::scalar(true));
        let zero = g.tensor_constant(Tensor::scalar(0i32));
        let and_yes = build::and(&mut g, b, yes).unwrap();
        let or_yes = build::elemwise(&mut g, crate::scalar::ScalarKind::Or, &[yes, b]).unwrap();
        let and_zero = build::and(&mut g, i, zero).unwrap();
        let or_zero = build::elemwise(&mut g, crate::scalar::ScalarKind::Or, &[i, zero]).unwrap();
        let case = Case::new(g, vec![b, i], vec![and_yes, or_yes, and_zero, or_zero]);
        let args = [
            Tensor::from_vec(vec![3], vec![true, false, true]).unwrap(),
            Tensor::from_vec(vec![3], vec![6i32, -1, 0]).unwrap(),
        ];
        check_prints(
            &case,
            &["canonicalize"],
            &args,
            0.0,
            "b [id A]\nSecond [id B]\n ├─ b [id A]\n └─ [True] [id C]\n\
             Second [id D]\n ├─ i [id E]\n └─ [0] [id F]\ni [id E]\n",
        );
        // A bitwise `& 7` of integers is not decided by the constant.
        let mut g = Graph::new();
        let i = g.input(TensorType::new(DType::Int32, [Some(3)]).unwrap(), Some("i"));
        let seven = g.tensor_constant(Tensor::from_vec(vec![1], vec![7i32]).unwrap());
        let and_seven = build::and(&mut g, i, seven).unwrap();
        let case = Case::new(g, vec![i], vec![and_seven]);
        assert_unchanged(&case, &["canonicalize"]);
    }
}
