//! Walking drivers (PyTensor's `WalkingGraphRewriter`, `in2out`, `out2in`):
//! one pass over the nodes in dependency order, inputs first or outputs
//! first, asking each node's tracked rewriters in turn until one applies.
//! Nodes a rewrite brings in are visited too, unless `ignore_newtrees`.

use super::apply::{apply_node_rewriter_with, Outcome};
use super::change_tracker::Channel;
use super::failure::OnFailure;
use super::profile::RewriterStats;
use super::rewriter::{GraphRewriter, NodeRewriter};
use super::run::RunContext;
use super::tracker::OpTracker;
use crate::error::Result;
use crate::graph::{traversal, FunctionGraph, NodeId};
use std::collections::VecDeque;
use std::sync::Arc;

/// Which end of the graph a walk starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkOrder {
    /// Inputs first (`in_to_out`).
    InToOut,
    /// Outputs first (`out_to_in`).
    OutToIn,
}

/// A walking pass over a set of node rewriters.
pub struct Walking {
    name: String,
    tracker: OpTracker,
    order: WalkOrder,
    ignore_newtrees: bool,
    on_failure: OnFailure,
}

impl Walking {
    /// A pass called `name` running `rewriters` in `order`.
    pub fn new(
        name: impl Into<String>,
        rewriters: Vec<Arc<dyn NodeRewriter>>,
        order: WalkOrder,
    ) -> Self {
        Walking {
            name: name.into(),
            tracker: OpTracker::new(rewriters),
            order,
            ignore_newtrees: false,
            on_failure: None,
        }
    }

    /// Whether nodes the pass itself brings in are left unvisited.
    pub fn ignore_newtrees(mut self, ignore: bool) -> Self {
        self.ignore_newtrees = ignore;
        self
    }

    /// Hands failures to `callback` instead of the run's policy
    /// (`failure_callback`).
    pub fn on_failure(mut self, callback: OnFailure) -> Self {
        self.on_failure = callback;
        self
    }

    /// Offers `node` to its rewriters until one applies; returns whether one did.
    fn visit(
        &self,
        fg: &mut FunctionGraph,
        node: NodeId,
        stats: &mut [RewriterStats],
        run: &mut RunContext,
    ) -> Result<bool> {
        let op = fg.graph().node(node).op.clone();
        for i in self.tracker.candidates(&op) {
            let rw = self.tracker.rewriters()[i].as_ref();
            let cb = self.on_failure.as_deref();
            if apply_node_rewriter_with(fg, node, rw, &mut stats[i], run, cb)? == Outcome::Applied {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

impl GraphRewriter for Walking {
    fn name(&self) -> &str {
        &self.name
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        self.tracker
            .rewriters()
            .iter()
            .try_for_each(|r| r.add_requirements(fg))
    }

    fn apply(&self, fg: &mut FunctionGraph, run: &mut RunContext) -> Result<bool> {
        if self.tracker.is_empty() {
            return Ok(false);
        }
        let channel = (!self.ignore_newtrees)
            .then(|| Channel::open(fg))
            .transpose()?;
        // Data order only, as PyTensor's `io_toposort`: a graph whose
        // orderings cannot be met (one a rewrite is to repair) is walked too.
        let mut queue: VecDeque<NodeId> =
            traversal::toposort(fg.graph(), fg.outputs(), fg.inputs())?.into();
        let mut stats = vec![RewriterStats::default(); self.tracker.rewriters().len()];
        let mut changed = false;
        let result = (|| -> Result<()> {
            while let Some(node) = match self.order {
                WalkOrder::InToOut => queue.pop_front(),
                WalkOrder::OutToIn => queue.pop_back(),
            } {
                if !fg.has_node(node) || !self.visit(fg, node, &mut stats, run)? {
                    continue;
                }
                changed = true;
                if let Some(ch) = &channel {
                    // What the rewrite brought in or rewired is visited too.
                    let fresh = ch.take(fg).into_iter().filter(|&n| n != node);
                    queue.extend(fresh.filter(|&n| fg.has_node(n)));
                }
            }
            Ok(())
        })();
        if let Some(ch) = channel {
            ch.close(fg)?;
        }
        for (rw, st) in self.tracker.rewriters().iter().zip(&stats) {
            run.profile.record(rw.name(), st);
        }
        result.map(|()| changed)
    }

    fn node_rewriters(&self) -> Vec<Arc<dyn NodeRewriter>> {
        self.tracker.rewriters().to_vec()
    }
}
