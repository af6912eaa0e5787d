//! PyTensor's `local_greedy_distributor` (canonicalize, stabilize): a
//! factor that is a sum takes in the product's other factors where that
//! saves operations, a division counting 1.5 multiplications:
//! `(a / x + b / y) * x * y -> a * y + b * x`, `(a / x - b) * x -> a - b *
//! x` (the form the gradient of softmax takes). Only sums of the product's
//! own dtype take factors in, so an integer sum never becomes a float one.

use super::flatten::{absorbed, flatten, Mode};
use super::rebuild::build;
use super::simplify::{simplify, Canonical};
use super::{Terms, ADD, MUL};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::families::util::{dtype_of, elemwise_kind, output, tensor_type};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{Mul, Reciprocal, TrueDiv};

/// What a division costs, in multiplications (PyTensor's informal 1.5).
const DIV_COST: f64 = 1.5;

/// Operations a product of these terms costs, as PyTensor counts them.
fn cost(t: &Terms) -> f64 {
    t.num.len() as f64 + DIV_COST * t.denum.len() as f64
}

pub(super) fn local_greedy_distributor(
    fg: &mut FunctionGraph,
    node: NodeId,
) -> Result<Option<Rewrite>> {
    let out = output(fg, node);
    let kind = elemwise_kind(fg, node);
    let Some(dtype) = dtype_of(fg, out) else {
        return Ok(None);
    };
    let ours = matches!(kind, Some(Mul | TrueDiv | Reciprocal));
    if !ours || dtype == DType::Bool || absorbed(fg, &MUL, out, dtype) {
        return Ok(None);
    }
    let Terms { mut num, mut denum } = flatten(fg, &MUL, out, Mode::Full).terms;
    if num.len() == 1 && denum.is_empty() {
        return Ok(None);
    }
    let (num_changed, mut new_num) = attempt_each(fg, &mut num, &mut denum, dtype)?;
    let (denum_changed, mut new_denum) = attempt_each(fg, &mut denum, &mut num, dtype)?;
    if !(num_changed || denum_changed) {
        return Ok(None);
    }
    new_num.append(&mut num);
    new_denum.append(&mut denum);
    let new = build(
        fg,
        &MUL,
        &Canonical::plain(Terms {
            num: new_num,
            denum: new_denum,
        }),
        dtype,
    )?;
    let same = match (tensor_type(fg, new), tensor_type(fg, out)) {
        (Some(a), Some(b)) => a.in_same_class(b),
        _ => false,
    };
    Ok(same.then(|| Rewrite::one(new)))
}

/// Distributes what it can of `num` (multiplied in) and `denum` (divided
/// in) into `factor` when it is a sum; returns whether it did, and the
/// factor after.
/// [`attempt`] on each factor of `factors` in turn, each taken out of it
/// first: the results, and whether any changed.
fn attempt_each(
    fg: &mut FunctionGraph,
    factors: &mut Vec<VarId>,
    others: &mut Vec<VarId>,
    dtype: DType,
) -> Result<(bool, Vec<VarId>)> {
    let mut changed = false;
    let mut done = Vec::new();
    while !factors.is_empty() {
        let factor = factors.remove(0);
        let (ch, f) = attempt(fg, factor, factors, others, dtype)?;
        changed |= ch;
        done.push(f);
    }
    Ok((changed, done))
}

