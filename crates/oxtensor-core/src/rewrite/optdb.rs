//! `optdb`: the database a compilation queries, with PyTensor's phases at
//! PyTensor's positions (`pytensor/compile/mode.py` and the tensor
//! rewriting modules): merging first, the canonicalize, stabilize,
//! specialize and uncanonicalize equilibria (each folding constants at the
//! end of its rounds), fusion, the destroy handler and the inplace passes,
//! and a last merge. The rewrite families register themselves into their
//! phase with [`register_canonicalize`] and its siblings; users register
//! more (from Python too) into the same databases.

use super::constant_fold::topo_constant_folding;
use super::db::{DbKind, Entry, RewriteDb, Role};
use super::merge::MergeRewriter;
use super::rewriter::{GraphRewriter, NodeRewriter};
use super::walk::WalkOrder;
use crate::error::Result;
use std::sync::{Arc, OnceLock};

/// Names of the phase databases inside [`optdb`].
pub mod phase {
    /// `useless` (0.6): rewrites that drop nodes doing nothing.
    pub const USELESS: &str = "useless";
    /// `canonicalize` (1): the canonical form other rewrites match.
    pub const CANONICALIZE: &str = "canonicalize";
    /// `stabilize` (1.5): numerically stable forms.
    pub const STABILIZE: &str = "stabilize";
    /// `specialize` (2): faster special cases.
    pub const SPECIALIZE: &str = "specialize";
    /// `uncanonicalize` (3): undoing canonical forms that run slower.
    pub const UNCANONICALIZE: &str = "uncanonicalize";
    /// `elemwise_fusion` (49): elementwise fusion into `Composite`.
    pub const FUSION: &str = "elemwise_fusion";
}

/// The process-wide database (built on first use).
pub fn optdb() -> Arc<RewriteDb> {
    static DB: OnceLock<Arc<RewriteDb>> = OnceLock::new();
    DB.get_or_init(|| {
        Arc::new(build().expect("the built-in rewrites register once, by distinct names"))
    })
    .clone()
}

fn graph(p: impl GraphRewriter + 'static) -> Entry {
    Entry::Graph(Arc::new(p))
}

fn build() -> Result<RewriteDb> {
    let db = RewriteDb::new("optdb", DbKind::Sequence);
    let both: &[&str] = &["fast_run", "fast_compile"];
    let merge_tags: &[&str] = &["fast_run", "fast_compile", "merge"];
    let merge = || graph(MergeRewriter);
    let eq = |name, merge_cleanup, tags, position| -> Result<(&str, Entry, &[&str], f64)> {
        Ok((
            name,
            Entry::Db(equilibrium_phase(name, merge_cleanup)?),
            tags,
            position,
        ))
    };
    let useless = RewriteDb::new(phase::USELESS, DbKind::Walk(WalkOrder::OutToIn));
    let fusion = Entry::Db(Arc::new(RewriteDb::new(phase::FUSION, DbKind::Sequence)));
    let canon_tags: &[&str] = &["fast_run", "fast_compile", "canonicalize_db"];
    // In registration order, which breaks the tie at an equal position (49).
    let entries: [(&str, Entry, &[&str], f64); 11] = [
        ("merge1", merge(), merge_tags, 0.0),
        (phase::USELESS, Entry::Db(Arc::new(useless)), both, 0.6),
        ("merge1.1", merge(), merge_tags, 0.65),
        eq(phase::CANONICALIZE, true, canon_tags, 1.0)?,
        ("merge1.2", merge(), merge_tags, 1.2),
        eq(phase::STABILIZE, false, both, 1.5)?,
        eq(phase::SPECIALIZE, false, both, 2.0)?,
        eq(phase::UNCANONICALIZE, false, &["fast_run"], 3.0)?,
        (phase::FUSION, fusion, &["fast_run", "fusion"], 49.0),
        ("merge2", merge(), merge_tags, 49.0),
        ("merge3", merge(), merge_tags, 100.0),
    ];
    for (name, entry, tags, position) in entries {
        db.register(name, entry, tags, position, Role::Global)?;
    }
    crate::rewrite::families::register_all(&db)?;
    Ok(db)
}

