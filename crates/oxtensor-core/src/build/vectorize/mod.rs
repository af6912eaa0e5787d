//! `vectorize_graph` (PyTensor's `graph/replace.py`): the graph of some
//! outputs rebuilt over batched replacements of some of its variables, node
//! by node, each node batched by the rule of its op (`node.rs`). It lives
//! with the builders, above `ops`, because its rules name concrete ops.

mod node;
mod shape_rules;

pub use node::vectorize_node;

use crate::bail;
use crate::error::Result;
use crate::graph::traversal::toposort;
use crate::graph::{Graph, NodeId, VarId};
use rustc_hash::FxHashMap;

/// The host's rules for its own ops (Python's `_vectorize_node`).
pub trait VectorizeHost {
    /// `node` (of a host op) rebuilt on the batched `inputs`; `Ok(None)`
    /// when the host has no rule of its own, and the `Blockwise` fallback
    /// applies.
    fn vectorize_node(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        inputs: &[VarId],
    ) -> Result<Option<Vec<VarId>>>;
}

/// `outputs` with each `(old, new)` of `replace` substituted, every node
/// downstream of a substitution rebuilt for the new inputs' extra leading
/// (batch) axes. A replacement given for some outputs of a node wins over
/// the rebuilt node's (PyTensor's rule for multi-output nodes).
pub fn vectorize_graph(
    g: &mut Graph,
    outputs: &[VarId],
    replace: &[(VarId, VarId)],
    mut host: Option<&mut dyn VectorizeHost>,
) -> Result<Vec<VarId>> {
    let mut memo: FxHashMap<VarId, VarId> = FxHashMap::default();
    for &(old, new) in replace {
        check_replacement(g, old, new)?;
        memo.insert(old, new);
    }
    let blockers: Vec<VarId> = replace.iter().map(|&(old, _)| old).collect();
    for node in toposort(g, outputs, &blockers)? {
        let n = g.node(node).clone();
        if n.outputs.iter().all(|o| memo.contains_key(o)) {
            continue;
        }
        let inputs: Vec<VarId> = n.inputs.iter().map(|v| *memo.get(v).unwrap_or(v)).collect();
        if inputs == n.inputs {
            continue;
        }
        let outs = vectorize_node(g, node, &inputs, host.as_deref_mut())?;
        for (old, new) in n.outputs.iter().zip(outs) {
            memo.entry(*old).or_insert(new);
        }
    }
    Ok(outputs.iter().map(|v| *memo.get(v).unwrap_or(v)).collect())
}

/// A replacement keeps the dtype and has at least the rank of what it
/// replaces (its extra leading axes are the batch).
fn check_replacement(g: &Graph, old: VarId, new: VarId) -> Result<()> {
    let (o, n) = (&g.try_var(old)?.ty, &g.try_var(new)?.ty);
    let (Some(ot), Some(nt)) = (o.as_tensor(), n.as_tensor()) else {
        return Ok(());
    };
    if nt.ndim() < ot.ndim() {
        bail!(Value: "vectorize_graph: the replacement {} of {} has fewer dims ({}) than it ({})",
              g.describe_var(new), g.describe_var(old), nt.ndim(), ot.ndim());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
