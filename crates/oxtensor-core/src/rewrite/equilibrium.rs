//! The equilibrium driver (PyTensor's `EquilibriumGraphRewriter`): node
//! rewriters are applied until none applies anywhere. PyTensor walks the
//! whole graph again after every round; here the first round visits every
//! node (outputs first) and later work is a worklist of the nodes a change
//! touched (imported, or given a new input), so a round costs the size of
//! what changed. Graph-level rewriters run at the start of each round, the
//! cleanup rewriters (merging) after them, after each applied change and
//! after the final rewriters (constant folding) that end each round. A rewriter
//! applied more than `max_use_ratio` times the largest node count stops
//! the run with a warning naming it (the application that goes over the
//! bound stays, as in PyTensor).

use super::apply::{apply_node_rewriter_with, Outcome};
use super::change_tracker::Channel;
use super::failure::OnFailure;
use super::profile::RewriterStats;
use super::rewriter::{GraphRewriter, NodeRewriter};
use super::run::{OnError, RunContext};
use super::tracker::OpTracker;
use crate::error::{Error, Result};
use crate::graph::{traversal, FunctionGraph, NodeId};
use std::sync::Arc;

/// An equilibrium over node rewriters, with global, final and cleanup passes.
pub struct Equilibrium {
    name: String,
    tracker: OpTracker,
    global: Vec<Arc<dyn GraphRewriter>>,
    finals: Vec<Arc<dyn GraphRewriter>>,
    cleanup: Vec<Arc<dyn GraphRewriter>>,
    /// This driver's own bound, else the run's `max_use_ratio`.
    max_use_ratio: Option<f64>,
    on_failure: OnFailure,
}

impl Equilibrium {
    /// An equilibrium called `name` over `rewriters`.
    pub fn new(name: impl Into<String>, rewriters: Vec<Arc<dyn NodeRewriter>>) -> Self {
        Equilibrium {
            name: name.into(),
            tracker: OpTracker::new(rewriters),
            global: Vec::new(),
            finals: Vec::new(),
            cleanup: Vec::new(),
            max_use_ratio: None,
            on_failure: None,
        }
    }

    /// Hands failures to `callback` instead of the run's policy
    /// (`failure_callback`).
    pub fn on_failure(mut self, callback: OnFailure) -> Self {
        self.on_failure = callback;
        self
    }

    /// Its own bound on applications per rewriter, as a multiple of the
    /// largest node count (PyTensor's `max_use_ratio` argument).
    pub fn with_max_use_ratio(mut self, ratio: Option<f64>) -> Self {
        self.max_use_ratio = ratio;
        self
    }

    fn max_use_ratio(&self, run: &RunContext) -> f64 {
        self.max_use_ratio.unwrap_or(run.settings.max_use_ratio)
    }

    /// Graph rewriters run at the start of each round.
    pub fn with_global(mut self, passes: Vec<Arc<dyn GraphRewriter>>) -> Self {
        self.global = passes;
        self
    }

    /// Graph rewriters run at the end of each round.
    pub fn with_final(mut self, passes: Vec<Arc<dyn GraphRewriter>>) -> Self {
        self.finals = passes;
        self
    }

    /// Graph rewriters run after every applied change.
    pub fn with_cleanup(mut self, passes: Vec<Arc<dyn GraphRewriter>>) -> Self {
        self.cleanup = passes;
        self
    }

    fn passes(&self) -> impl Iterator<Item = &Arc<dyn GraphRewriter>> {
        self.global.iter().chain(&self.finals).chain(&self.cleanup)
    }

    fn run_passes(
        passes: &[Arc<dyn GraphRewriter>],
        fg: &mut FunctionGraph,
        run: &mut RunContext,
    ) -> Result<bool> {
        let mut changed = false;
        for p in passes {
            changed |= p.apply(fg, run)?;
        }
        Ok(changed)
    }
}

/// The worklist: nodes to visit, each at most once at a time.
struct Worklist {
    stack: Vec<NodeId>,
    queued: Vec<bool>,
}

