//! `local_exp_log_nan_switch` (specialize, as PyTensor's
//! `tensor/rewriting/math.py`): an exponential of a logarithm is its
//! argument where the logarithm is defined, and NaN elsewhere, e.g.
//! `exp(log(x)) -> switch(x >= 0, x, nan)`, `exp(log1p(x)) -> switch(x >=
//! -1, 1 + x, nan)`, `softplus(log(x)) -> switch(x >= 0, log1p(x), nan)`,
//! `log1mexp(log1mexp(x)) -> switch(x <= 0, x, nan)`. The values agree
//! where the composition is accurate, and are exact where it rounds.

use super::util::{cast_to, dtype_of, elemwise, elemwise_kind, inputs, like, output};
use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{self, *};

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let rw = scalar_rw!(
        "local_exp_log_nan_switch",
        [Exp, Expm1, Softplus, Log1mexp],
        local_exp_log_nan_switch
    );
    register_in(db, phase::SPECIALIZE, rw, &[])
}

/// Where the inner function is defined: `x >= 0`, `x >= -1` or `x <= 0`.
#[derive(Clone, Copy)]
enum Domain {
    NonNegative,
    AboveMinusOne,
    NonPositive,
}

/// The value of `outer(inner(x))` on the inner function's domain.
#[derive(Clone, Copy)]
enum Value {
    /// `x`.
    X,
    /// `c + x`.
    Plus(f64),
    /// `1 - exp(x)`.
    OneMinusExp,
    /// `-exp(x)`.
    MinusExp,
    /// `log1p(x)`.
    Log1p,
    /// `log1p(-x)`.
    Log1pNeg,
}

/// PyTensor's table of compositions.
fn composition(outer: ScalarKind, inner: ScalarKind) -> Option<(Domain, Value)> {
    use Domain::*;
    Some(match (outer, inner) {
        (Exp, Log) => (NonNegative, Value::X),
        (Exp, Log1p) => (AboveMinusOne, Value::Plus(1.0)),
        (Expm1, Log) => (NonNegative, Value::Plus(-1.0)),
        (Expm1, Log1p) => (AboveMinusOne, Value::X),
        (Exp, Log1mexp) => (NonPositive, Value::OneMinusExp),
        (Expm1, Log1mexp) => (NonPositive, Value::MinusExp),
        (Softplus, Log) => (NonNegative, Value::Log1p),
        (Log1mexp, Log) => (NonNegative, Value::Log1pNeg),
        (Log1mexp, Log1mexp) => (NonPositive, Value::X),
        _ => return None,
    })
}

fn value(fg: &mut FunctionGraph, v: Value, x: VarId, dtype: DType) -> Result<VarId> {
    let c = |fg: &mut FunctionGraph, k: f64| build::scalar_constant(fg.graph_mut(), dtype, k);
    match v {
        Value::X => Ok(x),
        Value::Plus(k) => {
            let k = c(fg, k);
            elemwise(fg, Add, &[k, x])
        }
        Value::OneMinusExp | Value::MinusExp => {
            let e = elemwise(fg, Exp, &[x])?;
            match v {
                Value::OneMinusExp => {
                    let one = c(fg, 1.0);
                    elemwise(fg, Sub, &[one, e])
                }
                _ => elemwise(fg, Neg, &[e]),
            }
        }
        Value::Log1p => elemwise(fg, Log1p, &[x]),
        Value::Log1pNeg => {
            let n = elemwise(fg, Neg, &[x])?;
            elemwise(fg, Log1p, &[n])
        }
    }
}

fn local_exp_log_nan_switch(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [arg] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let (Some(outer), Some(inner_node)) = (elemwise_kind(fg, node), fg.graph().var(arg).owner())
    else {
        return Ok(None);
    };
    let Some((domain, v)) = elemwise_kind(fg, inner_node).and_then(|k| composition(outer, k))
    else {
        return Ok(None);
    };
    let out = output(fg, node);
    let Some(dtype) = dtype_of(fg, out).filter(|d| d.is_float()) else {
        return Ok(None);
    };
    let x = cast_to(fg, inputs(fg, inner_node)[0], dtype)?;
    let (cmp, bound) = match domain {
        Domain::NonNegative => (Ge, 0.0),
        Domain::AboveMinusOne => (Ge, -1.0),
        Domain::NonPositive => (Le, 0.0),
    };
    let bound = build::scalar_constant(fg.graph_mut(), dtype, bound);
    let defined = elemwise(fg, cmp, &[x, bound])?;
    let then = value(fg, v, x, dtype)?;
    let nan = build::scalar_constant(fg.graph_mut(), dtype, f64::NAN);
    let new = build::switch(fg.graph_mut(), defined, then, nan)?;
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, printed, Case};
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::scalar::ScalarKind::{self, *};
    use crate::tensor::Tensor;

    /// `outer(inner(x))` of a 1-d `x`, specialized and checked against the
    /// plain graph on values inside and outside the inner domain.
    fn specialized(dtype: DType, outer: ScalarKind, inner: ScalarKind) -> String {
        let (mut g, [x]) = graph_with([("x", dtype, 1)]);
        let i = build::elemwise(&mut g, inner, &[x]).unwrap();
        let o = build::elemwise(&mut g, outer, &[i]).unwrap();
        let case = Case::new(g, vec![x], vec![o]);
        let v = vec![-3.0f64, -0.5, -0.25, 0.0, 0.5, 2.0, f64::NAN];
        let x = Tensor::from_vec(vec![v.len()], v).unwrap();
        let x = crate::kernels::elemwise::cast::cast(&x, dtype).unwrap();
        let rtol = if dtype == DType::Float32 { 1e-6 } else { 1e-14 };
        printed(&check(&case, &["specialize"], &[x], rtol))
    }

    #[test]
    fn exp_of_log_is_a_nan_switch() {
        for (outer, inner) in [
            (Exp, Log),
            (Exp, Log1p),
            (Expm1, Log),
            (Expm1, Log1p),
            (Exp, Log1mexp),
            (Expm1, Log1mexp),
            (Softplus, Log),
            (Log1mexp, Log),
            (Log1mexp, Log1mexp),
        ] {
            for dtype in [DType::Float64, DType::Float32] {
                let p = specialized(dtype, outer, inner);
                assert!(p.starts_with("Switch [id A]"), "{outer:?}({inner:?}): {p}");
            }
        }
        assert_eq!(
            specialized(DType::Float64, Exp, Log),
            "Switch [id A]\n ├─ Ge [id B]\n │  ├─ x [id C]\n │  └─ [0.] [id D]\n ├─ x [id C]\n └─ [nan] [id E]\n"
        );
    }

    #[test]
    fn other_compositions_stay() {
        for (outer, inner) in [(Exp, Sin), (Log, Exp), (Sigmoid, Log)] {
            let p = specialized(DType::Float64, outer, inner);
            assert!(!p.contains("Switch"), "{outer:?}({inner:?}): {p}");
        }
    }
}
