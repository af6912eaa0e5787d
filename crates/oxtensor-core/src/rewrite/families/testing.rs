//! Test helpers for rewrite families: build a graph, run some phases of
//! `optdb` on it, and check the result's printed form and its values
//! against the unrewritten graph's on the same inputs.

use crate::graph::{FunctionGraph, Graph, VarId};
use crate::print::{debugprint_vars, PrintOptions};
use crate::rewrite::db::Query;
use crate::rewrite::optdb::optdb;
use crate::rewrite::{rewrite_graph, RunContext};
use crate::tensor::{Scalar, Tensor};
use crate::value::Value;
use crate::vm::{LinkOptions, Program};
use std::collections::HashMap;

/// A graph under test: its arena, inputs and outputs.
pub struct Case {
    /// The arena.
    pub g: Graph,
    /// Inputs.
    pub inputs: Vec<VarId>,
    /// Outputs.
    pub outputs: Vec<VarId>,
}

impl Case {
    /// A case of `g` with these inputs and outputs.
    pub fn new(g: Graph, inputs: Vec<VarId>, outputs: Vec<VarId>) -> Case {
        Case { g, inputs, outputs }
    }

    /// The function graph (the case is cloned, so it can be rewritten
    /// several ways).
    pub fn fgraph(&self) -> FunctionGraph {
        FunctionGraph::new(self.g.clone(), self.inputs.clone(), self.outputs.clone())
            .expect("a well-formed test graph")
    }
}

/// Runs what `include` selects from `optdb` (e.g. `["canonicalize"]`, or
/// `["fast_run"]` for every phase); panics on a warning or failure.
pub fn rewrite(fg: &mut FunctionGraph, include: &[&str]) -> RunContext {
    let pass = optdb().query(&Query::including(include)).expect("query");
    let mut run = RunContext::default();
    rewrite_graph(pass.as_ref(), fg, &mut run).expect("rewrite");
    assert!(run.warnings.is_empty(), "warnings: {:?}", run.warnings);
    fg.check_integrity()
        .expect("a consistent graph after rewriting");
    run
}

/// `debugprint` of a function graph's outputs, without toposort indices
/// (so a test's expected text does not depend on the schedule).
pub fn printed(fg: &FunctionGraph) -> String {
    debugprint_vars(fg.graph(), fg.outputs(), &PrintOptions::default())
}

/// [`check`], then asserts that the rewritten graph prints as `want`.
pub fn check_prints(case: &Case, include: &[&str], args: &[Tensor], rtol: f64, want: &str) {
    assert_eq!(printed(&check(case, include, args, rtol)), want);
}

/// Rewrites `case` with `include`, checks that the rewritten graph gives
/// the unrewritten one's values on `args` (relative tolerance `rtol`, NaN
/// matching NaN), and returns the rewritten graph for the caller's checks
/// of its form.
pub fn check(case: &Case, include: &[&str], args: &[Tensor], rtol: f64) -> FunctionGraph {
    let plain = case.fgraph();
    let mut fg = case.fgraph();
    rewrite(&mut fg, include);
    let args: Vec<Value> = args.iter().cloned().map(Value::Tensor).collect();
    let run = |fg: &FunctionGraph| {
        // Profiled, the linker merges no nodes: each runs as the graph says.
        let opts = LinkOptions {
            profile: true,
            ..LinkOptions::default()
        };
        Program::link(fg, HashMap::new(), &opts)
            .expect("link")
            .run(&args)
            .expect("run")
    };
    let (want, got) = (run(&plain), run(&fg));
    for (k, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_close(w, g, rtol, &format!("output {k} of\n{}", printed(&fg)));
    }
    fg
}

