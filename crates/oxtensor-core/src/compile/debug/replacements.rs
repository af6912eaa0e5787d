//! What DebugMode remembers of a compilation: every replacement the
//! rewrites made (which rewriter replaced which variable with which), as
//! PyTensor's DebugMode records them, so that each call can compute both
//! sides and raise `BadOptimization` where they differ (see `witness.rs`).
//! A replacement the graph later reverted (a proposal the DestroyHandler
//! or another feature refused) is forgotten: it never shaped the result.

use crate::error::Result;
use crate::graph::{Client, Feature, FunctionGraph, InputChange, VarId};

/// One replacement: `new` stands for `old` because `reason` said so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// The rewriter (or other editor) that made it.
    pub reason: String,
    /// The variable replaced.
    pub old: VarId,
    /// What replaced it.
    pub new: VarId,
}

/// A feature recording replacements, attached by the compiler under
/// DebugMode before the rewrites run (see [`attach_log`]).
#[derive(Debug, Default)]
pub struct ReplacementLog {
    /// Every input change, with the client it changed, in order.
    changes: Vec<(Client, Replacement)>,
}

/// The reason `FunctionGraph::revert` gives the change undoing `reason`'s.
fn reverted_reason(reason: &str) -> Option<&str> {
    reason.strip_prefix("Revert(")?.strip_suffix(')')
}

impl ReplacementLog {
    /// The replacements still in effect, each `(old, new)` pair once (a
    /// replacement changes every client of `old`, one change each), in
    /// the order they were first made.
    pub fn replacements(&self) -> Vec<Replacement> {
        let mut seen = std::collections::HashSet::new();
        self.changes
            .iter()
            .filter(|(_, r)| seen.insert((r.old, r.new)))
            .map(|(_, r)| r.clone())
            .collect()
    }
}

impl Feature for ReplacementLog {
    crate::graph::feature_identity!("ReplacementLog");

    fn on_change_input(&mut self, _fg: &FunctionGraph, change: &InputChange) -> Result<()> {
        let InputChange {
            client,
            old,
            new,
            reason,
        } = *change;
        if reverted_reason(reason).is_some() {
            // Undoing the latest change of this client from `new` to `old`.
            let undone = self
                .changes
                .iter()
                .rposition(|(c, r)| *c == client && r.old == new && r.new == old);
            if let Some(k) = undone {
                self.changes.remove(k);
                return Ok(());
            }
        }
        let change = Replacement {
            reason: reason.to_owned(),
            old,
            new,
        };
        self.changes.push((client, change));
        Ok(())
    }
}

/// Attaches a [`ReplacementLog`] to `fg` when `mode` is DebugMode (its
/// checker compares with a reference), before the rewrites run.
pub fn attach_log(fg: &mut FunctionGraph, mode: &crate::compile::Mode) -> Result<()> {
    let debug = mode
        .link
        .checker
        .as_ref()
        .is_some_and(|c| c.wants_reference());
    if debug && fg.feature::<ReplacementLog>().is_none() {
        fg.attach_feature(Box::new(ReplacementLog::default()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;

    #[test]
    fn replacements_are_recorded_once_and_reverts_forgotten() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let e = build::exp(&mut g, x).unwrap();
        let a = build::add(&mut g, e, e).unwrap();
        let l = build::log(&mut g, x).unwrap();
        let n = build::neg(&mut g, x).unwrap();
        let mut fg = FunctionGraph::new(g, vec![x], vec![a]).unwrap();
        fg.attach_feature(Box::new(ReplacementLog::default()))
            .unwrap();
        // `e` has two clients (both inputs of `a`): one replacement.
        fg.replace(e, l, "local_exp_to_log", true).unwrap();
        let chk = fg.checkpoint();
        fg.replace(l, n, "local_refused", true).unwrap();
        fg.revert(chk).unwrap();
        let log = fg.feature::<ReplacementLog>().unwrap();
        let want = Replacement {
            reason: "local_exp_to_log".into(),
            old: e,
            new: l,
        };
        assert_eq!(log.replacements(), vec![want]);
    }
}
