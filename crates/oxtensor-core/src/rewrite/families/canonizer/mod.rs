//! PyTensor's `AlgebraicCanonizer`, once for products and once for sums:
//! a tree of `*`, `/` and `reciprocal` (`+`, `-` and `neg`) is read as a
//! numerator and a denominator list of terms ([`flatten`]), a term in both
//! cancels (same variable), constants fold into one ([`simplify`]), and the
//! tree is rebuilt with the fewest nodes its lists need ([`rebuild`]):
//! `x * y / y -> x`, `2 * x / 2 -> x`, `x / x -> fill(x, 1)`,
//! `x + y - y -> x`, `x - x -> fill(x, 0)`, `1 + x + 2 -> 3 + x`.
//!
//! Cancelling assumes finite values and equal shapes, as PyTensor does
//! (both rewriters are tagged `shape_unsafe`): `x - x` is 0 and `x / x` is
//! 1 even where `x` is inf, NaN or (for `/`) 0, where NumPy gives NaN.

mod distribute;
#[cfg(test)]
mod everyday;
mod flatten;
mod rebuild;
mod simplify;
#[cfg(test)]
mod tests;

use super::util::{dtype_of, elemwise_kind, like, output, unique_value};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::merge::same_apply;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::{NodeRewriter, Rewrite, Tracks};
use crate::scalar::ScalarKind::{self, *};
use flatten::Mode;

/// How deep a canonical form is compared with the tree it would replace.
const SAME_DEPTH: usize = 4;
use std::sync::Arc;

/// One algebra the canonizer works in: `inverse(main(num), main(denum))`.
pub(super) struct Algebra {
    name: &'static str,
    main: ScalarKind,
    inverse: ScalarKind,
    reciprocal: ScalarKind,
    /// Whether a lone denominator is written `reciprocal(d)` (`-d`) rather
    /// than `inverse(neutral, d)` (`1 / d`): PyTensor's `use_reciprocal`.
    use_reciprocal: bool,
    /// The constant `main` leaves a term unchanged with (1 or 0).
    neutral: f64,
}

/// `local_mul_canonizer`: products, quotients and reciprocals.
pub(super) const MUL: Algebra = Algebra {
    name: "local_mul_canonizer",
    main: Mul,
    inverse: TrueDiv,
    reciprocal: Reciprocal,
    use_reciprocal: false,
    neutral: 1.0,
};

/// `local_add_canonizer`: sums, differences and negations (`-x` written
/// `-1 * x` by `local_neg_to_mul` is read as a negation too).
pub(super) const ADD: Algebra = Algebra {
    name: "local_add_canonizer",
    main: Add,
    inverse: Sub,
    reciprocal: Neg,
    use_reciprocal: true,
    neutral: 0.0,
};

/// The terms a tree stands for: `inverse(main(num), main(denum))`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Terms {
    /// Numerator (summed) terms, in the tree's order.
    pub num: Vec<VarId>,
    /// Denominator (subtracted) terms, in the tree's order.
    pub denum: Vec<VarId>,
}

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    for alg in [MUL, ADD] {
        let rw: Arc<dyn NodeRewriter> = Arc::new(alg);
        register_in(db, phase::CANONICALIZE, rw, &["shape_unsafe"])?;
    }
    for p in [phase::CANONICALIZE, phase::STABILIZE] {
        let rw = scalar_rw!(
            "local_greedy_distributor",
            [Mul, TrueDiv, Reciprocal],
            distribute::local_greedy_distributor
        );
        register_in(db, p, rw, &[])?;
    }
    Ok(())
}

impl Algebra {
    fn is_mul(&self) -> bool {
        self.main == Mul
    }

    /// The canonical form of the tree rooted at `out` (whose terms, read
    /// through shared subtrees too, are `full`), or `None` when it already
    /// is canonical: simplified if anything cancels or folds, else only
    /// regrouped when that saves nodes, and then only within the nodes no
    /// other tree reads, so no work is duplicated.
    fn canonical(
        &self,
        fg: &mut FunctionGraph,
        out: VarId,
        full: &Terms,
        dtype: DType,
    ) -> Result<Option<VarId>> {
        if let Some(simple) = simplify::simplify(fg, self, full, dtype)? {
            return rebuild::build(fg, self, &simple, dtype).map(Some);
        }
        let own = flatten::flatten(fg, self, out, Mode::Private);
        let (n, d) = (own.terms.num.len(), own.terms.denum.len());
        if rebuild::nodes_needed(self, n, d) >= own.nodes {
            return Ok(None);
        }
        let plain = simplify::Canonical::plain(own.terms);
        rebuild::build(fg, self, &plain, dtype).map(Some)
    }
}

impl NodeRewriter for Algebra {
    fn name(&self) -> &str {
        self.name
    }

    fn tracks(&self) -> Tracks {
        Tracks::scalars(&[self.main, self.inverse, self.reciprocal])
    }

    fn transform(&self, fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
        let Some(kind) = elemwise_kind(fg, node) else {
            return Ok(None);
        };
        let out = output(fg, node);
        let Some(dtype) = dtype_of(fg, out) else {
            return Ok(None);
        };
        let ours = kind == self.main || kind == self.inverse || kind == self.reciprocal;
        if !ours || dtype == DType::Bool || fg.clients(out).is_empty() {
            return Ok(None);
        }
        if flatten::absorbed(fg, self, out, dtype) {
            return Ok(None);
        }
        let full = flatten::flatten(fg, self, out, Mode::Full).terms;
        let Some(new) = self.canonical(fg, out, &full, dtype)? else {
            return Ok(None);
        };
        // The canonical form may be the node itself rebuilt (a constant
        // folded back where it was): no change, before `like` wraps it.
        if same_apply(fg, new, out, SAME_DEPTH) {
            return Ok(None);
        }
        let refs = references(fg, full, node);
        Ok(Some(Rewrite::one(like(fg, new, out, &refs)?)))
    }
}

/// What a replacement may be broadcast against to keep the old shape: the
/// tree's variable terms (computed anyway), then the node's own inputs.
fn references(fg: &FunctionGraph, terms: Terms, node: NodeId) -> Vec<VarId> {
    let mut refs: Vec<VarId> = terms
        .num
        .into_iter()
        .chain(terms.denum)
        .filter(|&v| unique_value(fg, v).is_none())
        .collect();
    refs.extend_from_slice(&fg.graph().node(node).inputs);
    refs
}
