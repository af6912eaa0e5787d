//! Powers with a constant exponent. Canonicalize (`local_pow_canonicalize`):
//! `x ** 0 -> 1`, `x ** 1 -> x`, broadcast as the power was. Specialize
//! (`local_pow_specialize`): `x ** 2 -> sqr(x)`, `x ** 0.5 -> sqrt(x)`,
//! `x ** -1 -> reciprocal(x)`, `x ** -2 -> reciprocal(sqr(x))`,
//! `x ** -0.5 -> reciprocal(sqrt(x))`, each in the power's dtype.

use super::util::{constant_f64, elemwise, inputs, like, output};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{self, *};

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let canon = scalar_rw!("local_pow_canonicalize", [Pow], local_pow_canonicalize);
    register_in(db, phase::CANONICALIZE, canon, &[])?;
    let special = scalar_rw!("local_pow_specialize", [Pow], local_pow_specialize);
    register_in(db, phase::SPECIALIZE, special, &[])
}

/// `(base, exponent value)` of a power with a constant exponent.
fn constant_power(fg: &FunctionGraph, node: NodeId) -> Option<(crate::graph::VarId, f64)> {
    let [x, y] = inputs(fg, node)[..] else {
        return None;
    };
    Some((x, constant_f64(fg, y)?))
}

fn local_pow_canonicalize(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((x, p)) = constant_power(fg, node) else {
        return Ok(None);
    };
    let out = output(fg, node);
    let ins = inputs(fg, node);
    let new = if p == 0.0 {
        let dtype = fg.graph().var(out).ty.expect_tensor("a power")?.dtype;
        crate::build::scalar_constant(fg.graph_mut(), dtype, 1.0)
    } else if p == 1.0 {
        x
    } else {
        return Ok(None);
    };
    Ok(Some(Rewrite::one(like(fg, new, out, &ins)?)))
}

fn local_pow_specialize(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((x, p)) = constant_power(fg, node) else {
        return Ok(None);
    };
    let steps: &[ScalarKind] = match p {
        2.0 => &[Sqr],
        0.5 => &[Sqrt],
        -1.0 => &[Reciprocal],
        -2.0 => &[Sqr, Reciprocal],
        -0.5 => &[Sqrt, Reciprocal],
        _ => return Ok(None),
    };
    let out = output(fg, node);
    let dtype = fg.graph().var(out).ty.expect_tensor("a power")?.dtype;
    // Cast first, so `int ** -1` computes its reciprocal in the float the
    // power gave, not in integers.
    let mut new = super::util::cast_to(fg, x, dtype)?;
    for &k in steps {
        new = elemwise(fg, k, &[new])?;
    }
    let ins = inputs(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &ins)?)))
}
