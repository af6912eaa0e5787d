//! Rebuilding part of a graph with some variables replaced (PyTensor's
//! `clone_replace` on the arena): every node between the replaced
//! variables and the outputs is applied again to the new inputs.

use crate::error::Result;
use crate::graph::traversal::toposort;
use crate::graph::{Graph, VarId};
use std::collections::HashMap;

/// `outputs` with each key of `replace` replaced by its value; nodes that
/// do not depend on a replaced variable are shared, not copied.
pub fn substitute(
    g: &mut Graph,
    outputs: &[VarId],
    replace: &HashMap<VarId, VarId>,
) -> Result<Vec<VarId>> {
    let blockers: Vec<VarId> = replace.keys().copied().collect();
    let order = toposort(g, outputs, &blockers)?;
    let mut map = replace.clone();
    for node in order {
        let (op, inputs, outs) = {
            let n = g.node(node);
            (n.op.clone(), n.inputs.clone(), n.outputs.clone())
        };
        if !inputs.iter().any(|i| map.contains_key(i)) {
            continue;
        }
        let new_inputs: Vec<VarId> = inputs.iter().map(|i| *map.get(i).unwrap_or(i)).collect();
        let new_node = g.apply(op, &new_inputs)?;
        let new_outs = g.node(new_node).outputs.clone();
        for (o, n) in outs.into_iter().zip(new_outs) {
            let name = g.var(o).name.clone();
            g.set_name(n, name.as_deref());
            map.insert(o, n);
        }
    }
    Ok(outputs.iter().map(|o| *map.get(o).unwrap_or(o)).collect())
}
