//! Test helpers: a graph linked as it is (each node its own step) and
//! after the fusion rewrites alone (`Elemwise(Composite)` nodes on the
//! fused kernel), so kernel tests compare the two runs.

use crate::graph::FunctionGraph;
use crate::rewrite::db::Query;
use crate::rewrite::optdb::optdb;
use crate::rewrite::{rewrite_graph, RunContext};
use crate::vm::{LinkOptions, Program};

/// `fg` after the `fusion` phase only.
pub(crate) fn fused(fg: &FunctionGraph) -> FunctionGraph {
    let mut out = fg.clone_graph();
    let pass = optdb()
        .query(&Query::including(&["fusion"]))
        .expect("query");
    let mut run = RunContext::default();
    rewrite_graph(pass.as_ref(), &mut out, &mut run).expect("fusion");
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    out
}

/// `fg` linked (profiled, so the linker merges nothing of its own).
pub(crate) fn link(fg: &FunctionGraph) -> Program {
    let opts = LinkOptions {
        profile: true,
        ..LinkOptions::default()
    };
    Program::link(fg, Default::default(), &opts).expect("links")
}

/// The fused and the plain program of `fg`, and how many nodes fusion left.
pub(crate) fn programs(fg: &FunctionGraph) -> (Program, Program, usize) {
    let f = fused(fg);
    let n = f.num_apply_nodes();
    assert!(n < fg.num_apply_nodes(), "nothing was fused");
    (link(&f), link(fg), n)
}

/// Composite calls on this thread that ran node by node.
pub(crate) fn interpreted() -> usize {
    super::interpret::INTERPRETED.with(|c| c.get())
}