/// An equilibrium phase that folds constants at the end of each round;
/// canonicalize also merges after every change (PyTensor's cleanup).
fn equilibrium_phase(name: &str, merge_cleanup: bool) -> Result<Arc<RewriteDb>> {
    let db = RewriteDb::new(name, DbKind::Equilibrium);
    db.register(
        "topo_constant_folding",
        graph(topo_constant_folding()),
        &["fast_run", "fast_compile"],
        0.0,
        Role::Final,
    )?;
    if merge_cleanup {
        db.register(
            "merge",
            graph(MergeRewriter),
            &["fast_run", "fast_compile"],
            0.0,
            Role::Cleanup,
        )?;
    }
    Ok(Arc::new(db))
}

/// Registers a node rewriter in a phase of [`optdb`] with `tags` (plus
/// `fast_run`, and `fast_compile` for canonicalize, as PyTensor's
/// `register_*` decorators add).
pub fn register_in(
    db: &RewriteDb,
    phase_name: &str,
    rw: Arc<dyn NodeRewriter>,
    tags: &[&str],
) -> Result<()> {
    let mut all: Vec<&str> = vec!["fast_run"];
    if phase_name == phase::CANONICALIZE || phase_name == phase::USELESS {
        all.push("fast_compile");
    }
    all.extend_from_slice(tags);
    let name = rw.name().to_owned();
    db.sub_db(phase_name)?
        .register(&name, Entry::Node(rw), &all, 0.0, Role::Global)
}

/// `register_canonicalize` into the process-wide [`optdb`].
pub fn register_canonicalize(rw: Arc<dyn NodeRewriter>, tags: &[&str]) -> Result<()> {
    register_in(&optdb(), phase::CANONICALIZE, rw, tags)
}

/// `register_stabilize` into the process-wide [`optdb`].
pub fn register_stabilize(rw: Arc<dyn NodeRewriter>, tags: &[&str]) -> Result<()> {
    register_in(&optdb(), phase::STABILIZE, rw, tags)
}

/// `register_specialize` into the process-wide [`optdb`].
pub fn register_specialize(rw: Arc<dyn NodeRewriter>, tags: &[&str]) -> Result<()> {
    register_in(&optdb(), phase::SPECIALIZE, rw, tags)
}

/// `register_uncanonicalize` into the process-wide [`optdb`].
pub fn register_uncanonicalize(rw: Arc<dyn NodeRewriter>, tags: &[&str]) -> Result<()> {
    register_in(&optdb(), phase::UNCANONICALIZE, rw, tags)
}

/// `register_useless` into the process-wide [`optdb`].
pub fn register_useless(rw: Arc<dyn NodeRewriter>, tags: &[&str]) -> Result<()> {
    register_in(&optdb(), phase::USELESS, rw, tags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::db::Query;

    fn pass_names(q: &Query) -> Vec<String> {
        let pass = optdb().query(q).unwrap();
        let seq = pass.as_ref();
        // A sequence's passes are recorded in the profile in order.
        let mut g = crate::graph::Graph::new();
        let x = g.input(
            crate::types::TensorType::with_ndim(crate::dtype::DType::Float64, 1),
            Some("x"),
        );
        let mut fg = crate::graph::FunctionGraph::new(g, vec![x], vec![x]).unwrap();
        let mut run = crate::rewrite::RunContext::default();
        crate::rewrite::rewrite_graph(seq, &mut fg, &mut run).unwrap();
        run.profile.passes.iter().map(|p| p.name.clone()).collect()
    }

    #[test]
    fn phases_come_in_pytensors_order() {
        let fast_run = pass_names(&Query::including(&["fast_run"]));
        let expect = [
            "merge1",
            "useless",
            "merge1.1",
            "canonicalize",
            "merge1.2",
            "stabilize",
            "specialize",
            "uncanonicalize",
        ];
        assert_eq!(&fast_run[..expect.len()], expect, "{fast_run:?}");
        assert_eq!(fast_run.last().map(String::as_str), Some("merge3"));
        let fast_compile = pass_names(&Query::including(&["fast_compile"]));
        assert!(!fast_compile
            .iter()
            .any(|p| p == "uncanonicalize" || p == "elemwise_fusion"));
        assert!(fast_compile.iter().any(|p| p == "canonicalize"));
    }
}