impl Worklist {
    fn push(&mut self, n: NodeId) {
        if self.queued.len() <= n.index() {
            self.queued.resize(n.index() + 1, false);
        }
        if !self.queued[n.index()] {
            self.queued[n.index()] = true;
            self.stack.push(n);
        }
    }

    fn pop(&mut self) -> Option<NodeId> {
        let n = self.stack.pop()?;
        self.queued[n.index()] = false;
        Some(n)
    }
}

/// What one run of the driver keeps.
struct State {
    stats: Vec<RewriterStats>,
    max_nodes: usize,
    /// The rewriters that went over the bound.
    maxed: Vec<usize>,
}

impl Equilibrium {
    /// Offers `node` to its rewriters; after each applied change the
    /// cleanup passes run and the touched nodes join the worklist.
    fn visit(
        &self,
        fg: &mut FunctionGraph,
        node: NodeId,
        work: &mut Worklist,
        ch: &Channel,
        st: &mut State,
        run: &mut RunContext,
    ) -> Result<bool> {
        let op = fg.graph().node(node).op.clone();
        let mut changed = false;
        for i in self.tracker.candidates(&op) {
            let rw = self.tracker.rewriters()[i].as_ref();
            let cb = self.on_failure.as_deref();
            match apply_node_rewriter_with(fg, node, rw, &mut st.stats[i], run, cb)? {
                Outcome::Applied => {}
                Outcome::Failed => {
                    // The refused proposal was reverted: what it touched is
                    // as it was, and revisiting it would fail again forever.
                    ch.take(fg);
                    continue;
                }
                Outcome::Unchanged => continue,
            }
            changed = true;
            Self::run_passes(&self.cleanup, fg, run)?;
            ch.take(fg).into_iter().for_each(|n| work.push(n));
            st.max_nodes = st.max_nodes.max(fg.num_apply_nodes());
            // Going over the bound stops the run once this change is in.
            let max_use = st.max_nodes as f64 * self.max_use_ratio(run);
            if st.stats[i].applied as f64 > max_use {
                st.maxed.push(i);
                break;
            }
            if !fg.has_node(node) {
                break;
            }
        }
        Ok(changed)
    }

    fn rounds(
        &self,
        fg: &mut FunctionGraph,
        ch: &Channel,
        st: &mut State,
        run: &mut RunContext,
    ) -> Result<bool> {
        let mut work = Worklist {
            stack: Vec::new(),
            queued: Vec::new(),
        };
        // The first round sees every node; toposort order popped from the
        // back visits outputs first, as PyTensor's `q.pop()` does; data
        // order only (`io_toposort`), so unmet orderings do not stop it.
        traversal::toposort(fg.graph(), fg.outputs(), fg.inputs())?
            .into_iter()
            .for_each(|n| work.push(n));
        let mut changed_any = false;
        loop {
            // Cleanup (merging) runs every round, as PyTensor's does, so
            // duplicates left by an earlier phase merge even when no rewriter
            // of this one applies.
            let mut changed = Self::run_passes(&self.global, fg, run)?;
            changed |= Self::run_passes(&self.cleanup, fg, run)?;
            ch.take(fg).into_iter().for_each(|n| work.push(n));
            while let Some(node) = work.pop() {
                if fg.has_node(node) {
                    changed |= self.visit(fg, node, &mut work, ch, st, run)?;
                }
                if !st.maxed.is_empty() {
                    break;
                }
            }
            changed |= Self::run_passes(&self.finals, fg, run)?;
            changed |= Self::run_passes(&self.cleanup, fg, run)?;
            ch.take(fg).into_iter().for_each(|n| work.push(n));
            changed_any |= changed;
            if !st.maxed.is_empty() || work.stack.is_empty() {
                return Ok(changed_any);
            }
        }
    }
}

impl GraphRewriter for Equilibrium {
    fn name(&self) -> &str {
        &self.name
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        for r in self.tracker.rewriters() {
            r.add_requirements(fg)?;
        }
        self.passes().try_for_each(|p| p.add_requirements(fg))
    }

