//! Property tests: random graphs of pure, view and destroying ops, checked
//! against a from-scratch oracle that follows PyTensor's rules literally
//! (roots by walking owners' `view_map`, destroyers per root, aliasing,
//! and Kahn's algorithm over data edges plus reader-before-destroyer
//! edges). The handler accepts exactly what the oracle accepts, orders
//! every reader of a destroyed value before its destroyer, and judges a
//! replacement the same incrementally as a new handler does from scratch.

use super::tests::MapOp;
use super::*;
use crate::dtype::DType;
use crate::graph::Graph;
use crate::ops::{IoMap, OpRef};
use crate::types::TensorType;
use proptest::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// A node to build: an op kind and picks among the variables so far.
type Pick = (u8, Vec<u16>);

#[derive(Clone, Debug)]
struct Recipe {
    n_inputs: usize,
    indestructible: Vec<bool>,
    with_constant: bool,
    nodes: Vec<Pick>,
    outputs: Vec<u16>,
    edits: Vec<(u16, Pick)>,
}

fn recipe() -> impl Strategy<Value = Recipe> {
    let pick = (0u8..8, prop::collection::vec(any::<u16>(), 2));
    (
        1usize..4,
        prop::collection::vec(prop::bool::weighted(0.15), 3),
        any::<bool>(),
        prop::collection::vec(pick.clone(), 1..12),
        prop::collection::vec(any::<u16>(), 1..4),
        prop::collection::vec((any::<u16>(), pick), 0..6),
    )
        .prop_map(
            |(n_inputs, indestructible, with_constant, nodes, outputs, edits)| Recipe {
                n_inputs,
                indestructible,
                with_constant,
                nodes,
                outputs,
                edits,
            },
        )
}

/// The op of each kind, and how many inputs it takes.
fn op_of(kind: u8) -> (OpRef, usize) {
    let map = |label: &str, n_out, view: IoMap, destroy: IoMap, same| -> OpRef {
        Arc::new(MapOp {
            label: label.into(),
            n_out,
            view,
            destroy,
            same,
            ..MapOp::default()
        })
    };
    match kind {
        0 => (map("f", 1, vec![], vec![], vec![]), 1),
        1 => (map("g", 1, vec![], vec![], vec![]), 2),
        2 => (map("view", 1, vec![(0, vec![0])], vec![], vec![]), 1),
        3 => (map("view1", 1, vec![(0, vec![1])], vec![], vec![]), 2),
        4 => (map("inplace", 1, vec![], vec![(0, vec![0])], vec![]), 2),
        5 => (map("both", 1, vec![], vec![(0, vec![0, 1])], vec![]), 2),
        6 => (
            map("same_ok", 1, vec![], vec![(0, vec![0])], vec![(0, 1)]),
            2,
        ),
        _ => (
            map("split", 2, vec![(0, vec![0])], vec![(1, vec![1])], vec![]),
            2,
        ),
    }
}

/// Applies a pick to the variables `pool`; returns the node.
fn build(g: &mut Graph, pool: &[VarId], (kind, picks): &Pick) -> NodeId {
    let (op, arity) = op_of(*kind);
    let inputs: Vec<VarId> = (0..arity)
        .map(|k| pool[picks[k] as usize % pool.len()])
        .collect();
    g.apply(op, &inputs).expect("MapOp accepts any inputs")
}

fn graph_of(r: &Recipe) -> (Graph, Vec<VarId>, Vec<VarId>, Vec<VarId>) {
    let mut g = Graph::new();
    let ty = TensorType::scalar(DType::Float64);
    let inputs: Vec<VarId> = (0..r.n_inputs).map(|_| g.input(ty.clone(), None)).collect();
    for (k, &v) in inputs.iter().enumerate() {
        g.var_mut(v).indestructible = r.indestructible[k];
    }
    let mut pool = inputs.clone();
    if r.with_constant {
        pool.push(g.tensor_constant(crate::tensor::Tensor::scalar(1.0f64)));
    }
    let mut made = Vec::new();
    for pick in &r.nodes {
        let n = build(&mut g, &pool, pick);
        pool.extend(g.node(n).outputs.iter().copied());
        made.extend(g.node(n).outputs.iter().copied());
    }
    let mut outputs = vec![*made.last().expect("at least one node")];
    outputs.extend(r.outputs.iter().map(|&k| made[k as usize % made.len()]));
    (g, inputs, outputs, pool)
}

/// PyTensor's rules from scratch: `None` if the graph is inconsistent,
/// else each destroyer's other readers of what it destroys.
fn oracle(fg: &FunctionGraph) -> Option<FxHashMap<NodeId, FxHashSet<NodeId>>> {
    let g = fg.graph();
    let parent = |v: VarId| -> Option<VarId> {
        let crate::graph::VarKind::Output { node, index } = g.var(v).kind else {
            return None;
        };
        let map = g.node(node).op.view_map();
        let ins = &map.iter().find(|(o, _)| *o == index)?.1;
        Some(g.node(node).inputs[ins[0]])
    };
    let root = |mut v: VarId| {
        while let Some(p) = parent(v) {
            v = p;
        }
        v
    };
    let nodes: Vec<NodeId> = fg.apply_nodes().collect();
    let mut owners: FxHashMap<VarId, FxHashSet<NodeId>> = FxHashMap::default();
    for &n in &nodes {
        for p in destroyed_positions(fg, n) {
            owners
                .entry(root(g.node(n).inputs[p]))
                .or_default()
                .insert(n);
        }
    }
    if owners.values().any(|d| d.len() > 1) {
        return None;
    }
    let vars: Vec<VarId> = fg.variables().chain(fg.inputs().iter().copied()).collect();
    for &v in &vars {
        let bad = g.var(v).is_constant() || g.var(v).indestructible;
        if bad && owners.contains_key(&root(v)) {
            return None;
        }
    }
    let mut readers: FxHashMap<NodeId, FxHashSet<NodeId>> = FxHashMap::default();
    for &n in &nodes {
        let node = g.node(n);
        let same = node.op.destroyhandler_tolerate_same();
        for p in destroyed_positions(fg, n) {
            let dv = node.inputs[p];
            for (i, &inp) in node.inputs.iter().enumerate() {
                let tolerated = i == p || same.contains(&(p, i));
                if root(inp) == root(dv) && (!tolerated || inp != dv) {
                    return None;
                }
            }
            let set = readers.entry(n).or_default();
            for &v in vars.iter().filter(|&&v| root(v) == root(dv)) {
                for c in fg.clients(v) {
                    if let Client::Node(r, _) = *c {
                        if r != n {
                            set.insert(r);
                        }
                    }
                }
            }
        }
    }
    acyclic(fg, &nodes, &readers).then_some(readers)
}

