//! `check_integrity`: that a [`FunctionGraph`]'s clients, nodes and
//! variables agree with each other (what PyTensor's `FunctionGraph.check_integrity` checks).

use super::{Client, FunctionGraph};
use crate::error::{Error, Result};
use crate::graph::{traversal, NodeId, VarId, VarKind};
use std::collections::HashSet;

impl FunctionGraph {
    /// Checks that clients, nodes and variables agree with each other.
    pub fn check_integrity(&self) -> Result<()> {
        let reachable: HashSet<NodeId> =
            traversal::applys_between(&self.graph, &self.inputs, &self.outputs)
                .into_iter()
                .collect();
        let listed: HashSet<NodeId> = self.apply_nodes().collect();
        if reachable != listed {
            let mut diff: Vec<String> = listed
                .symmetric_difference(&reachable)
                .map(|n| self.graph.describe_node(*n))
                .collect();
            diff.sort();
            return Err(Error::Integrity(format!(
                "The following nodes are inappropriately cached:\nmissing: {diff:?}"
            )));
        }
        for &node in &listed {
            for (i, &inp) in self.graph.node(node).inputs.iter().enumerate() {
                self.check_input_link(node, i, inp)?;
            }
        }
        for v in self.variables() {
            self.check_var(v)?;
        }
        Ok(())
    }

    pub(super) fn check_input_link(&self, node: NodeId, i: usize, inp: VarId) -> Result<()> {
        if !self.has_var(inp) {
            return Err(Error::Integrity(format!(
                "Undeclared input: {} of {}",
                self.graph.describe_var(inp),
                self.graph.describe_node(node)
            )));
        }
        if !self.clients(inp).contains(&Client::Node(node, i)) {
            return Err(Error::Integrity(format!(
                "Inconsistent clients list: {} has no entry for input {i} of {}",
                self.graph.describe_var(inp),
                self.graph.describe_node(node)
            )));
        }
        Ok(())
    }

    pub(super) fn check_var(&self, v: VarId) -> Result<()> {
        let data = self.graph.var(v);
        let cached = match data.kind {
            VarKind::Output { node, .. } => self.has_node(node),
            VarKind::Root => self.is_input(v) || data.atomic,
            VarKind::Constant(_) => true,
        };
        if !cached {
            return Err(Error::Integrity(format!(
                "The following variables are inappropriately cached: {}",
                self.graph.describe_var(v)
            )));
        }
        for c in self.clients(v) {
            let ok = match *c {
                Client::Node(n, i) => {
                    self.has_node(n) && self.graph.node(n).inputs.get(i) == Some(&v)
                }
                Client::Output(i) => self.outputs.get(i) == Some(&v),
            };
            if !ok {
                return Err(Error::Integrity(format!(
                    "Client not in FunctionGraph: {c:?} of {}",
                    self.graph.describe_var(v)
                )));
            }
        }
        Ok(())
    }
}
