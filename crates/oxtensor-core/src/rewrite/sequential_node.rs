//! A group of node rewriters that acts as one (PyTensor's
//! `SequentialNodeRewriter`): a node is offered to the members that track
//! it, in order, and the first proposal is the group's.

use super::rewriter::{NodeRewriter, Rewrite, Track, Tracks};
use super::tracker::OpTracker;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use std::sync::Arc;

/// Node rewriters asked in turn.
pub struct SequentialNodeRewriter {
    name: String,
    tracker: OpTracker,
    tracks: Tracks,
}

impl SequentialNodeRewriter {
    /// A group called `name`.
    pub fn new(name: impl Into<String>, rewriters: Vec<Arc<dyn NodeRewriter>>) -> Self {
        let mut all: Vec<Track> = Vec::new();
        let mut every = false;
        for r in &rewriters {
            match r.tracks() {
                Tracks::All => every = true,
                Tracks::Some(t) => all.extend(t),
            }
        }
        SequentialNodeRewriter {
            name: name.into(),
            tracker: OpTracker::new(rewriters),
            tracks: if every {
                Tracks::All
            } else {
                Tracks::Some(all)
            },
        }
    }
}

impl NodeRewriter for SequentialNodeRewriter {
    crate::rewriter_identity!();

    fn transform(&self, fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
        let op = fg.graph().node(node).op.clone();
        for i in self.tracker.candidates(&op) {
            if let Some(r) = self.tracker.rewriters()[i].transform(fg, node)? {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        self.tracker
            .rewriters()
            .iter()
            .try_for_each(|r| r.add_requirements(fg))
    }
}
