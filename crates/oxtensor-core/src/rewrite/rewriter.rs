//! What a rewrite is: a [`NodeRewriter`] proposes replacements for the
//! outputs of one node, and says which ops it looks at ([`Tracks`]) so a
//! driver only asks it about those; a [`GraphRewriter`] is a pass over a
//! whole graph (a driver, merging, a database's phase). Mirrors
//! `NodeRewriter` and `GraphRewriter` in `pytensor/graph/rewriting/basic.py`.

use super::run::RunContext;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::OpRef;
use crate::scalar::ScalarKind;
use std::fmt;
use std::sync::Arc;

/// One op a node rewriter looks at.
#[derive(Clone)]
pub enum Track {
    /// Every instance of a class, by the names in [`crate::ops::Op::class_path`]
    /// (`"Elemwise"`, `"CAReduce"`, a Python op's class).
    Class(String),
    /// `Elemwise` nodes of one scalar kind (`tracks=[pt.mul]`).
    Scalar(ScalarKind),
    /// Nodes whose op equals this one (`==`, PyTensor's instance tracking).
    Op(OpRef),
}

impl fmt::Debug for Track {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Track::Class(c) => write!(f, "Class({c})"),
            Track::Scalar(k) => write!(f, "Scalar({})", k.name()),
            Track::Op(op) => write!(f, "Op({op})"),
        }
    }
}

/// Which nodes a rewriter is asked about.
#[derive(Clone, Debug)]
pub enum Tracks {
    /// Every node (`tracks() is None`).
    All,
    /// Nodes whose op matches one of these.
    Some(Vec<Track>),
}

impl Tracks {
    /// `Elemwise` nodes of these scalar kinds.
    pub fn scalars(kinds: &[ScalarKind]) -> Tracks {
        Tracks::Some(kinds.iter().map(|&k| Track::Scalar(k)).collect())
    }

    /// Instances of these classes.
    pub fn classes(names: &[&str]) -> Tracks {
        Tracks::Some(names.iter().map(|&n| Track::Class(n.to_owned())).collect())
    }
}

/// What a node rewriter proposes.
#[derive(Clone, Debug, PartialEq)]
pub enum Rewrite {
    /// One entry per output of the node; `None` keeps that output.
    Outputs(Vec<Option<VarId>>),
    /// Explicit `(old, new)` pairs (PyTensor's dict form), and variables
    /// that must have left the graph once they are applied (`"remove"`).
    Pairs {
        /// Replacements, applied in order.
        pairs: Vec<(VarId, VarId)>,
        /// Variables the replacement must remove.
        remove: Vec<VarId>,
    },
}

impl Rewrite {
    /// The node's only output replaced by `new`.
    pub fn one(new: VarId) -> Rewrite {
        Rewrite::Outputs(vec![Some(new)])
    }
}

/// A local rewrite: looks at one node and may propose replacements for its
/// outputs, built as new nodes in `fg.graph_mut()` (not yet in the graph:
/// the driver imports, checks and validates them, and reverts on failure).
pub trait NodeRewriter: Send + Sync {
    /// The name profiles, errors and databases use (`local_mul_canonizer`).
    fn name(&self) -> &str;

    /// The ops this rewriter is asked about (asked once, when a driver is built).
    fn tracks(&self) -> Tracks;

    /// The replacement for `node`'s outputs, or `None` to leave it.
    fn transform(&self, fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>>;

    /// Attaches the features this rewriter needs (`add_requirements`).
    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        let _ = fg;
        Ok(())
    }
}

/// Writes [`NodeRewriter::name`] and [`NodeRewriter::tracks`] inside an
/// `impl NodeRewriter` block, for a rewriter that keeps both in fields
/// (`name: String`, `tracks: Tracks`), as [`crate::op_identity`] writes an
/// op's identity.
#[macro_export]
macro_rules! rewriter_identity {
    () => {
        fn name(&self) -> &str {
            &self.name
        }

        fn tracks(&self) -> $crate::rewrite::Tracks {
            self.tracks.clone()
        }
    };
}

/// A pass over a whole graph.
pub trait GraphRewriter: Send + Sync {
    /// The name profiles and databases use.
    fn name(&self) -> &str;

    /// Attaches the features this rewriter needs before any pass runs.
    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        let _ = fg;
        Ok(())
    }

    /// Runs the pass; returns whether it changed the graph.
    fn apply(&self, fg: &mut FunctionGraph, run: &mut RunContext) -> Result<bool>;

    /// The node rewriters this pass runs, for databases that flatten
    /// sequences into one equilibrium (none by default).
    fn node_rewriters(&self) -> Vec<Arc<dyn NodeRewriter>> {
        Vec::new()
    }
}

/// Runs a graph rewriter on `fg` as PyTensor's `rewrite(fgraph)` does:
/// requirements first, then the pass.
pub fn rewrite_graph(
    rewriter: &dyn GraphRewriter,
    fg: &mut FunctionGraph,
    run: &mut RunContext,
) -> Result<bool> {
    rewriter.add_requirements(fg)?;
    // `optimizer_verbose`: the run's log, for this run only.
    let log = run.settings.log.clone();
    let logging = log.is_some();
    if logging {
        fg.set_replace_log(log);
    }
    let result = rewriter.apply(fg, run);
    if logging {
        fg.set_replace_log(None);
    }
    result
}

/// A node rewriter made from a function (`@node_rewriter` on a Rust fn).
pub struct FnRewriter<F> {
    name: &'static str,
    tracks: fn() -> Tracks,
    f: F,
    /// What [`NodeRewriter::add_requirements`] runs (none by default).
    requires: Option<fn(&mut FunctionGraph) -> Result<()>>,
}

impl<F> FnRewriter<F>
where
    F: Fn(&mut FunctionGraph, NodeId) -> Result<Option<Rewrite>> + Send + Sync,
{
    /// A rewriter called `name` that tracks `tracks()` and runs `f`.
    pub fn new(name: &'static str, tracks: fn() -> Tracks, f: F) -> Self {
        FnRewriter {
            name,
            tracks,
            f,
            requires: None,
        }
    }

    /// The rewriter, needing what `requires` attaches to a graph first.
    pub fn with_requirement(self, requires: fn(&mut FunctionGraph) -> Result<()>) -> Self {
        FnRewriter {
            requires: Some(requires),
            ..self
        }
    }
}

/// [`FnRewriter::new`] as a shared [`NodeRewriter`], ready to register.
pub fn node_rw<F>(name: &'static str, tracks: fn() -> Tracks, f: F) -> Arc<dyn NodeRewriter>
where
    F: Fn(&mut FunctionGraph, NodeId) -> Result<Option<Rewrite>> + Send + Sync + 'static,
{
    Arc::new(FnRewriter::new(name, tracks, f))
}

impl<F> NodeRewriter for FnRewriter<F>
where
    F: Fn(&mut FunctionGraph, NodeId) -> Result<Option<Rewrite>> + Send + Sync,
{
    fn name(&self) -> &str {
        self.name
    }

    fn tracks(&self) -> Tracks {
        (self.tracks)()
    }

    fn transform(&self, fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
        (self.f)(fg, node)
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        self.requires.map_or(Ok(()), |requires| requires(fg))
    }
}
