//! `inplace_elemwise_opt` (PyTensor's `InplaceElemwiseOptimizer`, optdb
//! position 75, after fusion): each `Elemwise` node, multi-output
//! `Composite`s included, is offered the inputs it could overwrite (not
//! protected, not destroyed already, sharing memory with no other input:
//! [`inplace_candidates`]), each output paired with the first unpaired
//! candidate of its type. As PyTensor tries the pairs, all of them are
//! tried at once, then (when that is refused) one at a time, each
//! accepted pair kept: `Elemwise{inplace_pattern}` wherever the
//! `DestroyHandler` and the `Supervisor` accept it. One validation per
//! try; the handler's work per validation is local to what the change
//! touches.

use super::inplace_pass::{self, replace_validated, InplacePass, Offer};
use crate::error::Result;
use crate::graph::destroy::inplace_candidates;
use crate::graph::{DestroyHandler, FunctionGraph, NodeId, VarId};
use crate::ops::elemwise::Elemwise;
use crate::ops::OpRef;
use crate::rewrite::RewriteDb;
use crate::scalar::ScalarOp;
use crate::types::Type;
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// The node's scalar op, if it is a pure `Elemwise` (no inplace pattern).
fn pure_elemwise(fg: &FunctionGraph, n: NodeId) -> Option<ScalarOp> {
    let e = fg.graph().node(n).op.as_any().downcast_ref::<Elemwise>()?;
    e.inplace_pattern.is_empty().then(|| e.scalar_op.clone())
}

/// `(output, input)` pairs: each output with the first candidate input of
/// its type not paired yet (an input holds one output).
fn candidate_pairs(
    fg: &FunctionGraph,
    n: NodeId,
    protected: &FxHashSet<VarId>,
) -> Vec<(usize, usize)> {
    let Some(dh) = fg.feature::<DestroyHandler>() else {
        return Vec::new();
    };
    let g = fg.graph();
    let node = g.node(n);
    let mut distinct: Vec<VarId> = Vec::new();
    for &v in &node.inputs {
        if !distinct.contains(&v) {
            distinct.push(v);
        }
    }
    let candidates = inplace_candidates(fg, dh, &distinct, protected);
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (o, &out) in node.outputs.iter().enumerate() {
        let fits = |&c: &&VarId| g.var(*c).ty == g.var(out).ty;
        let free = |c: &&VarId| !pairs.iter().any(|&(_, i)| node.inputs[i] == **c);
        if let Some(&c) = candidates.iter().filter(fits).find(free) {
            if let Some(i) = node.inputs.iter().position(|&v| v == c) {
                pairs.push((o, i));
            }
        }
    }
    pairs
}

/// Replaces the node by its version with `pattern`; the new node if the
/// handler and the Supervisor accepted it.
fn try_pattern(
    fg: &mut FunctionGraph,
    n: NodeId,
    scalar_op: &ScalarOp,
    pattern: Vec<(usize, usize)>,
    protected: &mut FxHashSet<VarId>,
) -> Result<Option<NodeId>> {
    let op: OpRef = Arc::new(Elemwise {
        scalar_op: scalar_op.clone(),
        inplace_pattern: pattern,
    });
    // The op as built now must give the node's own output types: a node
    // built under another floatX (`cast_policy="numpy+floatX"`) may not
    // (PyTensor's rewriter rebuilds the node and drops such a pair too).
    let g = fg.graph();
    let node = g.node(n);
    let ins: Vec<_> = node.inputs.iter().map(|&v| &g.var(v).ty).collect();
    let same = op.output_types(&ins).is_ok_and(|tys| {
        tys.len() == node.outputs.len()
            && tys
                .iter()
                .zip(&node.outputs)
                .all(|(t, &o)| same_dtype(t, &g.var(o).ty))
    });
    if !same {
        return Ok(None);
    }
    replace_validated(fg, n, op, protected, "inplace_elemwise_opt")
}

/// Whether two types are tensors of one dtype (static lengths may differ:
/// a node's recorded type can know more than its op infers).
fn same_dtype(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Tensor(x), Type::Tensor(y)) => x.dtype == y.dtype,
        _ => a == b,
    }
}

