//! An incremental topological order of a graph's nodes over its data edges
//! and the destroy handler's ordering edges (reader before destroyer).
//! Adding an edge that the order already respects costs one comparison;
//! otherwise Pearce and Kelly's algorithm ("A dynamic topological sort
//! algorithm for directed acyclic graphs", 2006) searches only the nodes
//! whose labels lie between the edge's ends, and either finds the cycle
//! the edge closes or reorders just those nodes. This is what keeps one
//! validation proportional to the part of the graph a change touches.

use super::labels::Labels;
use crate::graph::{FunctionGraph, NodeId};
use rustc_hash::FxHashSet;

/// The edges of the dependency graph, as the order's searches see them.
pub(super) trait Deps {
    /// Appends the nodes that must run after `n`.
    fn succ(&self, n: NodeId, out: &mut Vec<NodeId>);
    /// Appends the nodes that must run before `n`.
    fn pred(&self, n: NodeId, out: &mut Vec<NodeId>);
}

/// A topological order kept up to date edge by edge.
#[derive(Clone, Debug, Default)]
pub(super) struct TopoOrder {
    labels: Labels,
    /// Nodes relabelled since [`TopoOrder::take_moved`] last ran.
    moved: Vec<NodeId>,
}

/// Adding the edge would close a cycle.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Cycle;

impl TopoOrder {
    /// An order that is `nodes` as given (which must be topological).
    pub(super) fn from_sequence(nodes: &[NodeId]) -> Self {
        TopoOrder {
            labels: Labels::from_sequence(nodes),
            moved: Vec::new(),
        }
    }

    /// How many nodes the order holds.
    pub(super) fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether `a` comes before `b` (both ordered).
    #[cfg(test)]
    pub(super) fn before(&self, a: NodeId, b: NodeId) -> bool {
        matches!((self.labels.get(a), self.labels.get(b)), (Some(x), Some(y)) if x < y)
    }

    /// Places a newly imported node right after the latest producer of its
    /// inputs: a rewrite builds its replacement from the replaced node's
    /// ancestors, so the replaced node's readers usually come later
    /// already and the input change that follows costs nothing.
    pub(super) fn insert_after_inputs(&mut self, fg: &FunctionGraph, n: NodeId) {
        let g = fg.graph();
        let after = g
            .node(n)
            .inputs
            .iter()
            .filter_map(|&v| g.var(v).owner())
            .filter_map(|p| self.labels.get(p))
            .max()
            .unwrap_or(0);
        self.labels.insert_after(n, after);
    }

    /// The nodes relabelled since the last call.
    pub(super) fn take_moved(&mut self) -> Vec<NodeId> {
        std::mem::take(&mut self.moved)
    }

    /// Whether every edge of `n` (both ways) runs in label order; nodes
    /// without a place are not constrained.
    pub(super) fn respects(&self, n: NodeId, deps: &impl Deps) -> bool {
        let Some(ln) = self.labels.get(n) else {
            return true;
        };
        let (mut succ, mut pred) = (Vec::new(), Vec::new());
        deps.succ(n, &mut succ);
        deps.pred(n, &mut pred);
        let label = |m: &NodeId| self.labels.get(*m);
        succ.iter().filter_map(label).all(|l| l > ln)
            && pred.iter().filter_map(label).all(|l| l < ln)
    }

    /// Drops a node that left the graph.
    pub(super) fn remove(&mut self, n: NodeId) {
        self.labels.remove(n);
    }

    /// Makes `a` come before `b`; `Err(Cycle)` if `b` already reaches `a`.
    /// Nodes without a place in the order are ignored.
    pub(super) fn add_edge(&mut self, a: NodeId, b: NodeId, deps: &impl Deps) -> Result<(), Cycle> {
        let (Some(la), Some(lb)) = (self.labels.get(a), self.labels.get(b)) else {
            return Ok(());
        };
        if la < lb {
            return Ok(());
        }
        if a == b {
            return Err(Cycle);
        }
        // Forward from `b` through nodes not after `a`; reaching `a` is a cycle.
        let forward = self.search(b, |n, out| deps.succ(n, out), |l| l <= la, Some(a))?;
        // Backward from `a` through nodes after `b`.
        let backward = self.search(a, |n, out| deps.pred(n, out), |l| l > lb, None)?;
        self.reorder(backward, forward);
        Ok(())
    }

