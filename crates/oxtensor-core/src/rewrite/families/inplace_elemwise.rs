//! `inplace_elemwise_opt` (PyTensor's `InplaceElemwiseOptimizer`, optdb
//! position 75, after fusion): each `Elemwise` node is offered the inputs
//! it could overwrite (same type as its output, not protected, not
//! destroyed already, sharing memory with no other input:
//! [`inplace_candidates`]) and becomes `Elemwise{inplace_pattern}` on the
//! first one the `DestroyHandler` and the `Supervisor` accept. One
//! validation per candidate; the handler's work per validation is local to
//! what the change touches.

use super::inplace_pass::{self, keep_protected, InplacePass};
use crate::error::{Error, Result};
use crate::graph::destroy::inplace_candidates;
use crate::graph::{CycleCheck, DestroyHandler, FunctionGraph, NodeId, VarId};
use crate::ops::elemwise::Elemwise;
use crate::ops::OpRef;
use crate::rewrite::RewriteDb;
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// The node's op, if it is a pure single-output `Elemwise`.
fn pure_elemwise(fg: &FunctionGraph, n: NodeId) -> Option<&Elemwise> {
    let node = fg.graph().node(n);
    let e = node.op.as_any().downcast_ref::<Elemwise>()?;
    (e.inplace_pattern.is_empty() && node.outputs.len() == 1).then_some(e)
}

