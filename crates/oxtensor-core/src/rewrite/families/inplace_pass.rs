//! What the inplace passes (`inplace_elemwise_opt`,
//! `inplace_subtensor_opt`, `inplace_cumop_sort_opt`) share: a graph pass
//! that attaches a `DestroyHandler`, computes the protected variables
//! once, and offers every node, in dependency order as PyTensor walks them
//! (a destroyer early in the graph leaves later readers to read the
//! result), to what it [`Offer`]s: its own try, or the node's inplace
//! version destroying input 0; and the one validated replacement each
//! candidate costs ([`replace_validated`]).

use crate::compile::protected_vars;
use crate::error::{Error, Result};
use crate::graph::destroy::inplace_candidates;
use crate::graph::{CycleCheck, DestroyHandler, FunctionGraph, NodeId, VarId};
use crate::ops::OpRef;
use crate::rewrite::{Entry, GraphRewriter, RewriteDb, Role, RunContext};
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// Tries to make a node destroy an input; whether it did. It keeps the
/// protected set up to date ([`keep_protected`]).
pub(super) type TryNode = fn(&mut FunctionGraph, NodeId, &mut FxHashSet<VarId>) -> Result<bool>;

/// What an inplace pass offers each node.
pub(super) enum Offer {
    /// Its own try.
    Node(TryNode),
    /// The node's inplace version, destroying its input 0, if it has one
    /// ([`try_destroying_first_input`]).
    FirstInput(fn(&FunctionGraph, NodeId) -> Option<OpRef>),
}

/// An inplace pass: its name and what it tries on each node.
pub(super) struct InplacePass {
    pub(super) name: &'static str,
    pub(super) offer: Offer,
}

impl InplacePass {
    /// Tries to make `n` destroy an input; whether it did.
    fn try_node(
        &self,
        fg: &mut FunctionGraph,
        n: NodeId,
        protected: &mut FxHashSet<VarId>,
    ) -> Result<bool> {
        match self.offer {
            Offer::Node(f) => f(fg, n, protected),
            Offer::FirstInput(version) => match version(fg, n) {
                Some(op) => try_destroying_first_input(fg, n, op, protected, self.name),
                None => Ok(false),
            },
        }
    }
}

/// `Some(op)` with `inplace: true` when `$any` (an op's `as_any`) is a
/// pure `$ty`: the inplace version an `Offer::FirstInput` pass offers.
macro_rules! inplace_copy {
    ($any:expr, $ty:ident) => {
        $any.downcast_ref::<$ty>().filter(|o| !o.inplace).map(|o| {
            std::sync::Arc::new($ty {
                inplace: true,
                ..o.clone()
            }) as crate::ops::OpRef
        })
    };
}
pub(super) use inplace_copy;

/// Keeps `new`, which replaced `old`, protected if `old` was (an output).
fn keep_protected(protected: &mut FxHashSet<VarId>, old: VarId, new: VarId) {
    if protected.contains(&old) {
        protected.insert(new);
    }
}

/// Replaces `n` by a node of `op` (its inplace version) on the same
/// inputs, every output by the new node's, if the `DestroyHandler` and the
/// `Supervisor` accept it: one validation. The new node if they did; a
/// refusal leaves the graph as it was.
pub(super) fn replace_validated(
    fg: &mut FunctionGraph,
    n: NodeId,
    op: OpRef,
    protected: &mut FxHashSet<VarId>,
    reason: &str,
) -> Result<Option<NodeId>> {
    let (inputs, old) = {
        let node = fg.graph().node(n);
        (node.inputs.clone(), node.outputs.clone())
    };
    let new_node = fg.graph_mut().apply(op, &inputs)?;
    let new = fg.graph().node(new_node).outputs.clone();
    let pairs: Vec<(VarId, VarId)> = old.iter().copied().zip(new.iter().copied()).collect();
    // The replacement reads what the node read: no new data edge can close
    // a cycle, and the handler orders (and checks) the new ones.
    let before = fg.set_cycle_check(CycleCheck::Shallow);
    let result = fg.replace_all_validate(&pairs, reason);
    fg.set_cycle_check(before);
    match result {
        Ok(()) => {
            for (o, v) in pairs {
                keep_protected(protected, o, v);
            }
            Ok(Some(new_node))
        }
        Err(Error::Inconsistency(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Makes `n` destroy its input 0 with `op` when that input is a candidate
/// ([`inplace_candidates`]: not protected, not destroyed already, no alias
/// among the other inputs) and the change validates; whether it did.
fn try_destroying_first_input(
    fg: &mut FunctionGraph,
    n: NodeId,
    op: OpRef,
    protected: &mut FxHashSet<VarId>,
    reason: &str,
) -> Result<bool> {
    let Some(dh) = fg.feature::<DestroyHandler>() else {
        return Ok(false);
    };
    let first = fg.graph().node(n).inputs[..1].to_vec();
    if inplace_candidates(fg, dh, &first, protected).is_empty() {
        return Ok(false);
    }
    Ok(replace_validated(fg, n, op, protected, reason)?.is_some())
}

impl GraphRewriter for InplacePass {
    fn name(&self) -> &str {
        self.name
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        fg.attach_feature(Box::new(DestroyHandler::new()))
    }

    fn apply(&self, fg: &mut FunctionGraph, _run: &mut RunContext) -> Result<bool> {
        if fg.feature::<DestroyHandler>().is_none() {
            self.add_requirements(fg)?;
        }
        // Computed once: a replaced output's replacement is an output too,
        // so `keep_protected` adds it as it goes.
        let mut protected = protected_vars(fg);
        let mut changed = false;
        for n in fg.toposort()? {
            if fg.has_node(n) {
                changed |= self.try_node(fg, n, &mut protected)?;
            }
        }
        Ok(changed)
    }
}

/// Registers `pass` at `position` in `fast_run` (never in `fast_compile`),
/// tagged `inplace` (which `o3` and `excluding("inplace")` leave out).
pub(super) fn register(db: &RewriteDb, pass: InplacePass, position: f64) -> Result<()> {
    let name = pass.name;
    db.register(
        name,
        Entry::Graph(Arc::new(pass)),
        &["fast_run", "inplace", name],
        position,
        Role::Global,
    )
}

/// Registers (as [`register`]) the pass `name` that offers each node the
/// inplace `version` of its op, destroying its first input.
pub(super) fn register_first_input(
    db: &RewriteDb,
    name: &'static str,
    version: fn(&FunctionGraph, NodeId) -> Option<OpRef>,
    position: f64,
) -> Result<()> {
    let offer = Offer::FirstInput(version);
    register(db, InplacePass { name, offer }, position)
}
