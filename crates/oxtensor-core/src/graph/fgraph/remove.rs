//! Removing a node or an input from a [`FunctionGraph`], with everything
//! that depends on it: PyTensor's `FunctionGraph.remove_node` and
//! `remove_input`. Dependent nodes go first, outputs they computed are
//! dropped (later outputs shift down), then producers left unused are
//! pruned as `remove_client` prunes them.

use super::{Client, FunctionGraph, InsertionList};
use crate::error::{Error, Result};
use crate::graph::{NodeId, VarId};
use std::collections::HashSet;

impl FunctionGraph {
    /// Removes `node`, every node that uses one of its outputs (and the
    /// graph outputs they compute), then the producers nothing uses any more.
    pub fn remove_node(&mut self, node: NodeId, reason: &str) -> Result<()> {
        if !self.has_node(node) {
            return Err(Error::Value(format!(
                "{} is not in the graph",
                self.graph.describe_node(node)
            )));
        }
        for n in self.dependents_first(node) {
            self.remove_one_node(n, reason)?;
        }
        Ok(())
    }

    /// Removes input `idx`: every node using it (see [`Self::remove_node`]),
    /// the outputs that are the input itself, then the input. A variable
    /// declared twice keeps its other slot (and its clients entry), as in
    /// PyTensor, but leaves `variables` like any unused input.
    pub fn remove_input(&mut self, idx: usize, reason: &str) -> Result<()> {
        let v = super::slot(&self.inputs, idx, "input")?;
        self.remove_uses(v, reason)?;
        self.inputs.remove(idx);
        self.in_vars[v.index()] = false;
        if !self.inputs.contains(&v) {
            self.is_input[v.index()] = false;
            self.forget_clients(v);
        }
        Ok(())
    }

    /// `node` and the nodes depending on it, each after all its dependents
    /// (a post-order of the walk through clients; no recursion, so deep
    /// graphs are fine).
    fn dependents_first(&self, node: NodeId) -> Vec<NodeId> {
        let mut order = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![(node, false)];
        while let Some((n, expanded)) = stack.pop() {
            if expanded {
                order.push(n);
                continue;
            }
            if !seen.insert(n) {
                continue;
            }
            stack.push((n, true));
            for &out in &self.graph.node(n).outputs {
                for c in self.clients(out) {
                    if let Client::Node(m, _) = *c {
                        if !seen.contains(&m) {
                            stack.push((m, false));
                        }
                    }
                }
            }
        }
        order
    }

    /// Removes the clients of `v`: graph outputs, then client nodes.
    fn remove_uses(&mut self, v: VarId, reason: &str) -> Result<()> {
        let mut outputs: Vec<usize> = self
            .clients(v)
            .iter()
            .filter_map(|c| match c {
                Client::Output(j) => Some(*j),
                Client::Node(..) => None,
            })
            .collect();
        outputs.sort_unstable_by(|a, b| b.cmp(a));
        for j in outputs {
            self.remove_output(j, reason)?;
        }
        let nodes: Vec<NodeId> = self
            .clients(v)
            .iter()
            .filter_map(|c| match c {
                Client::Node(n, _) => Some(*n),
                Client::Output(_) => None,
            })
            .collect();
        for n in nodes {
            if self.has_node(n) {
                self.remove_node(n, reason)?;
            }
        }
        Ok(())
    }

    /// Removes one node whose dependents are gone: the outputs it computes,
    /// then the node, then its input clients (pruning unused producers).
    fn remove_one_node(&mut self, n: NodeId, reason: &str) -> Result<()> {
        if !self.has_node(n) {
            return Ok(());
        }
        for out in self.graph.node(n).outputs.clone() {
            self.remove_uses(out, reason)?;
        }
        // Removing its last output may have pruned it already.
        if self.has_node(n) {
            self.prune_node(n, reason)?;
            for (i, inp) in self.graph.node(n).inputs.clone().into_iter().enumerate() {
                self.drop_client((inp, Client::Node(n, i)), reason, true)?;
            }
        }
        for out in self.graph.node(n).outputs.clone() {
            self.forget_clients(out);
        }
        Ok(())
    }