/// The inputs of `n` whose type is its output's: only those can hold it.
fn same_type_inputs(fg: &FunctionGraph, n: NodeId) -> Vec<VarId> {
    let g = fg.graph();
    let node = g.node(n);
    let out_ty = &g.var(node.outputs[0]).ty;
    let mut out: Vec<VarId> = Vec::new();
    for &v in &node.inputs {
        if g.var(v).ty == *out_ty && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Tries to make `n` overwrite one of its inputs; whether it did.
fn try_node(fg: &mut FunctionGraph, n: NodeId, protected: &mut FxHashSet<VarId>) -> Result<bool> {
    let Some(e) = pure_elemwise(fg, n) else {
        return Ok(false);
    };
    let scalar_op = e.scalar_op.clone();
    let Some(dh) = fg.feature::<DestroyHandler>() else {
        return Ok(false);
    };
    let candidates = inplace_candidates(fg, dh, &same_type_inputs(fg, n), protected);
    let (inputs, old) = {
        let node = fg.graph().node(n);
        (node.inputs.clone(), node.outputs[0])
    };
    for c in candidates {
        let Some(pos) = inputs.iter().position(|&v| v == c) else {
            continue;
        };
        let op: OpRef = Arc::new(Elemwise {
            scalar_op: scalar_op.clone(),
            inplace_pattern: vec![(0, pos)],
        });
        let new_node = fg.graph_mut().apply(op, &inputs)?;
        let new = fg.graph().node(new_node).outputs[0];
        // The replacement reads what the node read: no new data edge can
        // close a cycle, and the handler orders (and checks) the new ones.
        let before = fg.set_cycle_check(CycleCheck::Shallow);
        let result = fg.replace_all_validate(&[(old, new)], "inplace_elemwise_opt");
        fg.set_cycle_check(before);
        match result {
            Ok(()) => {
                keep_protected(protected, old, new);
                return Ok(true);
            }
            Err(Error::Inconsistency(_)) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(false)
}

/// The pass; see the module docs.
pub(super) fn pass() -> InplacePass {
    InplacePass {
        name: "inplace_elemwise_opt",
        try_node,
    }
}

/// Registers the pass at position 75.0 (see `inplace_pass.rs`).
pub(super) fn register(db: &RewriteDb) -> Result<()> {
    inplace_pass::register(db, pass(), 75.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::compile::{compile, FunctionInput, FunctionSpec, Mode};

    use crate::graph::Graph;
    use crate::rewrite::families::testing::vectors;
    use crate::rewrite::{GraphRewriter, RunContext};
    use crate::tensor::{Scalar, Tensor};

    use crate::value::Value;

    fn inplace_nodes(fg: &FunctionGraph) -> usize {
        fg.apply_nodes()
            .filter(|&n| !fg.graph().node(n).op.destroy_map().is_empty())
            .count()
    }

    /// Compiles with the inplace pass; the inplace nodes and the first output.
    fn run(
        inputs: Vec<FunctionInput>,
        g: Graph,
        out: VarId,
        args: &[Vec<f64>],
    ) -> (usize, Vec<f64>) {
        let spec = FunctionSpec {
            inputs,
            outputs: vec![(out, false)],
            ..FunctionSpec::default()
        };
        // Unfused: fusion would make each chain one node reading only the
        // (protected) inputs, leaving no intermediate to overwrite.
        let mode = Mode::fast_run()
            .including(&["inplace"])
            .excluding(&["fusion"]);
        let compiled = compile(g, spec, &mode).unwrap();
        let n = inplace_nodes(&compiled.built.fgraph);
        let vals: Vec<Value> = args
            .iter()
            .map(|a| Value::Tensor(Tensor::from_vec(vec![a.len()], a.clone()).unwrap()))
            .collect();
        let res = compiled.program.run(&vals).unwrap();
        let t = res[0].tensor().unwrap();
        let got = (0..t.len())
            .map(|i| match t.get(i) {
                Scalar::Float(x, _) => x,
                other => panic!("{other:?}"),
            })
            .collect();
        (n, got)
    }

    #[test]
    fn intermediates_are_overwritten_and_inputs_are_not() {
        let mut g = Graph::new();
        let [x, y] = vectors(&mut g, &["x", "y"])[..] else {
            unreachable!()
        };
        let a = build::exp(&mut g, x).unwrap();
        let b = build::add(&mut g, a, y).unwrap();
        let c = build::log(&mut g, b).unwrap();
        let ins = vec![FunctionInput::new(x), FunctionInput::new(y)];
        let (n, out) = run(ins, g, c, &[vec![0.0, 1.0], vec![1.0, 2.0]]);
        // exp(x) reads a protected input; what follows overwrites intermediates.
        assert!(n >= 1, "{n} inplace nodes");
        let want = [2f64.ln(), (1f64.exp() + 2.0).ln()];
        assert!(
            out.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12),
            "{out:?}"
        );
    }

    #[test]
    fn a_mutable_input_may_be_overwritten() {
        let mut g = Graph::new();
        let [x] = vectors(&mut g, &["x"])[..] else {
            unreachable!()
        };
        let e = build::exp(&mut g, x).unwrap();
        let mut input = FunctionInput::new(x);
        let (kept, _) = run(vec![input.clone()], g.clone(), e, &[vec![0.0]]);
        assert_eq!(kept, 0, "a protected input was destroyed");
        input.mutable = true;
        let (n, out) = run(vec![input], g, e, &[vec![0.0]]);
        assert_eq!(n, 1);
        assert_eq!(out, vec![1.0]);
    }

    /// The pass over a chain of `n` elementwise nodes: every node but the
    /// first becomes inplace, one validation each. Prints the cost per
    /// candidate (`cargo test --release -- --ignored --nocapture
    /// inplace_cost`); it should not grow with `n`.
    #[test]
    #[ignore = "a measurement"]
    fn inplace_cost_per_candidate() {
        for n in [1_000usize, 10_000, 100_000] {
            let mut g = Graph::new();
            let [x] = vectors(&mut g, &["x"])[..] else {
                unreachable!()
            };
            let mut v = x;
            for _ in 0..n {
                v = build::exp(&mut g, v).unwrap();
            }
            let mut fg = FunctionGraph::new(g, vec![x], vec![v]).unwrap();
            let t = std::time::Instant::now();
            let mut run = RunContext::new(Default::default());
            pass().apply(&mut fg, &mut run).unwrap();
            let took = t.elapsed();
            // The last node's output is protected; x is left alone too, as an
            // input (unprotected here: no Supervisor).
            assert!(inplace_nodes(&fg) >= n - 1);
            eprintln!(
                "inplace_elemwise_opt over {n} nodes: {:.1} ms, {:.2} us per candidate",
                took.as_secs_f64() * 1e3,
                took.as_secs_f64() * 1e6 / n as f64
            );
        }
    }
}
