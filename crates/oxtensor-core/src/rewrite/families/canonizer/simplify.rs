//! Simplifying a tree's terms (PyTensor's `simplify_factors`,
//! `simplify_constants` and the `X_over_absX` simplifier): a variable in
//! both lists cancels, `x / abs(x)` becomes `sign(x)`, and the constants
//! fold into one, computed in the output dtype, that goes first in the
//! numerator (or disappears when it is the neutral element).

use super::{Algebra, Terms};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, VarId};
use crate::kernels::elemwise::cast::{cast, cast_constant};
use crate::rewrite::families::util::{
    constant_in, dtype_of, elemwise, fold, inputs, produced_by, tensor_is, unique_value,
};
use crate::scalar::ScalarKind::{Abs, Sign};
use crate::tensor::Tensor;
use std::collections::HashMap;

/// Terms in canonical form: `inverse(main(constant, num), main(denum))`.
#[derive(Debug)]
pub(super) struct Canonical {
    /// The folded constant (`None`: the neutral element, left out).
    pub constant: Option<Tensor>,
    /// Variable numerator terms.
    pub num: Vec<VarId>,
    /// Variable denominator terms.
    pub denum: Vec<VarId>,
}

impl Canonical {
    /// The terms as they are, constants included among them.
    pub fn plain(terms: Terms) -> Self {
        Canonical {
            constant: None,
            num: terms.num,
            denum: terms.denum,
        }
    }

    /// Back to terms, the constant (in `dtype`) a new variable in front.
    pub fn into_terms(self, fg: &mut FunctionGraph, dtype: DType) -> Terms {
        let mut num = Vec::with_capacity(self.num.len() + 1);
        if let Some(ct) = &self.constant {
            num.push(constant_in(fg, ct, dtype));
        }
        num.extend(self.num);
        Terms {
            num,
            denum: self.denum,
        }
    }
}

/// The simplified terms, or `None` when nothing simplifies.
pub(super) fn simplify(
    fg: &mut FunctionGraph,
    alg: &Algebra,
    terms: &Terms,
    dtype: DType,
) -> Result<Option<Canonical>> {
    let (mut num, mut denum) = (terms.num.clone(), terms.denum.clone());
    let mut changed = cancel(&mut num, &mut denum);
    if alg.is_mul() {
        changed |= over_abs(fg, &mut num, &mut denum)?;
    }
    let (num_ct, num_rest) = split_constants(fg, &num);
    let (denum_ct, denum_rest) = split_constants(fg, &denum);
    let unchanged = |num, denum| Canonical {
        constant: None,
        num,
        denum,
    };
    let no_constants = num_ct.is_empty() && denum_ct.is_empty();
    let lone_denominator = num_rest.is_empty() && !denum_rest.is_empty();
    if no_constants || already_folded(alg, &num_ct, &denum_ct, dtype, lone_denominator) {
        return Ok(changed.then(|| unchanged(num, denum)));
    }
    let ct = fold_constants(alg, &num_ct, &denum_ct, dtype)?;
    Ok(Some(Canonical {
        constant: ct,
        num: num_rest,
        denum: denum_rest,
    }))
}

/// Removes each variable found in both lists (once per pair of
/// occurrences, the first ones); returns whether any was.
fn cancel(num: &mut Vec<VarId>, denum: &mut Vec<VarId>) -> bool {
    if num.is_empty() || denum.is_empty() {
        return false;
    }
    let mut left: HashMap<VarId, usize> = HashMap::new();
    denum.iter().for_each(|&v| *left.entry(v).or_default() += 1);
    let mut dropped: HashMap<VarId, usize> = HashMap::new();
    num.retain(|v| match left.get_mut(v) {
        Some(n) if *n > 0 => {
            *n -= 1;
            *dropped.entry(*v).or_default() += 1;
            false
        }
        _ => true,
    });
    if dropped.is_empty() {
        return false;
    }
    denum.retain(|v| match dropped.get_mut(v) {
        Some(n) if *n > 0 => {
            *n -= 1;
            false
        }
        _ => true,
    });
    true
}

/// `x / abs(x) -> sign(x)` for real `x` (so `0 / abs(0)` gives 0, not NaN,
/// as in PyTensor).
fn over_abs(fg: &mut FunctionGraph, num: &mut Vec<VarId>, denum: &mut Vec<VarId>) -> Result<bool> {
    let mut changed = false;
    let mut i = 0;
    while i < denum.len() {
        let x = produced_by(fg, denum[i], Abs).map(|a| inputs(fg, a)[0]);
        let at = x.and_then(|x| num.iter().position(|&n| n == x));
        match (x, at) {
            (Some(x), Some(j)) if !is_complex(fg, x) => {
                denum.remove(i);
                num.remove(j);
                num.push(elemwise(fg, Sign, &[x])?);
                changed = true;
            }
            _ => i += 1,
        }
    }
    Ok(changed)
}

fn is_complex(fg: &FunctionGraph, v: VarId) -> bool {
    dtype_of(fg, v).is_some_and(|d| d.is_complex())
}

/// The constants' values, and the other terms.
fn split_constants(fg: &FunctionGraph, terms: &[VarId]) -> (Vec<Tensor>, Vec<VarId>) {
    let mut consts = Vec::new();
    let mut rest = Vec::new();
    for &v in terms {
        match unique_value(fg, v) {
            Some(t) => consts.push(t),
            None => rest.push(v),
        }
    }
    (consts, rest)
}

/// `inverse(main(num), main(denum))` of the constants in `dtype`, or
/// `None` when it is the neutral element.
fn fold_constants(
    alg: &Algebra,
    num: &[Tensor],
    denum: &[Tensor],
    dtype: DType,
) -> Result<Option<Tensor>> {
    let neutral = cast(&Tensor::scalar(alg.neutral), dtype)?;
    let combine = |ts: &[Tensor]| -> Result<Tensor> {
        match ts {
            [] => Ok(neutral.clone()),
            [first, rest @ ..] => rest.iter().try_fold(cast(first, dtype)?, |acc, t| {
                fold(alg.main, &[&acc, &cast(t, dtype)?], dtype)
            }),
        }
    };
    let value = if denum.is_empty() {
        combine(num)?
    } else {
        fold(alg.inverse, &[&combine(num)?, &combine(denum)?], dtype)?
    };
    Ok((!tensor_is(&value, alg.neutral)).then_some(value))
}

/// Whether the constants are already folded: one, in the numerator, not
/// the neutral element (PyTensor's "important trick": rebuilding would give
/// the same tree, forever). PyTensor also wants it in front; here it may
/// stay where it is, which spares a rewrite of every `x * 2` for an order
/// no later rewrite needs.
fn already_folded(
    alg: &Algebra,
    num: &[Tensor],
    denum: &[Tensor],
    dtype: DType,
    lone_denominator: bool,
) -> bool {
    match (num, denum) {
        ([one], []) => {
            let neutral = tensor_is(&cast_constant(one, dtype), alg.neutral);
            // `1 / d` is how a lone denominator is written without a
            // reciprocal: its neutral numerator is already where the
            // canonical form puts it.
            !neutral || (lone_denominator && !alg.use_reciprocal)
        }
        _ => false,
    }
}
