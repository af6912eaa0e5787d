//! A sequence of graph passes run in order (PyTensor's
//! `SequentialGraphRewriter`, what a `SequenceDB` query gives): the
//! phases of a compilation. Each pass's time and effect go in the profile.

use super::rewriter::{GraphRewriter, NodeRewriter};
use super::run::RunContext;
use crate::error::Result;
use crate::graph::FunctionGraph;
use crate::rewrite::profile::PassRecord;
use std::sync::Arc;
use std::time::Instant;

/// Passes run one after another, each under the name it was registered
/// with (a database registers one merge pass as `merge1`, `merge2`, ...).
pub struct Sequence {
    name: String,
    passes: Vec<(String, Arc<dyn GraphRewriter>)>,
}

impl Sequence {
    /// A sequence called `name` of named passes.
    pub fn named(name: impl Into<String>, passes: Vec<(String, Arc<dyn GraphRewriter>)>) -> Self {
        Sequence {
            name: name.into(),
            passes,
        }
    }

    /// A sequence called `name`, each pass under its own name.
    pub fn new(name: impl Into<String>, passes: Vec<Arc<dyn GraphRewriter>>) -> Self {
        let named = passes
            .into_iter()
            .map(|p| (p.name().to_owned(), p))
            .collect();
        Sequence::named(name, named)
    }

    /// The passes, in order.
    pub fn passes(&self) -> impl Iterator<Item = &Arc<dyn GraphRewriter>> {
        self.passes.iter().map(|(_, p)| p)
    }
}

impl GraphRewriter for Sequence {
    fn name(&self) -> &str {
        &self.name
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        self.passes().try_for_each(|p| p.add_requirements(fg))
    }

    fn apply(&self, fg: &mut FunctionGraph, run: &mut RunContext) -> Result<bool> {
        let mut changed = false;
        for (name, pass) in &self.passes {
            let start = Instant::now();
            let did = pass.apply(fg, run)?;
            run.profile.passes.push(PassRecord {
                name: name.clone(),
                time: start.elapsed(),
                changed: did,
                nodes_after: fg.num_apply_nodes(),
            });
            changed |= did;
        }
        Ok(changed)
    }

    fn node_rewriters(&self) -> Vec<Arc<dyn NodeRewriter>> {
        self.passes().flat_map(|p| p.node_rewriters()).collect()
    }
}