/// Same dtype, shape and values within `rtol` (NaN matching NaN).
pub fn assert_close(want: &Value, got: &Value, rtol: f64, what: &str) {
    let (w, g) = (
        want.tensor().expect("tensor"),
        got.tensor().expect("tensor"),
    );
    assert_eq!((w.dtype(), w.shape()), (g.dtype(), g.shape()), "{what}");
    for i in 0..w.len() {
        let (a, b) = (as_f64(w.get(i)), as_f64(g.get(i)));
        let ok =
            (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rtol * a.abs().max(b.abs());
        assert!(ok, "element {i}: {a} vs {b}, {what}");
    }
}

fn as_f64(s: Scalar) -> f64 {
    match s {
        Scalar::Bool(b) => b as u8 as f64,
        Scalar::Int(x) => x as f64,
        Scalar::UInt(x) => x as f64,
        Scalar::Float(x, _) => x,
        Scalar::Complex(re, _, _) => re,
    }
}

/// Asserts that rewriting `case` with `include` leaves its printed form
/// as it was (the rewrites under test must not fire).
pub fn assert_unchanged(case: &Case, include: &[&str]) {
    let before = printed(&case.fgraph());
    let mut fg = case.fgraph();
    rewrite(&mut fg, include);
    assert_eq!(
        printed(&fg),
        before,
        "rewriting with {include:?} changed the graph"
    );
}

/// Runs `fg` on `args` (unrewritten, unprofiled): output 0's dtype, and
/// its values as float64.
pub fn output_f64(fg: &FunctionGraph, args: &[Tensor]) -> (crate::dtype::DType, Vec<f64>) {
    let args: Vec<Value> = args.iter().cloned().map(Value::from).collect();
    let out = Program::link(fg, HashMap::new(), &LinkOptions::default())
        .and_then(|p| p.run(&args))
        .expect("runs");
    let t = out[0].tensor().expect("a tensor output");
    let f = crate::kernels::elemwise::cast::cast(t, crate::dtype::DType::Float64).expect("a cast");
    (t.dtype(), f.as_slice::<f64>().expect("float64").to_vec())
}

/// A vector of `values` in `dtype`.
pub fn vector(values: &[f64], dtype: crate::dtype::DType) -> Tensor {
    let t = Tensor::from_vec(vec![values.len()], values.to_vec()).expect("a vector");
    crate::kernels::elemwise::cast::cast(&t, dtype).expect("a cast")
}

/// The phases the stabilizing rewrites run in (`fast_run` up to them).
pub const TO_STABILIZE: [&str; 2] = ["canonicalize", "stabilize"];

/// A graph with a 2-d input `x`, `exp(x)`, and `sum(exp(x), axis)` with
/// the summed axes put back (length 1) when `keep`: what the softmax and
/// log-sum-exp rewrites look for.
pub fn sum_exp_2d(
    dtype: crate::dtype::DType,
    axis: Option<&[i64]>,
    keep: bool,
) -> (Graph, [VarId; 3]) {
    let (mut g, [x]) = crate::graph::testing::graph_with([("x", dtype, 2)]);
    let e = crate::build::exp(&mut g, x).expect("exp");
    let mut s = crate::build::sum(&mut g, e, axis).expect("sum");
    if keep {
        let removed: Vec<usize> =
            axis.map_or(vec![0, 1], |a| a.iter().map(|&i| i as usize).collect());
        let order = crate::build::reinsert_axes(2, &removed);
        s = crate::build::dimshuffle(&mut g, s, order).expect("dimshuffle");
    }
    (g, [x, e, s])
}

/// A named input of `dtype` with this static shape (`None`: unknown).
pub fn input(
    g: &mut Graph,
    dtype: crate::dtype::DType,
    shape: &[Option<u64>],
    name: &str,
) -> VarId {
    let ty = crate::types::TensorType::new(dtype, shape.iter().copied()).expect("a tensor type");
    g.input(ty, Some(name))
}

/// A fresh graph with float64 vector inputs of these names.
pub fn vectors<const N: usize>(names: [&str; N]) -> (Graph, [VarId; N]) {
    crate::graph::testing::graph_with(names.map(|n| (n, crate::dtype::DType::Float64, 1)))
}

/// How many nodes of `fg` destroy an input (after the inplace passes).
pub fn inplace_nodes(fg: &FunctionGraph) -> usize {
    fg.apply_nodes()
        .filter(|&n| !fg.graph().node(n).op.destroy_map().is_empty())
        .count()
}