/// Tries to make `n` overwrite its inputs; whether it did.
fn try_node(fg: &mut FunctionGraph, n: NodeId, protected: &mut FxHashSet<VarId>) -> Result<bool> {
    let Some(scalar_op) = pure_elemwise(fg, n) else {
        return Ok(false);
    };
    let pairs = candidate_pairs(fg, n, protected);
    if pairs.len() > 1 && try_pattern(fg, n, &scalar_op, pairs.clone(), protected)?.is_some() {
        return Ok(true);
    }
    let (mut node, mut kept) = (n, Vec::new());
    for pair in pairs {
        let mut pattern = kept.clone();
        pattern.push(pair);
        if let Some(new) = try_pattern(fg, node, &scalar_op, pattern.clone(), protected)? {
            (node, kept) = (new, pattern);
        }
    }
    Ok(!kept.is_empty())
}

/// The pass; see the module docs.
pub(super) fn pass() -> InplacePass {
    InplacePass {
        name: "inplace_elemwise_opt",
        offer: Offer::Node(try_node),
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
    use crate::rewrite::families::testing::{inplace_nodes, vectors};
    use crate::rewrite::{GraphRewriter, RunContext};
    use crate::tensor::Tensor;

    use crate::value::Value;

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
        let got = res[0]
            .tensor()
            .unwrap()
            .float_values()
            .expect("float values");
        (n, got)
    }

    #[test]
    fn intermediates_are_overwritten_and_inputs_are_not() {
        let (mut g, [x, y]) = vectors(["x", "y"]);
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
        let (mut g, [x]) = vectors(["x"]);
        let e = build::exp(&mut g, x).unwrap();
        let mut input = FunctionInput::new(x);
        let (kept, _) = run(vec![input.clone()], g.clone(), e, &[vec![0.0]]);
        assert_eq!(kept, 0, "a protected input was destroyed");
        input.mutable = true;
        let (n, out) = run(vec![input], g, e, &[vec![0.0]]);
        assert_eq!(n, 1);
        assert_eq!(out, vec![1.0]);
    }

    /// `a = exp(x) * y` and `a - sin(y)` fuse into one node of two
    /// outputs; with both inputs mutable each output takes one of them,
    /// and at run time each output is written into its input's buffer,
    /// past a block (by blocks) and within one (computed, then copied).
    #[test]
    fn each_output_of_a_fused_node_may_take_an_input() {
        let (mut g, [x, y]) = vectors(["x", "y"]);
        let e = build::exp(&mut g, x).unwrap();
        let a = build::mul(&mut g, e, y).unwrap();
        let s = build::sin(&mut g, y).unwrap();
        let b = build::sub(&mut g, a, s).unwrap();
        let inputs = [x, y].map(|v| {
            let mut i = FunctionInput::new(v);
            i.mutable = true;
            i
        });
        let spec = FunctionSpec {
            inputs: inputs.to_vec(),
            outputs: vec![(a, false), (b, false)],
            ..FunctionSpec::default()
        };
        let compiled = compile(g, spec, &Mode::fast_run()).unwrap();
        let fg = &compiled.built.fgraph;
        let maps: Vec<_> = fg
            .apply_nodes()
            .map(|n| fg.graph().node(n).op.destroy_map())
            .filter(|m| m.len() == 2)
            .collect();
        assert_eq!(maps.len(), 1, "one node destroying two inputs");
        for n in [3000, 100] {
            let xs: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
            let xv = Tensor::from_vec(vec![n], xs.clone()).unwrap();
            let yv = Tensor::from_vec(vec![n], vec![2.0f64; n]).unwrap();
            let (xp, yp) = (xv.as_ptr(), yv.as_ptr());
            let res = compiled.program.run(vec![xv.into(), yv.into()]).unwrap();
            let got: Vec<&[f64]> = res
                .iter()
                .map(|v| v.tensor().unwrap().as_slice::<f64>().unwrap())
                .collect();
            for (i, &xi) in xs.iter().enumerate() {
                let want = xi.exp() * 2.0;
                assert!((got[0][i] - want).abs() < 1e-12);
                assert!((got[1][i] - (want - 2f64.sin())).abs() < 1e-12);
            }
            let mut ptrs: Vec<_> = res.iter().map(|v| v.tensor().unwrap().as_ptr()).collect();
            ptrs.sort();
            let mut want = vec![xp, yp];
            want.sort();
            assert_eq!(ptrs, want, "n={n}: each output in a mutable input");
        }
    }

    /// The pass over a chain of `n` elementwise nodes: every node but the
    /// first becomes inplace, one validation each. Prints the cost per
    /// candidate (`cargo test --release -- --ignored --nocapture
    /// inplace_cost`); it should not grow with `n`.
    #[test]
    #[ignore = "a measurement"]
    fn inplace_cost_per_candidate() {
        for n in [1_000usize, 10_000, 100_000] {
            let (mut g, [x]) = vectors(["x"]);
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
