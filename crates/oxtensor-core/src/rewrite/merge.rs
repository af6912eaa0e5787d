//! Merging (PyTensor's `MergeFeature` and `MergeOptimizer`): nodes that
//! apply equal ops (`==`, `__props__`) to the same inputs compute the same
//! thing, and so do constants of equal type and value; each such pair is
//! merged into one. The feature keeps an index of nodes by (op hash,
//! inputs) and of constants by (type, value hash), updated on import,
//! prune and input change, and schedules a pair whenever a newcomer finds
//! its twin; the pass merges what was scheduled. So merging costs the size
//! of what changed, whatever the size of the graph.

use super::rewriter::GraphRewriter;
use super::run::RunContext;
use crate::error::Result;
use crate::graph::{
    Client, CycleCheck, Feature, FunctionGraph, InputChange, NodeId, Value, VarId, VarKind,
};
use crate::ops::ops_equal;
use crate::tensor::{Scalar, Tensor};
use crate::types::Type;
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use std::hash::{DefaultHasher, Hash, Hasher};

type NodeKey = (u64, SmallVec<[VarId; 4]>);

/// A pair to merge: the first is replaced by the second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Twin {
    Nodes(NodeId, NodeId),
    Constants(VarId, VarId),
}

/// The index of nodes and constants, and the pairs found.
#[derive(Default)]
pub struct MergeFeature {
    nodes: HashMap<NodeKey, SmallVec<[NodeId; 1]>>,
    key_of: HashMap<NodeId, NodeKey>,
    constants: HashMap<u64, SmallVec<[VarId; 1]>>,
    scheduled: Vec<Twin>,
    /// Pairs the graph refused once (a validation failure).
    blacklist: Vec<(NodeId, NodeId)>,
}

impl MergeFeature {
    fn key(fg: &FunctionGraph, node: NodeId) -> NodeKey {
        let n = fg.graph().node(node);
        (n.op.op_hash(), n.inputs.iter().copied().collect())
    }

    fn add_node(&mut self, fg: &FunctionGraph, node: NodeId) {
        let key = Self::key(fg, node);
        let n = fg.graph().node(node);
        let bucket = self.nodes.entry(key.clone()).or_default();
        let twin = bucket
            .iter()
            .copied()
            .find(|&c| c != node && fg.has_node(c) && ops_equal(&fg.graph().node(c).op, &n.op));
        match twin {
            Some(c) if !self.blacklist.contains(&(node, c)) => {
                self.scheduled.push(Twin::Nodes(node, c))
            }
            _ => bucket.push(node),
        }
        self.key_of.insert(node, key);
        for &inp in &n.inputs {
            self.add_constant(fg, inp);
        }
    }

    fn remove_node(&mut self, node: NodeId) {
        let Some(key) = self.key_of.remove(&node) else {
            return;
        };
        if let Some(bucket) = self.nodes.get_mut(&key) {
            bucket.retain(|n| *n != node);
            if bucket.is_empty() {
                self.nodes.remove(&key);
            }
        }
    }

    fn add_constant(&mut self, fg: &FunctionGraph, v: VarId) {
        let Some(key) = constant_key(fg, v) else {
            return;
        };
        let bucket = self.constants.entry(key).or_default();
        if bucket.contains(&v) {
            return;
        }
        match bucket.iter().copied().find(|&c| same_constant(fg, c, v)) {
            Some(c) => self.scheduled.push(Twin::Constants(v, c)),
            None => bucket.push(v),
        }
    }
}

/// A constant's index key: its type and (a prefix of) its values.
fn constant_key(fg: &FunctionGraph, v: VarId) -> Option<u64> {
    let data = fg.graph().var(v);
    let VarKind::Constant(c) = &data.kind else {
        return None;
    };
    let mut h = DefaultHasher::new();
    match (&data.ty, &c.value) {
        (Type::Tensor(t), Value::Tensor(value)) => {
            t.hash(&mut h);
            hash_values(value, &mut h);
        }
        // Host constants are compared one by one (their values are opaque).
        _ => 0u8.hash(&mut h),
    }
    Some(h.finish())
}

/// Hashes up to the first 16 elements: enough to tell most constants
/// apart, and bounded for large ones (equality is checked in full).
fn hash_values(t: &Tensor, h: &mut DefaultHasher) {
    t.shape().hash(h);
    for i in 0..t.len().min(16) {
        match t.get(i) {
            Scalar::Bool(b) => b.hash(h),
            Scalar::Int(x) => x.hash(h),
            Scalar::UInt(x) => x.hash(h),
            Scalar::Float(x, _) => canonical_bits(x).hash(h),
            Scalar::Complex(re, im, _) => (canonical_bits(re), canonical_bits(im)).hash(h),
        }
    }
}