fn attempt(
    fg: &mut FunctionGraph,
    factor: VarId,
    num: &mut Vec<VarId>,
    denum: &mut Vec<VarId>,
    dtype: DType,
) -> Result<(bool, VarId)> {
    let sum = flatten(fg, &ADD, factor, Mode::Full).terms;
    let own_dtype = dtype_of(fg, factor) == Some(dtype);
    if !own_dtype || (sum.num.len() == 1 && sum.denum.is_empty()) {
        return Ok((false, factor));
    }
    let products = |fg: &FunctionGraph, ts: &[VarId]| -> Vec<Terms> {
        ts.iter()
            .map(|&t| flatten(fg, &MUL, t, Mode::Full).terms)
            .collect()
    };
    let mut pos = products(fg, &sum.num);
    let mut neg = products(fg, &sum.denum);
    let mut changed = false;
    for (list, inverted) in [(&mut *num, false), (&mut *denum, true)] {
        let mut i = 0;
        while i < list.len() {
            let v = [list[i]];
            let (n, d): (&[VarId], &[VarId]) = if inverted { (&[], &v) } else { (&v, &[]) };
            match distribute(fg, &pos, &neg, n, d, dtype)? {
                Some((p, q)) => {
                    (pos, neg) = (p, q);
                    list.remove(i);
                    changed = true;
                }
                None => i += 1,
            }
        }
    }
    if !changed {
        return Ok((false, factor));
    }
    let build_all = |fg: &mut FunctionGraph, ps: Vec<Terms>| -> Result<Vec<VarId>> {
        ps.into_iter()
            .map(|p| build(fg, &MUL, &Canonical::plain(p), dtype))
            .collect()
    };
    let (num_terms, denum_terms) = (build_all(fg, pos)?, build_all(fg, neg)?);
    let sum = Canonical::plain(Terms {
        num: num_terms,
        denum: denum_terms,
    });
    Ok((true, build(fg, &ADD, &sum, dtype)?))
}

/// The sum's products with `num` and `denum` taken in (simplified), when
/// that saves operations (PyTensor's `distribute_greedy`).
fn distribute(
    fg: &mut FunctionGraph,
    pos: &[Terms],
    neg: &[Terms],
    num: &[VarId],
    denum: &[VarId],
    dtype: DType,
) -> Result<Option<(Vec<Terms>, Vec<Terms>)>> {
    let mut score = num.len() as f64 + DIV_COST * denum.len() as f64;
    let mut take_in = |fg: &mut FunctionGraph, ps: &[Terms]| -> Result<Vec<Terms>> {
        let mut out = Vec::with_capacity(ps.len());
        for p in ps {
            let joined = Terms {
                num: [&p.num[..], num].concat(),
                denum: [&p.denum[..], denum].concat(),
            };
            let new = match simplify(fg, &MUL, &joined, dtype)? {
                Some(c) => c.into_terms(fg, dtype),
                None => joined,
            };
            score += cost(p) - cost(&new);
            out.push(new);
        }
        Ok(out)
    };
    let new_pos = take_in(fg, pos)?;
    let new_neg = take_in(fg, neg)?;
    Ok((score > 0.0).then_some((new_pos, new_neg)))
}

#[cfg(test)]
mod tests {
    use crate::build;

    use crate::rewrite::families::testing::{assert_unchanged, check_prints, vectors, Case};
    use crate::tensor::Tensor;

    fn args(n: usize) -> Vec<Tensor> {
        (0..n)
            .map(|i| {
                let v = (0..3).map(|j| 0.5 + (i * 3 + j) as f64 * 0.37).collect();
                Tensor::from_vec(vec![3], v).unwrap()
            })
            .collect()
    }

    #[test]
    fn factors_go_into_a_sum_where_they_cancel() {
        let (mut g, v) = vectors(["a", "b", "x", "y"]);
        let [a, b, x, y] = v;
        let ax = build::true_div(&mut g, a, x).unwrap();
        let by = build::true_div(&mut g, b, y).unwrap();
        let s = build::add(&mut g, ax, by).unwrap();
        let sx = build::mul(&mut g, s, x).unwrap();
        let two_sided = build::mul(&mut g, sx, y).unwrap();
        let d = build::sub(&mut g, ax, b).unwrap();
        let softmax_like = build::mul(&mut g, d, x).unwrap();
        let case = Case::new(g, v.to_vec(), vec![two_sided, softmax_like]);
        check_prints(&case, &["canonicalize"], &args(4), 1e-14, "Add [id A]\n ├─ Mul [id B]\n │  ├─ a [id C]\n │  └─ y [id D]\n └─ Mul [id E]\n    ├─ b [id F]\n    └─ x [id G]\n\
             Sub [id H]\n ├─ a [id C]\n └─ Mul [id E]\n    └─ ···\n");
    }

    #[test]
    fn a_sum_times_a_factor_is_not_expanded() {
        let (mut g, v) = vectors(["a", "b", "x"]);
        let s = build::add(&mut g, v[0], v[1]).unwrap();
        let p = build::mul(&mut g, s, v[2]).unwrap();
        let case = Case::new(g, v.to_vec(), vec![p]);
        assert_unchanged(&case, &["canonicalize"]);
    }
}
