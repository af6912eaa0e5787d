//! The rewrite system: node rewriters (a local change around one node,
//! asked only about the ops they track), graph rewriters (passes over the
//! whole graph), the drivers that run them (walks, the worklist
//! equilibrium, sequences), merging, constant folding, and the databases
//! that name, tag and order them into a compilation's phases
//! ([`optdb`]). Every proposal is checked and validated before it stays,
//! and every run is profiled. Mirrors `pytensor/graph/rewriting/`.

mod apply;
mod change_tracker;
mod constant_fold;
pub mod db;
mod equilibrium;
mod failure;
mod families;
mod merge;
pub mod optdb;
pub mod pattern;
pub mod profile;
mod rewriter;
mod run;
mod sequence;
mod sequential_node;
mod substitution;
mod tracker;
mod walk;

pub use apply::{apply_node_rewriter, apply_node_rewriter_with, Outcome};
pub use change_tracker::{ChangeTracker, Channel};
pub use constant_fold::{
    constant_fold, topo_constant_folding, ConstantFolding, HostFolder, HostFolding,
};
pub use db::{DbKind, Entry, Query, Registered, RewriteDb, Role};
pub use equilibrium::Equilibrium;
pub use failure::{FailureCallback, FailureSite, OnFailure};
pub use merge::{MergeFeature, MergeRewriter};
pub use profile::{PassRecord, RewriteProfile, RewriterStats};
pub use rewriter::{
    node_rw, rewrite_graph, FnRewriter, GraphRewriter, NodeRewriter, Rewrite, Track, Tracks,
};
pub use run::{OnError, RewriteSettings, RunContext};
pub use sequence::Sequence;
pub use sequential_node::SequentialNodeRewriter;
pub use substitution::Substitution;
pub use tracker::{OpTracker, BASE_CLASS};
pub use walk::{WalkOrder, Walking};