/// Float bits with every NaN alike (NaN constants merge) and -0 apart from 0.
fn canonical_bits(x: f64) -> u64 {
    if x.is_nan() {
        f64::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

/// Whether `a` and `b` compute the same thing as merging sees it: the same
/// variable, equal constants, or the same output of nodes with equal ops
/// over inputs that are again the same, looked at down to `depth` nodes.
/// A rewriter proposing a fresh copy of what is already there changes
/// nothing (and an equilibrium would otherwise ask it again forever).
pub(crate) fn same_computation(fg: &FunctionGraph, a: VarId, b: VarId, depth: usize) -> bool {
    if a == b || same_constant(fg, a, b) {
        return true;
    }
    let g = fg.graph();
    depth > 0 && g.var(a).ty == g.var(b).ty && same_apply(fg, a, b, depth)
}

/// Whether `a` and `b` are the same output of nodes with equal ops whose
/// inputs are the [`same_computation`] down to `depth` nodes (their types
/// then agree too, as ops type their outputs from their inputs).
pub(crate) fn same_apply(fg: &FunctionGraph, a: VarId, b: VarId, depth: usize) -> bool {
    let g = fg.graph();
    let (va, vb) = (g.var(a), g.var(b));
    if depth == 0 {
        return false;
    }
    let (
        VarKind::Output {
            node: na,
            index: ia,
        },
        VarKind::Output {
            node: nb,
            index: ib,
        },
    ) = (&va.kind, &vb.kind)
    else {
        return false;
    };
    let (na, nb) = (g.node(*na), g.node(*nb));
    ia == ib
        && na.inputs.len() == nb.inputs.len()
        && crate::ops::ops_equal(&na.op, &nb.op)
        && na
            .inputs
            .iter()
            .zip(&nb.inputs)
            .all(|(&x, &y)| same_computation(fg, x, y, depth - 1))
}

fn same_constant(fg: &FunctionGraph, a: VarId, b: VarId) -> bool {
    let (da, db) = (fg.graph().var(a), fg.graph().var(b));
    match (da.constant(), db.constant()) {
        (Some(ca), Some(cb)) => da.ty == db.ty && ca.same_value(cb),
        _ => false,
    }
}

impl Feature for MergeFeature {
    crate::graph::feature_identity!("MergeFeature");

    fn on_attach(&mut self, fg: &FunctionGraph) -> Result<()> {
        crate::graph::attach_once::<MergeFeature>(fg, "MergeFeature is already attached")?;
        for node in fg.toposort()? {
            self.add_node(fg, node);
        }
        for &out in fg.outputs() {
            self.add_constant(fg, out);
        }
        Ok(())
    }

    fn on_import(&mut self, fg: &FunctionGraph, node: NodeId, _reason: &str) -> Result<()> {
        self.add_node(fg, node);
        Ok(())
    }

    fn on_prune(&mut self, _fg: &FunctionGraph, node: NodeId, _reason: &str) -> Result<()> {
        self.remove_node(node);
        Ok(())
    }

    fn on_change_input(&mut self, fg: &FunctionGraph, change: &InputChange) -> Result<()> {
        let InputChange { client, new, .. } = *change;
        match client {
            Client::Node(node, _) if fg.has_node(node) => {
                self.remove_node(node);
                self.add_node(fg, node);
            }
            Client::Output(_) => self.add_constant(fg, new),
            Client::Node(..) => {}
        }
        Ok(())
    }
}

/// The merge pass: merges every scheduled pair that still holds.
pub struct MergeRewriter;

impl GraphRewriter for MergeRewriter {
    fn name(&self) -> &str {
        "merge"
    }

    fn add_requirements(&self, fg: &mut FunctionGraph) -> Result<()> {
        fg.attach_feature(Box::<MergeFeature>::default())
    }

    fn apply(&self, fg: &mut FunctionGraph, run: &mut RunContext) -> Result<bool> {
        if fg.feature::<MergeFeature>().is_none() {
            self.add_requirements(fg)?;
        }
        let mut changed = false;
        // Merging schedules more pairs (the readers of a merged node may
        // now be twins), so drain until nothing is left.
        while let Some(twins) = take_scheduled(fg) {
            for twin in twins {
                changed |= merge_pair(fg, twin, run)?;
            }
        }
        Ok(changed)
    }
}

fn take_scheduled(fg: &mut FunctionGraph) -> Option<Vec<Twin>> {
    let f = fg.feature_mut::<MergeFeature>()?;
    let twins = std::mem::take(&mut f.scheduled);
    (!twins.is_empty()).then_some(twins)
}

/// Merges one pair if it still holds; `Ok(false)` if it no longer does or
/// the graph refused it (then it is not tried again).
fn merge_pair(fg: &mut FunctionGraph, twin: Twin, run: &mut RunContext) -> Result<bool> {
    let pairs = match twin {
        Twin::Constants(a, b) => {
            if !fg.has_var(a) || !fg.has_var(b) || a == b {
                return Ok(false);
            }
            vec![(a, b)]
        }
        Twin::Nodes(a, b) => match node_pairs(fg, a, b) {
            Some(p) => p,
            None => return Ok(false),
        },
    };
    // A twin reads the same inputs and a constant reads nothing, so the
    // replacement cannot depend on the replaced value: no full cycle walk,
    // which would cost the graph's size per merge.
    let before = fg.set_cycle_check(CycleCheck::Shallow);
    let result = fg.replace_all_validate(&pairs, "merge");
    fg.set_cycle_check(before);
    match result {
        Ok(()) => Ok(true),
        Err(err) => {
            if let (Twin::Nodes(a, b), Some(f)) = (twin, fg.feature_mut::<MergeFeature>()) {
                f.blacklist.push((a, b));
            }
            run.failure(err)?;
            Ok(false)
        }
    }
}

/// The output pairs of two twin nodes, keeping the more specific static
/// type of each pair; `None` if they are no longer twins.
fn node_pairs(fg: &FunctionGraph, a: NodeId, b: NodeId) -> Option<Vec<(VarId, VarId)>> {
    if a == b || !fg.has_node(a) || !fg.has_node(b) {
        return None;
    }
    let g = fg.graph();
    let (na, nb) = (g.node(a), g.node(b));
    if na.inputs != nb.inputs || !ops_equal(&na.op, &nb.op) {
        return None;
    }
    na.outputs
        .iter()
        .zip(&nb.outputs)
        .map(|(&oa, &ob)| {
            let (ta, tb) = (&g.var(oa).ty, &g.var(ob).ty);
            if ta.is_super(tb) {
                Some((oa, ob))
            } else if tb.is_super(ta) {
                Some((ob, oa))
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::{graph_with, x_and_constant};
    use crate::graph::Graph;

    #[test]
    fn fresh_copies_are_the_same_computation() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let one = |g: &mut Graph| g.tensor_constant(Tensor::scalar(1.0f64));
        let (c1, c2) = (one(&mut g), one(&mut g));
        let a = build::true_div(&mut g, c1, x).unwrap();
        let b = build::true_div(&mut g, c2, x).unwrap();
        let other = build::mul(&mut g, c2, x).unwrap();
        let fg = FunctionGraph::new(g, vec![x], vec![a]).unwrap();
        assert!(same_computation(&fg, a, b, 4));
        assert!(!same_computation(&fg, a, other, 4));
        assert!(!same_computation(&fg, a, b, 0), "depth 0 compares ids only");
    }

    #[test]
    fn merges_twin_nodes_and_equal_constants_incrementally() {
        let (mut g, x, c1) = x_and_constant(2.0);
        let c2 = g.tensor_constant(Tensor::scalar(2.0f64));
        let a = build::exp(&mut g, x).unwrap();
        let b = build::exp(&mut g, x).unwrap();
        let s = build::add(&mut g, a, b).unwrap();
        let m1 = build::mul(&mut g, s, c1).unwrap();
        let m2 = build::mul(&mut g, s, c2).unwrap();
        let mut fg = FunctionGraph::new(g, vec![x], vec![m1, m2]).unwrap();
        let mut run = RunContext::default();
        assert!(crate::rewrite::rewrite_graph(&MergeRewriter, &mut fg, &mut run).unwrap());
        fg.check_integrity().unwrap();
        // exp(x) once; add; one ExpandDims of the one constant; one mul.
        let ops: Vec<String> = fg
            .toposort()
            .unwrap()
            .iter()
            .map(|&n| fg.graph().node(n).op.describe())
            .collect();
        let mut sorted = ops.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            ["Add", "Exp", "ExpandDims{axis=0}", "Mul"],
            "{ops:?}"
        );
        assert_eq!(fg.outputs()[0], fg.outputs()[1]);
        // A newly imported twin is found without another full walk.
        let x = fg.inputs()[0];
        let e = build::exp(fg.graph_mut(), x).unwrap();
        let y = build::neg(fg.graph_mut(), e).unwrap();
        fg.add_output(y, "test").unwrap();
        assert!(MergeRewriter.apply(&mut fg, &mut run).unwrap());
        assert_eq!(
            fg.num_apply_nodes(),
            5,
            "the new exp merged into the old one"
        );
        assert!(run.warnings.is_empty());
    }
}
