//! Cheaper forms of arithmetic (specialize), as PyTensor's
//! `tensor/rewriting/math.py`: `local_mul_specialize` (constant factors 1
//! and -1 and negated factors folded away: `mul(-1, x) -> neg(x)`,
//! `mul(1, x, y) -> x * y`, `mul(-x, -y) -> x * y`; an all-constant product
//! becomes a fill of ±1; a zero factor a fill of 0, for integer and bool
//! products only, since `0 * inf` is NaN), `local_mul_to_sqr`
//! (`x * x -> sqr(x)`), `local_add_neg_to_sub` (`-x + y -> y - x`),
//! `local_add_remove_zeros` (`x + 0 -> x`) and `local_div_to_reciprocal`
//! (`1 / x -> reciprocal(x)`). Each keeps the dtype the node computed in
//! (an input that forced an upcast and is dropped is replaced by casts).

use super::util::{
    computed_in, constant_f64, dtype_of, elemwise, inputs, is_constant, like, output, produced_by,
};
use crate::build;
use crate::dtype::{DType, Kind};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{self, *};

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let specialize = [
        scalar_rw!("local_mul_specialize", [Mul], local_mul_specialize),
        scalar_rw!("local_mul_to_sqr", [Mul], local_mul_to_sqr),
        scalar_rw!("local_add_neg_to_sub", [Add], local_add_neg_to_sub),
        scalar_rw!("local_add_remove_zeros", [Add], local_add_remove_zeros),
        scalar_rw!(
            "local_div_to_reciprocal",
            [TrueDiv],
            local_div_to_reciprocal
        ),
    ];
    for rw in specialize {
        register_in(db, phase::SPECIALIZE, rw, &[])?;
    }
    Ok(())
}

/// A fill of `value` standing for `node`'s output (its dtype and shape).
fn filled(fg: &mut FunctionGraph, node: NodeId, value: f64) -> Result<Option<Rewrite>> {
    let out = output(fg, node);
    let Some(dtype) = dtype_of(fg, out) else {
        return Ok(None);
    };
    let c = build::scalar_constant(fg.graph_mut(), dtype, value);
    let ins = inputs(fg, node);
    Ok(Some(Rewrite::one(like(fg, c, out, &ins)?)))
}

/// `kind(vars)` computed in `node`'s output dtype, standing for its output.
fn rebuilt(
    fg: &mut FunctionGraph,
    node: NodeId,
    kind: ScalarKind,
    vars: &[VarId],
) -> Result<Option<Rewrite>> {
    let out = output(fg, node);
    let Some(dtype) = dtype_of(fg, out) else {
        return Ok(None);
    };
    let vars = computed_in(fg, vars, dtype)?;
    let new = match (kind, vars.as_slice()) {
        (Add | Mul, [one]) => *one,
        _ => elemwise(fg, kind, &vars)?,
    };
    let ins = inputs(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &ins)?)))
}

fn local_mul_specialize(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let out = output(fg, node);
    let Some(dtype) = dtype_of(fg, out) else {
        return Ok(None);
    };
    let (mut negative, mut neg_nodes, mut constants) = (false, 0, 0);
    let mut rest = Vec::with_capacity(ins.len());
    for &i in &ins {
        let mut v = i;
        while let Some(n) = produced_by(fg, v, Neg) {
            (negative, neg_nodes, v) = (!negative, neg_nodes + 1, inputs(fg, n)[0]);
        }
        match constant_f64(fg, v) {
            Some(1.0) => constants += 1,
            Some(-1.0) => (negative, constants) = (!negative, constants + 1),
            // 0 * inf and 0 * NaN are NaN: only discrete products are 0.
            Some(c) if c == 0.0 && dtype.is_discrete() => return filled(fg, node, 0.0),
            _ => rest.push(v),
        }
    }
    // Negation has no unsigned or bool form (nor a -1 constant to keep).
    let unsigned = matches!(dtype.kind(), Kind::UInt | Kind::Bool);
    if rest == ins || (negative && unsigned) {
        return Ok(None);
    }
    match rest.as_slice() {
        [] => filled(fg, node, if negative { -1.0 } else { 1.0 }),
        [_] if negative => rebuilt(fg, node, Neg, &rest),
        // `mul(-1, x, y)` is this rewrite's own answer to `mul(-x, y)`.
        _ if negative && neg_nodes == 0 && constants == 1 => Ok(None),
        _ if negative => {
            let m1 = build::scalar_constant(fg.graph_mut(), dtype, -1.0);
            let all: Vec<VarId> = std::iter::once(m1).chain(rest).collect();
            rebuilt(fg, node, Mul, &all)
        }
        _ => rebuilt(fg, node, Mul, &rest),
    }
}

fn local_mul_to_sqr(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [a, b] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    // A bool product is `and`, which has no `sqr` kernel to match.
    if a != b || dtype_of(fg, a) == Some(DType::Bool) {
        return Ok(None);
    }
    rebuilt(fg, node, Sqr, &[a])
}

fn local_add_neg_to_sub(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [a, b] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    for (first, second) in [(a, b), (b, a)] {
        if let Some(n) = produced_by(fg, second, Neg) {
            let x = inputs(fg, n)[0];
            return rebuilt(fg, node, Sub, &[first, x]);
        }
    }
    Ok(None)
}

fn local_add_remove_zeros(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let rest: Vec<VarId> = ins
        .iter()
        .copied()
        .filter(|&v| !is_constant(fg, v, 0.0))
        .collect();
    match rest.len() {
        n if n == ins.len() => Ok(None),
        0 => filled(fg, node, 0.0),
        _ => rebuilt(fg, node, Add, &rest),
    }
}

fn local_div_to_reciprocal(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [one, x] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    if !is_constant(fg, one, 1.0) {
        return Ok(None);
    }
    // `x` is cast to the quotient's dtype: `reciprocal` of an integer would
    // compute in its own float dtype (float32 for int8), not the quotient's.
    let out = output(fg, node);
    let Some(dtype) = dtype_of(fg, out) else {
        return Ok(None);
    };
    let x = super::util::cast_to(fg, x, dtype)?;
    let new = elemwise(fg, Reciprocal, &[x])?;
    Ok(Some(Rewrite::one(like(fg, new, out, &[one, x])?)))
}

#[cfg(test)]
#[path = "specialize_arith_tests.rs"]
mod tests;
