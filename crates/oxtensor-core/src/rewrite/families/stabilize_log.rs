//! Stable forms of logarithms and exponentials near zero (stabilize):
//! `log(1 + x) -> log1p(x)` (`local_log1p`, any number of other terms in
//! the sum) and `exp(x) - 1 -> expm1(x)` (`local_expm1`; also in the form
//! the sum canonizer gives it, `-1 + exp(x)`, as PyTensor's does).

use super::util::{elemwise, inputs, is_constant, like, output, produced_by};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::*;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let log1p = scalar_rw!("local_log1p", [Log], local_log1p);
    register_in(db, phase::STABILIZE, log1p, &["stable"])?;
    let expm1 = scalar_rw!("local_expm1", [Sub, Add], local_expm1);
    register_in(db, phase::STABILIZE, expm1, &["stable"])
}

/// The one input of `node` (a `log`) when an `Add` produces it, and that
/// sum's terms: `x` and `[a, b]` for `log(x)` with `x = a + b`.
pub(super) fn log_of_sum(fg: &FunctionGraph, node: NodeId) -> Option<(VarId, Vec<VarId>)> {
    let [arg] = inputs(fg, node)[..] else {
        return None;
    };
    let sum = produced_by(fg, arg, Add)?;
    Some((arg, inputs(fg, sum)))
}

fn local_log1p(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((_, terms)) = log_of_sum(fg, node) else {
        return Ok(None);
    };
    let Some(one) = terms.iter().position(|&t| is_constant(fg, t, 1.0)) else {
        return Ok(None);
    };
    let rest: Vec<VarId> = terms
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != one)
        .map(|(_, &t)| t)
        .collect();
    let x = match rest.as_slice() {
        [] => return Ok(None),
        [only] => *only,
        many => elemwise(fg, Add, many)?,
    };
    let out = output(fg, node);
    let new = elemwise(fg, Log1p, &[x])?;
    Ok(Some(Rewrite::one(like(fg, new, out, &terms)?)))
}

fn local_expm1(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [a, b] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let (a, b) = match super::util::elemwise_kind(fg, node) {
        Some(Sub) if is_constant(fg, b, 1.0) => (a, b),
        Some(Add) if is_constant(fg, b, -1.0) => (a, b),
        Some(Add) if is_constant(fg, a, -1.0) => (b, a),
        _ => return Ok(None),
    };
    let Some(e) = produced_by(fg, a, Exp) else {
        return Ok(None);
    };
    let x = inputs(fg, e)[0];
    let out = output(fg, node);
    let new = elemwise(fg, Expm1, &[x])?;
    Ok(Some(Rewrite::one(like(fg, new, out, &[a, b])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, Case};
    use crate::build;

    use crate::graph::testing::x_and_constant;
    use crate::tensor::Tensor;

    #[test]
    fn log_of_one_plus_is_log1p_and_exp_minus_one_is_expm1() {
        let (mut g, x, one) = x_and_constant(1.0);
        let s = build::add(&mut g, one, x).unwrap();
        let l = build::log(&mut g, s).unwrap();
        let e = build::exp(&mut g, x).unwrap();
        let m = build::sub(&mut g, e, one).unwrap();
        let case = Case::new(g, vec![x], vec![l, m]);
        let args = [Tensor::from_vec(vec![3], vec![2.0, 0.5, -0.25]).unwrap()];
        check_prints(
            &case,
            &["canonicalize", "stabilize"],
            &args,
            1e-15,
            "Log1p [id A]\n └─ x [id B]\nExpm1 [id C]\n └─ x [id B]\n",
        );
    }
}