    fn apply(&self, fg: &mut FunctionGraph, run: &mut RunContext) -> Result<bool> {
        let ch = Channel::open(fg)?;
        let mut st = State {
            stats: vec![RewriterStats::default(); self.tracker.rewriters().len()],
            max_nodes: fg.num_apply_nodes(),
            maxed: Vec::new(),
        };
        let result = self.rounds(fg, &ch, &mut st, run);
        ch.close(fg)?;
        for (rw, s) in self.tracker.rewriters().iter().zip(&st.stats) {
            run.profile.record(rw.name(), s);
        }
        if !st.maxed.is_empty() {
            let names: Vec<&str> = st
                .maxed
                .iter()
                .map(|&i| self.tracker.rewriters()[i].name())
                .collect();
            let message = format!(
                "{} stopped before reaching equilibrium: {} kept applying (more than {} times \
                 the number of nodes). Raise the bound with the option `optdb__max_use_ratio` \
                 if the graph is simply large, else one of these rewriters undoes another.",
                self.name,
                names.join(", "),
                self.max_use_ratio(run)
            );
            // As PyTensor: an error under `on_opt_error="raise"`, else reported.
            if run.settings.on_error == OnError::Raise {
                return result.and(Err(Error::Value(message)));
            }
            run.warn(message);
        }
        result
    }

    fn node_rewriters(&self) -> Vec<Arc<dyn NodeRewriter>> {
        self.tracker.rewriters().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::rewrite::rewrite_graph;
    use crate::rewrite::rewriter::{node_rw, Rewrite, Tracks};
    use crate::scalar::ScalarKind;

    /// `exp(a) -> log(a)` and `log(a) -> exp(a)`: a pair that never settles.
    fn flip_flop() -> Vec<Arc<dyn NodeRewriter>> {
        let to_log = node_rw(
            "exp_to_log",
            || Tracks::scalars(&[ScalarKind::Exp]),
            |fg, n| of_input(fg, n, build::log),
        );
        let to_exp = node_rw(
            "log_to_exp",
            || Tracks::scalars(&[ScalarKind::Log]),
            |fg, n| of_input(fg, n, build::exp),
        );
        vec![to_log, to_exp]
    }

    /// `f(a)` in place of `node`, `a` its first input.
    fn of_input(
        fg: &mut FunctionGraph,
        node: NodeId,
        f: fn(&mut Graph, VarId) -> Result<VarId>,
    ) -> Result<Option<Rewrite>> {
        let a = fg.graph().node(node).inputs[0];
        Ok(Some(Rewrite::one(f(fg.graph_mut(), a)?)))
    }

    /// `exp(x)`, which [`flip_flop`] turns back and forth.
    fn exp_graph() -> FunctionGraph {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let e = build::exp(&mut g, x).unwrap();
        FunctionGraph::new(g, vec![x], vec![e]).unwrap()
    }

    #[test]
    fn going_over_the_bound_keeps_that_change_and_stops_with_a_warning() {
        let mut fg = exp_graph();
        // One node, ratio 1: `exp_to_log` may apply once; its second
        // application goes over and is the last.
        let eq = Equilibrium::new("eq", flip_flop()).with_max_use_ratio(Some(1.0));
        let mut run = RunContext::default();
        rewrite_graph(&eq, &mut fg, &mut run).unwrap();
        let out = fg.outputs()[0];
        let node = fg.graph().var(out).owner().unwrap();
        assert_eq!(fg.graph().node(node).op.describe(), "Log");
        assert_eq!(run.warnings.len(), 1);
        assert!(
            run.warnings[0].contains("exp_to_log"),
            "{}",
            run.warnings[0]
        );
        assert!(
            run.warnings[0].contains("more than 1 times"),
            "{}",
            run.warnings[0]
        );
    }

    #[test]
    fn going_over_the_bound_is_an_error_when_failures_raise() {
        let mut fg = exp_graph();
        let eq = Equilibrium::new("eq", flip_flop()).with_max_use_ratio(Some(1.0));
        let mut run = RunContext::new(crate::rewrite::RewriteSettings {
            on_error: OnError::Raise,
            max_use_ratio: 8.0,
            ..Default::default()
        });
        let err = rewrite_graph(&eq, &mut fg, &mut run)
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("stopped before reaching equilibrium")));
        assert!(run.warnings.is_empty());
    }
}
