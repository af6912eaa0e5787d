//! Comparisons whose result is known (PyTensor's
//! `local_useless_elemwise_comparison`, useless, canonicalize, stabilize
//! and specialize): `x < x` and `x > x` are false, `maximum(x, x)` and
//! `minimum(x, x)` are `x`, and lengths are never negative
//! (`x.shape[i] < 0` is false, `x.shape[i] >= 0` true, `maximum(x.shape[i],
//! 0)` is the length, `minimum(x.shape[i], 0)` is 0, a length equals no
//! negative constant). `x <= x` and `x >= x` are true only where `x` is
//! not NaN, so they are rewritten for integer `x` only (PyTensor rewrites
//! them for floats too).

use super::util::{
    dtype_of, elemwise_kind, inputs, is_inexact, like, output, scalar_f64, tensor_is, unique_value,
};
use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::join::Join;
use crate::ops::make_vector::MakeVector;
use crate::ops::shape::{Shape, ShapeI};
use crate::ops::subtensor::Subtensor;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{self, *};

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    for p in [
        phase::USELESS,
        phase::CANONICALIZE,
        phase::STABILIZE,
        phase::SPECIALIZE,
    ] {
        let rw = scalar_rw!(
            "local_useless_elemwise_comparison",
            [Lt, Gt, Le, Ge, Eq, Minimum, Maximum],
            local_useless_elemwise_comparison
        );
        register_in(db, p, rw, &[])?;
    }
    Ok(())
}

/// What a comparison reduces to.
enum Known {
    /// A constant of the output's dtype.
    Constant(f64),
    /// One of its inputs.
    Input(VarId),
}

fn local_useless_elemwise_comparison(
    fg: &mut FunctionGraph,
    node: NodeId,
) -> Result<Option<Rewrite>> {
    let Some(kind) = elemwise_kind(fg, node) else {
        return Ok(None);
    };
    let ins = inputs(fg, node);
    let [a, b] = ins[..] else {
        return Ok(None);
    };
    let known = if a == b {
        same_operands(fg, kind, a)
    } else {
        with_length(fg, kind, a, b)
    };
    let out = output(fg, node);
    let new = match known {
        None => return Ok(None),
        Some(Known::Input(v)) => v,
        Some(Known::Constant(x)) => {
            let dtype = dtype_of(fg, out).unwrap_or(DType::Bool);
            build::scalar_constant(fg.graph_mut(), dtype, x)
        }
    };
    Ok(Some(Rewrite::one(like(fg, new, out, &ins)?)))
}

/// `x op x`.
fn same_operands(fg: &FunctionGraph, kind: ScalarKind, x: VarId) -> Option<Known> {
    match kind {
        Lt | Gt => Some(Known::Constant(0.0)),
        Le | Ge if !is_inexact(fg, x) => Some(Known::Constant(1.0)),
        Minimum | Maximum => Some(Known::Input(x)),
        _ => None,
    }
}

/// `a op b` where one side is a length (never negative).
fn with_length(fg: &FunctionGraph, kind: ScalarKind, a: VarId, b: VarId) -> Option<Known> {
    let value = |v: VarId| unique_value(fg, v);
    let zero = |v: VarId| value(v).is_some_and(|t| tensor_is(&t, 0.0));
    match kind {
        Lt if zero(b) && (is_length(fg, a) || is_sum_of_lengths(fg, a)) => {
            Some(Known::Constant(0.0))
        }
        Ge if zero(b) && (is_length(fg, a) || is_sum_of_lengths(fg, a)) => {
            Some(Known::Constant(1.0))
        }
        Maximum if zero(b) && is_length(fg, a) => Some(Known::Input(a)),
        Maximum if zero(a) && is_length(fg, b) => Some(Known::Input(b)),
        Minimum if (zero(b) && is_length(fg, a)) || (zero(a) && is_length(fg, b)) => {
            Some(Known::Constant(0.0))
        }
        Eq if negative(fg, b) && is_lengths(fg, a, 8) => Some(Known::Constant(0.0)),
        _ => None,
    }
}

