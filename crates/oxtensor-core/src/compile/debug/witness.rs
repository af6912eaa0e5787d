//! The graph that computes both sides of every replacement a compilation
//! made (see `replacements.rs`), for DebugMode's `BadOptimization`. The
//! replaced variables are still in the arena, computed as they were when
//! the rewrites replaced them; a function graph over the function's
//! inputs with every side as an output computes them all. The caller links
//! it (with the host's thunks for host ops) into a [`Witness`].
//!
//! In a lazy function (one with `ifelse`) the witness first computes the
//! function's own outputs, taking the branches the call took, and checks
//! only the pairs whose replacement (or something standing for it in the
//! final graph: what later replaced it, or a fused node that took in the
//! nodes reading it) was computed: a replacement inside a branch not taken
//! is not evaluated. A replacement nothing in the final graph stands for
//! is always checked.
//!
//! Pairs are checked in the order their replacements are computed in:
//! when a wrong rewrite feeds a later, correct one, the later one's sides
//! differ too (it was made on top of the wrong value), and the first
//! pair to differ is the culprit.

use super::replacements::ReplacementLog;
use crate::error::Result;
use crate::graph::{FunctionGraph, Graph, NodeId, VarId, VarKind};
use crate::vm::{LinkOptions, Program, Thunk, Witness, WitnessPair};
use std::collections::HashMap;

/// The witness graph of `fg` (the function's outputs first, then the
/// sides), how many outputs are the function's, and the pairs; `None` when
/// `fg` recorded no replacement (it was not compiled under DebugMode, or
/// nothing was rewritten).
pub fn witness_graph(
    fg: &FunctionGraph,
) -> Result<Option<(FunctionGraph, usize, Vec<WitnessPair>)>> {
    let Some(log) = fg.feature::<ReplacementLog>() else {
        return Ok(None);
    };
    let replacements = log.replacements();
    if replacements.is_empty() {
        return Ok(None);
    }
    let g = fg.graph();
    let mut outputs: Vec<VarId> = fg.outputs().to_vec();
    let own_outputs = outputs.len();
    let mut index: HashMap<VarId, usize> = HashMap::new();
    for (i, &v) in outputs.iter().enumerate().rev() {
        index.insert(v, i);
    }
    let mut output_of = |v: VarId| {
        *index.entry(v).or_insert_with(|| {
            outputs.push(v);
            outputs.len() - 1
        })
    };
    let next: HashMap<VarId, VarId> = replacements.iter().map(|r| (r.old, r.new)).collect();
    let readers = readers_of(g);
    let mut pairs: Vec<WitnessPair> = replacements
        .into_iter()
        .map(|r| WitnessPair {
            old_label: label(g, r.old),
            new_label: label(g, r.new),
            old: output_of(r.old),
            new: output_of(r.new),
            live: standing_for(fg, &next, &readers, r.new)
                .into_iter()
                .map(&mut output_of)
                .collect(),
            reason: r.reason,
        })
        .collect();
    let sides = outputs.clone();
    let witness = FunctionGraph::new(g.clone(), fg.inputs().to_vec(), outputs)?;
    let position: HashMap<NodeId, usize> = witness
        .toposort()?
        .into_iter()
        .enumerate()
        .map(|(i, n)| (n, i + 1))
        .collect();
    let rank = |v: VarId| {
        g.var(v)
            .owner()
            .and_then(|n| position.get(&n).copied())
            .unwrap_or(0)
    };
    pairs.sort_by_key(|p| rank(sides[p.new]));
    Ok(Some((witness, own_outputs, pairs)))
}

/// How far [`standing_for`] looks before giving up (the pair is then
/// always checked).
const SEARCH_LIMIT: usize = 512;

/// What stands for `v` in `fg`'s final graph: `v` itself if it is there,
/// else what later replaced it, or what replaced the nodes that read it
/// (a fused node standing for a chain), searched breadth first. Empty
/// when nothing does (or the search went too far).
fn standing_for(
    fg: &FunctionGraph,
    next: &HashMap<VarId, VarId>,
    readers: &HashMap<VarId, Vec<NodeId>>,
    v: VarId,
) -> Vec<VarId> {
    let g = fg.graph();
    let mut found = Vec::new();
    let mut queue = std::collections::VecDeque::from([v]);
    let mut seen = std::collections::HashSet::from([v]);
    while let Some(u) = queue.pop_front() {
        if fg.has_var(u) {
            found.push(u);
            continue;
        }
        let read_by = readers.get(&u).into_iter().flatten();
        let outs = read_by.flat_map(|&n| g.node(n).outputs.iter().copied());
        for w in next.get(&u).copied().into_iter().chain(outs) {
            if seen.insert(w) {
                queue.push_back(w);
            }
        }
        if seen.len() > SEARCH_LIMIT {
            return Vec::new();
        }
    }
    found
}

/// For each variable of the arena, the nodes reading it.
fn readers_of(g: &Graph) -> HashMap<VarId, Vec<NodeId>> {
    let mut readers: HashMap<VarId, Vec<NodeId>> = HashMap::new();
    for n in 0..g.num_nodes() {
        let id = NodeId(n as u32);
        for &v in &g.node(id).inputs {
            readers.entry(v).or_default().push(id);
        }
    }
    readers
}

/// Links the witness of `fg` (see [`witness_graph`]); `thunks` gives the
/// host's thunks for the nodes that need them.
pub fn link_witness(
    fg: &FunctionGraph,
    thunks: impl FnOnce(&FunctionGraph) -> Result<HashMap<NodeId, Box<dyn Thunk>>>,
) -> Result<Option<Witness>> {
    let Some((graph, own_outputs, pairs)) = witness_graph(fg)? else {
        return Ok(None);
    };
    // Kept values: the sides are demanded one by one.
    let opts = LinkOptions {
        allow_gc: false,
        ..LinkOptions::default()
    };
    let program = Program::link(&graph, thunks(&graph)?, &opts)?;
    Ok(Some(Witness {
        program,
        own_outputs,
        pairs,
    }))
}

/// A variable as messages show it: its node (`Add(x, y)`), with the output
/// index for nodes of several outputs, or its name.
fn label(g: &Graph, v: VarId) -> String {
    match &g.var(v).kind {
        VarKind::Output { node, index } if g.node(*node).outputs.len() > 1 => {
            format!("{}.{index}", g.describe_node(*node))
        }
        VarKind::Output { node, .. } => g.describe_node(*node),
        _ => g.describe_var(v),
    }
}