    /// Drops the (empty) clients entry of a removed variable, so it is no
    /// longer a key of `clients` (PyTensor's `remove_if_empty`).
    pub(super) fn forget_clients(&mut self, v: VarId) {
        if let Some(entry) = self.clients.get_mut(v.index()) {
            if entry.as_ref().is_some_and(InsertionList::is_empty) {
                *entry = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Client, FunctionGraph, Graph, VarId};
    use crate::ops::elemwise::Elemwise;
    use crate::scalar::ScalarKind;

    use std::sync::Arc;

    fn apply(g: &mut Graph, k: ScalarKind, inputs: &[VarId]) -> VarId {
        g.apply_out(Arc::new(Elemwise::new(k)), inputs).unwrap()
    }

    /// `a = exp(x); b = a * y; c = log(b)`.
    fn chain(outputs: &[usize]) -> (FunctionGraph, [VarId; 5]) {
        let (mut g, [x, y]) = graph_with([("x", DType::Float64, 0), ("y", DType::Float64, 0)]);
        let a = apply(&mut g, ScalarKind::Exp, &[x]);
        let b = apply(&mut g, ScalarKind::Mul, &[a, y]);
        let c = apply(&mut g, ScalarKind::Log, &[b]);
        let vars = [x, y, a, b, c];
        let outs = outputs.iter().map(|&i| vars[i]).collect();
        (FunctionGraph::new(g, vec![x, y], outs).unwrap(), vars)
    }

    #[test]
    fn removing_the_last_node_empties_the_graph() {
        let (mut fg, [.., c]) = chain(&[4]);
        let node = fg.graph().var(c).owner().unwrap();
        fg.remove_node(node, "test").unwrap();
        fg.check_integrity().unwrap();
        assert_eq!(fg.apply_nodes().count(), 0);
        assert!(fg.outputs().is_empty());
    }

    #[test]
    fn removing_a_node_removes_its_dependents_and_their_outputs() {
        let (mut fg, [_, _, a, b, c]) = chain(&[3, 4, 2]);
        let node = fg.graph().var(b).owner().unwrap();
        fg.remove_node(node, "test").unwrap();
        fg.check_integrity().unwrap();
        assert_eq!(fg.outputs(), &[a]);
        assert_eq!(fg.apply_nodes().count(), 1);
        assert!(!fg.has_var(c));
        assert!(fg.client_keys().all(|v| v != b && v != c));
        let again = fg.remove_node(node, "test").unwrap_err().to_string();
        assert!(again.contains("is not in the graph"), "{again}");
    }

    #[test]
    fn removing_an_input_removes_what_uses_it() {
        let (mut fg, [x, y, a, ..]) = chain(&[4, 2, 1]);
        fg.remove_input(1, "test").unwrap();
        fg.check_integrity().unwrap();
        assert_eq!(fg.inputs(), &[x]);
        assert_eq!(fg.outputs(), &[a]);
        assert!(!fg.has_var(y));
        assert!(fg.client_keys().all(|v| v != y));
        assert!(fg.remove_input(5, "test").is_err());
    }

    #[test]
    fn removing_the_last_client_prunes_and_forgets_the_producers() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
        let a = apply(&mut g, ScalarKind::Exp, &[x]);
        // `a` read twice: the second removal finds its entry gone.
        let b = apply(&mut g, ScalarKind::Mul, &[a, a]);
        let mut fg = FunctionGraph::new(g, vec![x], vec![b]).unwrap();
        fg.remove_client(b, Client::Output(0), "test", true)
            .unwrap();
        assert_eq!(fg.apply_nodes().count(), 0);
        assert_eq!(fg.client_keys().collect::<Vec<_>>(), vec![x]);
        assert!(fg.clients(x).is_empty());
        assert!(!fg.has_var(x) && fg.is_input(x));
        let err = fg
            .remove_client(a, Client::Output(0), "test", true)
            .unwrap_err();
        assert!(err.to_string().contains("no clients entry"), "{err}");
    }

    #[test]
    fn without_remove_if_empty_pruned_variables_keep_empty_entries() {
        let (mut fg, [x, _, a, b, c]) = chain(&[4]);
        fg.remove_client(c, Client::Output(0), "test", false)
            .unwrap();
        assert_eq!(fg.apply_nodes().count(), 0);
        assert!(!fg.has_var(a) && !fg.has_var(x));
        for v in [a, b, c] {
            assert!(fg.client_keys().any(|k| k == v));
            assert!(fg.clients(v).is_empty());
        }
    }

    #[test]
    fn removing_a_client_that_is_not_listed_changes_nothing() {
        let (mut fg, [x, _, a, ..]) = chain(&[4]);
        let b_node = fg.graph().var(a).owner().unwrap();
        fg.remove_client(x, Client::Node(b_node, 3), "test", false)
            .unwrap();
        fg.check_integrity().unwrap();
        assert_eq!(fg.apply_nodes().count(), 3);
    }

    #[test]
    fn a_duplicated_input_keeps_its_other_slot() {
        let (mut g, [x, y]) = graph_with([("x", DType::Float64, 0), ("y", DType::Float64, 0)]);
        let a = apply(&mut g, ScalarKind::Mul, &[x, y]);
        let mut fg = FunctionGraph::new(g, vec![x, x, y], vec![a]).unwrap();
        assert_eq!(fg.inputs(), &[x, x, y]);
        fg.remove_input(0, "test").unwrap();
        fg.check_integrity().unwrap();
        assert_eq!(fg.inputs(), &[x, y]);
        assert!(fg.outputs().is_empty());
        assert!(fg.is_input(x) && !fg.has_var(x));
        fg.remove_input(0, "test").unwrap();
        assert!(!fg.is_input(x));
        assert!(fg.client_keys().all(|v| v != x));
    }
}
