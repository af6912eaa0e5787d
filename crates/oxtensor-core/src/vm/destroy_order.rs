//! Keeping a program's steps in the destroy handler's order. The schedule
//! puts every reader of a value before the node that overwrites it; two
//! link-time liberties could undo that and are held back here: fusion runs
//! a group where its last node sits (a member would then read its inputs
//! after a destroyer placed between), and on-demand (lazy) runs follow
//! inputs, not the order (a destroyer could run before a reader a later
//! branch asks for).

use super::fusion::Fusible;
use super::program::{Program, Src, Step, Workspace};
use crate::graph::{FunctionGraph, NodeId, Orderings};
use std::collections::HashMap;

/// The positions in `order` of the nodes that destroy an input.
pub(super) fn destroying_steps(fg: &FunctionGraph, order: &[NodeId]) -> Vec<usize> {
    order
        .iter()
        .enumerate()
        .filter(|(_, &n)| !fg.graph().node(n).op.destroy_map().is_empty())
        .map(|(k, _)| k)
        .collect()
}

/// Unfuses every step one of whose readers runs after a destroying step
/// that runs after it: fused into that reader, it would move past the
/// destroyer. (Unfused, it cannot take readers into its own group either;
/// fusion stays a pure speed matter.)
pub(super) fn hold_at_barriers(
    steps: &[Step],
    fusible: &mut [Option<Fusible>],
    barriers: &[usize],
) {
    if barriers.is_empty() {
        return;
    }
    let mut last_reader: HashMap<usize, usize> = HashMap::new();
    for (k, st) in steps.iter().enumerate() {
        for src in &st.inputs {
            if let Src::Slot(s) = *src {
                last_reader.insert(s, k);
            }
        }
    }
    for (k, st) in steps.iter().enumerate() {
        let last = st.outputs.iter().filter_map(|s| last_reader.get(s)).max();
        if let Some(&r) = last {
            if barriers.iter().any(|&b| k < b && b < r) {
                fusible[k] = None;
            }
        }
    }
}

/// For a lazy program (one step per node of `order`): the steps each step
/// must wait for besides its inputs.
pub(super) fn steps_before(order: &[NodeId], before: &Orderings) -> HashMap<usize, Vec<usize>> {
    let at: HashMap<NodeId, usize> = order.iter().enumerate().map(|(k, &n)| (n, k)).collect();
    before
        .iter()
        .filter_map(|(n, b)| {
            let k = *at.get(n)?;
            let deps: Vec<usize> = b.iter().filter_map(|m| at.get(m).copied()).collect();
            (!deps.is_empty()).then_some((k, deps))
        })
        .collect()
}

impl Program {
    /// A step that must run before step `k` and has not yet (lazy runs).
    pub(super) fn unmet_before(&self, k: usize, ws: &Workspace) -> Option<usize> {
        self.before.get(&k)?.iter().copied().find(|&p| {
            self.steps[p]
                .outputs
                .iter()
                .any(|&o| ws.storage[o].is_none())
        })
    }
}
