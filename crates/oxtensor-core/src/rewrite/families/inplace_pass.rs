//! What the inplace passes (`inplace_elemwise_opt`,
//! `inplace_subtensor_opt`) share: a graph pass that attaches a
//! `DestroyHandler`, computes the protected variables once, and offers
//! every node, in dependency order as PyTensor walks them (a destroyer
//! early in the graph leaves later readers to read the result), to its
//! own `try_node`.

use crate::compile::protected_vars;
use crate::error::Result;
use crate::graph::{DestroyHandler, FunctionGraph, NodeId, VarId};
use crate::rewrite::{Entry, GraphRewriter, RewriteDb, Role, RunContext};
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// Tries to make a node destroy an input; whether it did. It keeps the
/// protected set up to date ([`keep_protected`]).
pub(super) type TryNode = fn(&mut FunctionGraph, NodeId, &mut FxHashSet<VarId>) -> Result<bool>;

/// An inplace pass: its name and what it tries on each node.
pub(super) struct InplacePass {
    pub(super) name: &'static str,
    pub(super) try_node: TryNode,
}

/// Keeps `new`, which replaced `old`, protected if `old` was (an output).
pub(super) fn keep_protected(protected: &mut FxHashSet<VarId>, old: VarId, new: VarId) {
    if protected.contains(&old) {
        protected.insert(new);
    }
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
                changed |= (self.try_node)(fg, n, &mut protected)?;
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