/// Kahn's algorithm over data edges plus reader-before-destroyer edges.
fn acyclic(
    fg: &FunctionGraph,
    nodes: &[NodeId],
    readers: &FxHashMap<NodeId, FxHashSet<NodeId>>,
) -> bool {
    let g = fg.graph();
    let deps = |n: NodeId| -> Vec<NodeId> {
        let mut d: Vec<NodeId> = g
            .node(n)
            .inputs
            .iter()
            .filter_map(|&v| g.var(v).owner())
            .collect();
        d.extend(readers.get(&n).into_iter().flatten());
        d
    };
    let mut done: FxHashSet<NodeId> = FxHashSet::default();
    loop {
        let ready: Vec<NodeId> = nodes
            .iter()
            .copied()
            .filter(|n| !done.contains(n) && deps(*n).iter().all(|d| done.contains(d)))
            .collect();
        if ready.is_empty() {
            return done.len() == nodes.len();
        }
        done.extend(ready);
    }
}

/// The handler's verdict, and for an accepted graph a check that its
/// toposort runs every reader before the destroyer it must precede.
fn judge(fg: &mut FunctionGraph) -> std::result::Result<bool, TestCaseError> {
    let expected = oracle(fg);
    let verdict = fg.validate();
    prop_assert_eq!(verdict.is_ok(), expected.is_some(), "{:?}", verdict.err());
    if let Some(readers) = expected {
        let order = fg.toposort().expect("an accepted graph sorts");
        let at: FxHashMap<NodeId, usize> = order.iter().enumerate().map(|(k, &n)| (n, k)).collect();
        for (d, rs) in &readers {
            for r in rs {
                prop_assert!(at[r] < at[d], "reader {:?} after destroyer {:?}", r, d);
            }
        }
        return Ok(true);
    }
    Ok(false)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn the_handler_accepts_exactly_the_consistent_graphs(r in recipe()) {
        let (g, inputs, outputs, _) = graph_of(&r);
        let mut fg = FunctionGraph::new(g, inputs, outputs).unwrap();
        fg.attach_feature(Box::new(DestroyHandler::new())).unwrap();
        judge(&mut fg)?;
    }

    #[test]
    fn replacements_are_judged_as_from_scratch(r in recipe()) {
        let (g, inputs, outputs, pool) = graph_of(&r);
        let mut fg = FunctionGraph::new(g, inputs, outputs).unwrap();
        fg.attach_feature(Box::new(DestroyHandler::new())).unwrap();
        if !judge(&mut fg)? {
            return Ok(());
        }
        for (target, pick) in &r.edits {
            let target = pool[*target as usize % pool.len()];
            let n = build(fg.graph_mut(), &pool, pick);
            let new = fg.graph().node(n).outputs[0];
            if !fg.has_var(target) || fg.graph().var(target).ty != fg.graph().var(new).ty {
                continue;
            }
            let mut fresh = fg.clone_graph();
            let replaced = fresh.replace_all(&[(target, new)], "edit");
            let kept = fg.replace_all_validate(&[(target, new)], "edit");
            if replaced.is_err() {
                prop_assert!(kept.is_err());
                continue;
            }
            fresh.attach_feature(Box::new(DestroyHandler::new())).unwrap();
            let from_scratch = fresh.validate();
            prop_assert_eq!(kept.is_ok(), from_scratch.is_ok(), "{:?} vs {:?}", kept, from_scratch);
            prop_assert_eq!(kept.is_ok(), oracle(&fresh).is_some());
            fg.check_integrity().unwrap();
            prop_assert!(judge(&mut fg)?);
        }
    }
}

/// A cycle through two destroyers, found by the property above: `g(d2, x1)`
/// reads `x1` (so it runs before `inplace(x1, x0)`, which reads `x0`, so
/// that runs before `d2 = inplace(x0, x2)`, which `g` reads).
#[test]
fn a_cycle_through_two_destroyers_is_refused() {
    let r = Recipe {
        n_inputs: 3,
        indestructible: vec![false; 3],
        with_constant: true,
        nodes: vec![
            (2, vec![22489, 0]),
            (0, vec![0, 0]),
            (4, vec![46909, 1140]),
            (0, vec![0, 0]),
            (4, vec![7184, 1018]),
            (0, vec![0, 0]),
            (1, vec![1728, 6931]),
        ],
        outputs: vec![62169, 7907],
        edits: vec![],
    };
    let (g, inputs, outputs, _) = graph_of(&r);
    let mut fg = FunctionGraph::new(g, inputs, outputs).unwrap();
    fg.attach_feature(Box::new(DestroyHandler::new())).unwrap();
    assert!(oracle(&fg).is_none());
    assert!(fg.validate().is_err());
}
