//! Elementwise fusion, optdb's `elemwise_fusion` phase (position 49, tags
//! `fast_run`, `fusion`; PyTensor's `fuse_seqopt`): groups of elementwise
//! nodes become one `Elemwise(Composite)` run by the fused block kernel,
//! then unread composite outputs go, a `Sum` of a composite joins it, and
//! constants move inside. What may be fused is what the kernel runs
//! (`kernels/fused/support.rs`).

mod composite_fusion;
mod composite_rewrites;
mod groups;

use crate::error::Result;
use crate::rewrite::db::{Entry, RewriteDb, Role};
use crate::rewrite::optdb::phase;
use crate::rewrite::rewriter::{FnRewriter, NodeRewriter};
use composite_rewrites as local;
use std::sync::Arc;

const TAGS: [&str; 2] = ["fast_run", "fusion"];

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let fusion = db.sub_db(phase::FUSION)?;
    let pass = Entry::Graph(Arc::new(composite_fusion::CompositeFusion));
    fusion.register("composite_elemwise_fusion", pass, &TAGS, 1.0, Role::Global)?;
    let node = |rw: Arc<dyn NodeRewriter>| Entry::Node(rw);
    let useless = node(Arc::new(FnRewriter::new(
        "local_useless_composite_outputs",
        local::tracks_elemwise,
        local::local_useless_composite_outputs,
    )));
    fusion.register(
        "local_useless_composite_outputs",
        useless,
        &TAGS,
        2.0,
        Role::Global,
    )?;
    let careduce = node(Arc::new(FnRewriter::new(
        "local_careduce_fusion",
        local::tracks_reductions,
        local::local_careduce_fusion,
    )));
    fusion.register("local_careduce_fusion", careduce, &TAGS, 10.0, Role::Global)?;
    let inline = node(Arc::new(FnRewriter::new(
        "local_inline_composite_constants",
        local::tracks_fused,
        local::local_inline_composite_constants,
    )));
    fusion.register(
        "local_inline_composite_constants",
        inline,
        &TAGS,
        20.0,
        Role::Global,
    )
}

#[cfg(test)]
mod tests;
