//! Applying one node rewriter to one node, as PyTensor's `process_node`:
//! ask it, check what it returned (one replacement per output, of a type
//! that can stand for the old one), replace and validate in one
//! transaction, and hand any failure to the driver's callback or the
//! run's policy. A failed or refused proposal leaves the graph as it was.

use super::failure::{unproposed, FailureCallback, FailureSite};
use super::merge::same_computation;
use super::profile::RewriterStats;
use super::rewriter::{NodeRewriter, Rewrite};
use super::run::RunContext;
use crate::error::{Error, Result};
use crate::graph::{CycleCheck, FunctionGraph, NodeId, VarId};
use crate::ops::specify_shape::SpecifyShape;
use crate::types::{TensorType, Type};
use std::sync::Arc;
use std::time::Instant;

/// What asking a rewriter about a node did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It proposed nothing (or only what was already there).
    Unchanged,
    /// Its proposal is now in the graph.
    Applied,
    /// It raised, or its proposal was refused; the graph is unchanged.
    Failed,
}

/// Asks `rw` about `node` and applies its proposal; `Err` only when the
/// run's policy is to raise.
pub fn apply_node_rewriter(
    fg: &mut FunctionGraph,
    node: NodeId,
    rw: &dyn NodeRewriter,
    stats: &mut RewriterStats,
    run: &mut RunContext,
) -> Result<Outcome> {
    apply_node_rewriter_with(fg, node, rw, stats, run, None)
}

/// [`apply_node_rewriter`] for a driver with a failure callback: a failure
/// goes to `on_failure` when there is one, else to the run's policy.
pub fn apply_node_rewriter_with(
    fg: &mut FunctionGraph,
    node: NodeId,
    rw: &dyn NodeRewriter,
    stats: &mut RewriterStats,
    run: &mut RunContext,
    on_failure: Option<&dyn FailureCallback>,
) -> Result<Outcome> {
    let start = Instant::now();
    stats.calls += 1;
    let mut proposed = Vec::new();
    let result = propose(fg, node, rw).and_then(|pairs| match pairs {
        None => Ok(Outcome::Unchanged),
        Some((pairs, remove)) => {
            proposed = pairs.iter().map(|&(o, n)| (o, Some(n))).collect();
            replace(fg, &pairs, &remove, rw.name())
        }
    });
    stats.time += start.elapsed();
    match result {
        Ok(Outcome::Applied) => {
            stats.applied += 1;
            Ok(Outcome::Applied)
        }
        Ok(other) => Ok(other),
        Err(err) => {
            stats.failed += 1;
            if let Some(cb) = on_failure {
                if proposed.is_empty() {
                    proposed = unproposed(fg, node);
                }
                let site = FailureSite {
                    node,
                    rewriter: rw,
                    pairs: proposed,
                };
                cb.on_failure(fg, err, &site)?;
                return Ok(Outcome::Failed);
            }
            // The node may have left the graph; the arena still describes it.
            let at = fg.graph().describe_node(node);
            run.failure(err.at_rewrite(rw.name(), at))?;
            Ok(Outcome::Failed)
        }
    }
}

type Proposal = (Vec<(VarId, VarId)>, Vec<VarId>);

/// How many nodes deep a proposal is compared with what it replaces: a
/// rebuilt copy of the same few nodes is no change.
const SAME_DEPTH: usize = 4;

/// The rewriter's proposal as checked `(old, new)` pairs; `None` if it has
/// nothing to change.
fn propose(
    fg: &mut FunctionGraph,
    node: NodeId,
    rw: &dyn NodeRewriter,
) -> Result<Option<Proposal>> {
    let Some(rewrite) = rw.transform(fg, node)? else {
        return Ok(None);
    };
    let (pairs, remove) = match rewrite {
        Rewrite::Outputs(news) => (output_pairs(fg, node, news)?, Vec::new()),
        Rewrite::Pairs { pairs, remove } => (pairs, remove),
    };
    let mut checked = Vec::with_capacity(pairs.len());
    for (old, new) in pairs {
        fg.graph().try_var(new)?;
        if !same_computation(fg, old, new, SAME_DEPTH) {
            checked.push((old, conform(fg, old, new)?));
        }
    }
    if checked.is_empty() && remove.is_empty() {
        return Ok(None);
    }
    Ok(Some((checked, remove)))
}

/// One pair per output the rewriter replaced; it must give one entry per output.
fn output_pairs(
    fg: &FunctionGraph,
    node: NodeId,
    news: Vec<Option<VarId>>,
) -> Result<Vec<(VarId, VarId)>> {
    let outs = &fg.graph().node(node).outputs;
    if news.len() != outs.len() {
        return Err(Error::Value(format!(
            "the rewriter returned {} replacements for a node with {} outputs",
            news.len(),
            outs.len()
        )));
    }
    Ok(outs
        .iter()
        .zip(news)
        .filter_map(|(&o, n)| Some((o, n?)))
        .collect())
}

/// `new`, fit to stand for `old`: its type must be `old`'s or more specific.
/// A tensor of the same dtype and rank whose static shape says less gets a
/// `SpecifyShape` (PyTensor's `filter_variable`); anything else is refused.
fn conform(fg: &mut FunctionGraph, old: VarId, new: VarId) -> Result<VarId> {
    let (t_old, t_new) = (&fg.graph().var(old).ty, &fg.graph().var(new).ty);
    if t_old.is_super(t_new) {
        return Ok(new);
    }
    if let (Type::Tensor(a), Type::Tensor(b)) = (t_old, t_new) {
        if a.in_same_class(b) || (a.dtype == b.dtype && compatible(a, b)) {
            let a = a.clone();
            return specify_shape(fg, new, &a);
        }
    }
    Err(Error::Type(format!(
        "the rewriter returned {} of type {t_new} to replace {} of type {t_old}",
        fg.graph().describe_var(new),
        fg.graph().describe_var(old)
    )))
}

/// Same rank, and no axis where both static lengths are known and differ.
fn compatible(a: &TensorType, b: &TensorType) -> bool {
    a.ndim() == b.ndim()
        && a.shape.iter().zip(&b.shape).all(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        })
}

/// `SpecifyShape(x, shape of ty)`: unknown axes are `-1`.
fn specify_shape(fg: &mut FunctionGraph, x: VarId, ty: &TensorType) -> Result<VarId> {
    let g = fg.graph_mut();
    let mut inputs = vec![x];
    for dim in &ty.shape {
        let n = dim.map_or(-1, |n| n as i64);
        inputs.push(crate::ops::infer_shape::dim_constant(g, n));
    }
    crate::ops::known::apply_out(g, Arc::new(SpecifyShape), &inputs)
}

/// Replaces and validates as one transaction; a refusal reverts it.
fn replace(
    fg: &mut FunctionGraph,
    pairs: &[(VarId, VarId)],
    remove: &[VarId],
    reason: &str,
) -> Result<Outcome> {
    let chk = fg.checkpoint();
    let before = fg.set_cycle_check(CycleCheck::Shallow);
    let result = fg.replace_all_validate(pairs, reason);
    fg.set_cycle_check(before);
    result?;
    if let Some(&kept) = remove.iter().find(|&&v| fg.has_var(v)) {
        let name = fg.graph().describe_var(kept);
        fg.revert(chk)?;
        return Err(Error::Value(format!(
            "the replacement did not remove {name}, which it said it would"
        )));
    }
    Ok(Outcome::Applied)
}
