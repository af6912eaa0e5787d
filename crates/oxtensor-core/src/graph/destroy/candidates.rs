//! Which inputs of a node an inplace rewrite may destroy, asked before
//! trying (`inplace_candidates` and its older form `fast_inplace_check` in
//! `pytensor/graph/destroyhandler.py`). Neither finds cycles: validation
//! still has the last word.

use super::DestroyHandler;
use crate::graph::{FunctionGraph, VarId};
use rustc_hash::{FxHashMap, FxHashSet};

/// The `inputs` a new destroyer could take: not constants, not destroyed
/// already, not protected nor a view of a protected variable, and not
/// sharing memory with another of `inputs` (two inputs with one root
/// rule each other out). `protected` should hold the Supervisor's
/// variables and the graph's outputs.
pub fn inplace_candidates(
    fg: &FunctionGraph,
    dh: &DestroyHandler,
    inputs: &[VarId],
    protected: &FxHashSet<VarId>,
) -> Vec<VarId> {
    let mut roots: FxHashMap<VarId, VarId> = FxHashMap::default();
    let mut out = Vec::new();
    for &inp in inputs {
        if fg.graph().var(inp).is_constant() {
            continue;
        }
        let mut view_of_protected = false;
        let mut root = inp;
        for v in dh.views.chain(inp) {
            view_of_protected |= protected.contains(&v);
            root = v;
        }
        if let Some(&first) = roots.get(&root) {
            out.retain(|&c| c != first);
            continue;
        }
        if !view_of_protected && !dh.has_destroyers(&[inp]) {
            out.push(inp);
        }
        roots.insert(root, inp);
    }
    out
}

/// The `inputs` that are not constants, not destroyed and not protected
/// (the older, weaker check: views of protected variables pass).
pub fn fast_inplace_check(
    fg: &FunctionGraph,
    dh: &DestroyHandler,
    inputs: &[VarId],
    protected: &FxHashSet<VarId>,
) -> Vec<VarId> {
    inputs
        .iter()
        .copied()
        .filter(|&v| {
            !fg.graph().var(v).is_constant() && !dh.has_destroyers(&[v]) && !protected.contains(&v)
        })
        .collect()
}