fn negative(fg: &FunctionGraph, v: VarId) -> bool {
    let Some(t) = unique_value(fg, v) else {
        return false;
    };
    scalar_f64(t.get(0)).is_some_and(|x| x < 0.0)
}

/// `x.shape[i]`.
fn is_length(fg: &FunctionGraph, v: VarId) -> bool {
    let g = fg.graph();
    g.var(v)
        .owner()
        .is_some_and(|n| g.node(n).op.as_any().is::<ShapeI>())
}

/// A sum of lengths.
fn is_sum_of_lengths(fg: &FunctionGraph, v: VarId) -> bool {
    let g = fg.graph();
    let Some(n) = g.var(v).owner() else {
        return false;
    };
    elemwise_kind(fg, n) == Some(Add) && g.node(n).inputs.iter().all(|&i| is_length(fg, i))
}

/// Values that are all lengths: a shape, or what indexing, joining and
/// stacking make of lengths (PyTensor's `investigate_if_shape`), looked at
/// `depth` nodes deep at most.
fn is_lengths(fg: &FunctionGraph, v: VarId, depth: usize) -> bool {
    let g = fg.graph();
    let Some(n) = g.var(v).owner() else {
        return false;
    };
    let node = g.node(n);
    let op = node.op.as_any();
    if op.is::<Shape>() || op.is::<ShapeI>() {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let all = |ins: &[VarId]| ins.iter().all(|&i| is_lengths(fg, i, depth - 1));
    if op.is::<Subtensor>() {
        is_lengths(fg, node.inputs[0], depth - 1)
    } else if op.is::<Join>() {
        all(&node.inputs[1..])
    } else if op.is::<MakeVector>() {
        all(&node.inputs)
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_unchanged, check_prints, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::Graph;
    use crate::ops::shape::ShapeI;
    use crate::scalar::ScalarKind::{Ge, Le, Lt, Maximum, Minimum};
    use crate::tensor::Tensor;

    use std::sync::Arc;

    #[test]
    fn self_comparisons_and_lengths_are_known() {
        let (mut g, [x, i]) = graph_with([("x", DType::Float64, 1), ("i", DType::Int64, 1)]);
        let op = |g: &mut Graph, k, a, b| build::elemwise(g, k, &[a, b]).unwrap();
        let lt = op(&mut g, Lt, x, x);
        let max = op(&mut g, Maximum, x, x);
        let le = op(&mut g, Le, i, i);
        let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[x]).unwrap();
        let zero = g.tensor_constant(Tensor::scalar(0i64));
        let nonneg = op(&mut g, Ge, n, zero);
        let n_or_zero = op(&mut g, Maximum, zero, n);
        let none = op(&mut g, Minimum, n, zero);
        let case = Case::new(g, vec![x, i], vec![lt, max, le, nonneg, n_or_zero, none]);
        let args = [
            Tensor::from_vec(vec![3], vec![1.5, f64::NAN, 0.5]).unwrap(),
            Tensor::from_vec(vec![3], vec![7i64, -3, 0]).unwrap(),
        ];
        check_prints(
            &case,
            &["canonicalize"],
            &args,
            0.0,
            "Second [id A]\n ├─ x [id B]\n └─ [False] [id C]\nx [id B]\n\
             Second [id D]\n ├─ i [id E]\n └─ [True] [id F]\nTrue [id G]\n\
             Shape_i{0} [id H]\n └─ x [id B]\n0 [id I]\n",
        );
    }

    #[test]
    fn a_float_compared_with_itself_may_be_nan() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let le = build::elemwise(&mut g, Le, &[x, x]).unwrap();
        let case = Case::new(g, vec![x], vec![le]);
        assert_unchanged(&case, &["canonicalize"]);
    }
}