    /// The nodes reachable from `start` through nodes whose label passes
    /// `keep`; `Err(Cycle)` if `target` is among them.
    fn search(
        &self,
        start: NodeId,
        next: impl Fn(NodeId, &mut Vec<NodeId>),
        keep: impl Fn(u64) -> bool,
        target: Option<NodeId>,
    ) -> Result<Vec<NodeId>, Cycle> {
        let mut seen: FxHashSet<NodeId> = FxHashSet::default();
        seen.insert(start);
        let (mut stack, mut found, mut buf) = (vec![start], vec![start], Vec::new());
        while let Some(n) = stack.pop() {
            buf.clear();
            next(n, &mut buf);
            for &m in &buf {
                if Some(m) == target {
                    return Err(Cycle);
                }
                if self.labels.get(m).is_some_and(&keep) && seen.insert(m) {
                    stack.push(m);
                    found.push(m);
                }
            }
        }
        Ok(found)
    }

    /// Gives the labels both groups hold, in order, to `backward` (first)
    /// then `forward`, each group keeping its own relative order.
    fn reorder(&mut self, mut backward: Vec<NodeId>, mut forward: Vec<NodeId>) {
        let label = |n: &NodeId| self.labels.get(*n).unwrap_or(0);
        backward.sort_by_key(label);
        forward.sort_by_key(label);
        let mut pool: Vec<u64> = backward.iter().chain(&forward).map(label).collect();
        pool.sort_unstable();
        backward.extend(forward);
        self.labels.reassign(&backward, &pool);
        self.moved.extend(backward);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap;
    use std::cell::RefCell;

    /// Edges held in a map, added as the test goes.
    #[derive(Default)]
    struct Edges(RefCell<FxHashMap<NodeId, Vec<NodeId>>>);

    impl Edges {
        fn add(&self, a: u32, b: u32) {
            self.0
                .borrow_mut()
                .entry(NodeId(a))
                .or_default()
                .push(NodeId(b));
        }
    }

    impl Deps for Edges {
        fn succ(&self, n: NodeId, out: &mut Vec<NodeId>) {
            out.extend(self.0.borrow().get(&n).into_iter().flatten());
        }
        fn pred(&self, n: NodeId, out: &mut Vec<NodeId>) {
            for (&a, bs) in self.0.borrow().iter() {
                out.extend(bs.iter().filter(|&&b| b == n).map(|_| a));
            }
        }
    }

    fn order_of(order: &TopoOrder, n: u32) -> Vec<u32> {
        let mut all: Vec<u32> = (0..n).collect();
        all.sort_by_key(|&k| order.labels.get(NodeId(k)));
        all
    }

    #[test]
    fn edges_reorder_only_what_they_must_and_cycles_are_refused() {
        let nodes: Vec<NodeId> = (0..5).map(NodeId).collect();
        let mut order = TopoOrder::from_sequence(&nodes);
        let edges = Edges::default();
        for (a, b) in [(0, 1), (1, 2), (3, 4)] {
            edges.add(a, b);
            order.add_edge(NodeId(a), NodeId(b), &edges).unwrap();
        }
        assert_eq!(order_of(&order, 5), [0, 1, 2, 3, 4]);
        // 4 before 1: 4's ancestors (3) move ahead of 1's descendants.
        edges.add(4, 1);
        order.add_edge(NodeId(4), NodeId(1), &edges).unwrap();
        assert_eq!(order_of(&order, 5), [0, 3, 4, 1, 2]);
        // 2 before 3 closes 3 -> 4 -> 1 -> 2 -> 3.
        edges.add(2, 3);
        assert_eq!(order.add_edge(NodeId(2), NodeId(3), &edges), Err(Cycle));
        assert!(order.before(NodeId(3), NodeId(2)));
    }
}
