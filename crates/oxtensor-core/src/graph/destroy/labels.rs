//! Order-maintenance labels: each node of a [`super::order::TopoOrder`]
//! carries a `u64` whose order is the nodes' order, so "does `a` come
//! before `b`" is one comparison and a node is inserted anywhere in
//! amortised O(log n). Inserting where no label is free relabels the
//! smallest aligned label range that is sparse enough (Bender et al.,
//! "Two simplified algorithms for maintaining order in a list", 2002).

use crate::graph::NodeId;
use std::collections::BTreeMap;

/// Labels live in `1..SPAN`; 0 stands for "before every node".
const SPAN: u64 = 1 << 62;
/// A range of `2^i` labels may be relabelled to hold `n` nodes when
/// `n <= (2/T)^i`; `T = 1.5` keeps relabelling amortised O(log n).
const DENSITY_BASE: f64 = 4.0 / 3.0;

/// A label per node, and the nodes by label.
#[derive(Clone, Debug, Default)]
pub(super) struct Labels {
    label: Vec<Option<u64>>,
    by_label: BTreeMap<u64, NodeId>,
}

impl Labels {
    /// Labels for `nodes` in this order, evenly spread.
    pub(super) fn from_sequence(nodes: &[NodeId]) -> Self {
        let mut labels = Labels::default();
        let step = SPAN / (nodes.len() as u64 + 1);
        for (k, &n) in nodes.iter().enumerate() {
            labels.set(n, step * (k as u64 + 1));
        }
        labels
    }

    /// The node's label, if it has one.
    pub(super) fn get(&self, n: NodeId) -> Option<u64> {
        self.label.get(n.index()).copied().flatten()
    }

    /// How many nodes have labels.
    pub(super) fn len(&self) -> usize {
        self.by_label.len()
    }

    fn set(&mut self, n: NodeId, l: u64) {
        if self.label.len() <= n.index() {
            self.label.resize(n.index() + 1, None);
        }
        self.label[n.index()] = Some(l);
        self.by_label.insert(l, n);
    }

    /// Drops the node's label.
    pub(super) fn remove(&mut self, n: NodeId) {
        if let Some(l) = self.label.get_mut(n.index()).and_then(Option::take) {
            self.by_label.remove(&l);
        }
    }

    /// Gives `n` (unlabelled) a label just after `after` (0: first of all).
    pub(super) fn insert_after(&mut self, n: NodeId, after: u64) {
        self.remove(n);
        let next = self
            .by_label
            .range(after + 1..)
            .next()
            .map_or(SPAN, |(&l, _)| l);
        if next - after >= 2 {
            self.set(n, after + (next - after) / 2);
        } else {
            self.relabel_around(n, after);
        }
    }

    /// No label is free after `after`: spreads the nodes of the smallest
    /// sparse enough aligned range around it evenly, `n` among them.
    fn relabel_around(&mut self, n: NodeId, after: u64) {
        for level in 1..=62u32 {
            let size = 1u64 << level;
            let base = after & !(size - 1);
            let inside: Vec<(u64, NodeId)> = self
                .by_label
                .range(base..base + size)
                .map(|(&l, &m)| (l, m))
                .collect();
            let count = inside.len() + 1;
            if (count as f64) > DENSITY_BASE.powi(level as i32) || size < 2 * count as u64 + 2 {
                continue;
            }
            let mut order: Vec<NodeId> = Vec::with_capacity(count);
            let split = inside.partition_point(|&(l, _)| l <= after);
            order.extend(inside[..split].iter().map(|&(_, m)| m));
            order.push(n);
            order.extend(inside[split..].iter().map(|&(_, m)| m));
            for &(l, _) in &inside {
                self.by_label.remove(&l);
            }
            let step = size / (count as u64 + 1);
            for (k, m) in order.into_iter().enumerate() {
                self.set(m, base + step * (k as u64 + 1));
            }
            return;
        }
        // Unreachable with fewer than 2^40 nodes; kept total by a full relabel.
        let mut all: Vec<NodeId> = self.by_label.values().copied().collect();
        let pos = all.partition_point(|&m| self.get(m).is_some_and(|l| l <= after));
        all.insert(pos, n);
        *self = Labels::from_sequence(&all);
    }

    /// Gives `nodes` the given labels (a permutation of labels they hold
    /// between them).
    pub(super) fn reassign(&mut self, nodes: &[NodeId], labels: &[u64]) {
        for &n in nodes {
            if let Some(l) = self.get(n) {
                self.by_label.remove(&l);
            }
        }
        for (&n, &l) in nodes.iter().zip(labels) {
            self.set(n, l);
        }
    }

    /// The nodes in label order.
    #[cfg(test)]
    pub(super) fn sequence(&self) -> Vec<NodeId> {
        self.by_label.values().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserting_at_one_place_many_times_keeps_the_order() {
        let mut labels = Labels::from_sequence(&[NodeId(0), NodeId(1)]);
        // Each new node goes right after node 0: the gap halves every
        // time, so relabelling must happen many times over.
        for k in 2..300 {
            let after = labels.get(NodeId(0)).unwrap();
            labels.insert_after(NodeId(k), after);
        }
        let mut want = vec![NodeId(0)];
        want.extend((2..300).rev().map(NodeId));
        want.push(NodeId(1));
        assert_eq!(labels.sequence(), want);
        assert_eq!(labels.len(), 300);
    }

    #[test]
    fn inserting_first_and_reassigning() {
        let mut labels = Labels::from_sequence(&[NodeId(0), NodeId(1), NodeId(2)]);
        labels.insert_after(NodeId(3), 0);
        assert_eq!(labels.sequence()[0], NodeId(3));
        let (l0, l2) = (
            labels.get(NodeId(0)).unwrap(),
            labels.get(NodeId(2)).unwrap(),
        );
        labels.reassign(&[NodeId(2), NodeId(0)], &[l0, l2]);
        assert_eq!(
            labels.sequence(),
            vec![NodeId(3), NodeId(2), NodeId(1), NodeId(0)]
        );
        labels.remove(NodeId(1));
        assert_eq!(labels.get(NodeId(1)), None);
        assert_eq!(labels.len(), 3);
    }
}
