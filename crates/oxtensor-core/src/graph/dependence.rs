//! Whether one part of a graph depends on another (PyTensor's
//! `variable_depends_on`, `apply_depends_on`) and the truncated inputs of a
//! graph (`truncated_graph_inputs`): the variables closest to the outputs
//! that everything depending on the given ancestors is computed from.

use super::arena::Graph;
use super::ids::{NodeId, VarId};
use super::traversal::{ancestors, apply_ancestors, toposort};
use crate::error::Result;
use std::collections::HashSet;

/// Whether `var` or one of its ancestors, not looking past `stop_at`, is
/// one of `targets` (a variable depends on itself).
pub fn variable_depends_on(g: &Graph, var: VarId, targets: &[VarId], stop_at: &[VarId]) -> bool {
    let targets: HashSet<VarId> = targets.iter().copied().collect();
    ancestors(g, &[var], stop_at)
        .iter()
        .any(|v| targets.contains(v))
}

/// Whether `node` is one of `targets` or computed from one of them.
pub fn apply_depends_on(g: &Graph, node: NodeId, targets: &[NodeId]) -> bool {
    let targets: HashSet<NodeId> = targets.iter().copied().collect();
    targets.contains(&node)
        || apply_ancestors(g, &g.node(node).inputs, &[])
            .iter()
            .any(|n| targets.contains(n))
}

/// The variables among the ancestors of `outputs` that depend on one of
/// `targets`, found in one pass over the nodes in dependency order.
fn dependents(g: &Graph, outputs: &[VarId], targets: &HashSet<VarId>) -> Result<HashSet<VarId>> {
    let mut dep = targets.clone();
    for n in toposort(g, outputs, &[])? {
        let node = g.node(n);
        if node.inputs.iter().any(|i| dep.contains(i)) {
            dep.extend(node.outputs.iter().copied());
        }
    }
    Ok(dep)
}

/// `truncated_graph_inputs(outputs, include)`: walking from the outputs
/// (last pushed first, as PyTensor does), a variable that does not depend
/// on `include` is an input; one in `include` is an input too, and its own
/// inputs are walked only if they still depend on `include`; any other is
/// replaced by its owner's inputs. Each variable is listed once.
pub fn truncated_graph_inputs(
    g: &Graph,
    outputs: &[VarId],
    include: &[VarId],
) -> Result<Vec<VarId>> {
    let mut seen = HashSet::new();
    if include.is_empty() {
        return Ok(outputs
            .iter()
            .copied()
            .filter(|v| seen.insert(*v))
            .collect());
    }
    let targets: HashSet<VarId> = include.iter().copied().collect();
    let dep = dependents(g, outputs, &targets)?;
    let owner_inputs = |v: VarId| g.var(v).owner().map(|n| g.node(n).inputs.clone());
    let mut stack = outputs.to_vec();
    let mut out = Vec::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        let inputs = owner_inputs(v).unwrap_or_default();
        if targets.contains(&v) || !dep.contains(&v) {
            out.push(v);
        }
        // Only a variable that depends on `include` has inputs that do.
        if inputs.iter().any(|i| dep.contains(i)) {
            stack.extend(inputs);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::ops::elemwise::Elemwise;
    use crate::scalar::ScalarKind;
    use crate::types::TensorType;
    use std::sync::Arc;

    /// x2 = exp(x); y2 = y + x2; o = exp(y2); o2 = exp(o); z apart.
    fn fixture() -> (Graph, [VarId; 7]) {
        let mut g = Graph::new();
        let t = TensorType::scalar(DType::Float64);
        let [x, y, z] = ["x", "y", "z"].map(|n| g.input(t.clone(), Some(n)));
        let exp = Arc::new(Elemwise::new(ScalarKind::Exp));
        let x2 = g.apply_out(exp.clone(), &[x]).unwrap();
        let y2 = g
            .apply_out(Arc::new(Elemwise::new(ScalarKind::Add)), &[y, x2])
            .unwrap();
        let o = g.apply_out(exp.clone(), &[y2]).unwrap();
        let o2 = g.apply_out(exp, &[o]).unwrap();
        (g, [x, y, z, x2, y2, o, o2])
    }

    #[test]
    fn truncated_inputs_follow_pytensors_cases() {
        let (g, [_, y, z, x2, y2, o, o2]) = fixture();
        let t = |outs: &[VarId], inc: &[VarId]| truncated_graph_inputs(&g, outs, inc).unwrap();
        assert_eq!(t(&[o], &[]), vec![o]);
        assert_eq!(t(&[o2], &[y2]), vec![y2]);
        assert_eq!(t(&[o], &[y2, o]), vec![o, y2]);
        assert_eq!(t(&[o2], &[y2, o]), vec![o, y2]);
        assert_eq!(t(&[o], &[y]), vec![x2, y]);
        assert_eq!(t(&[o2], &[y2, z]), vec![y2]);
        assert_eq!(t(&[o2, z], &[y2]), vec![z, y2]);
    }

    #[test]
    fn dependence_through_ancestors_and_blockers() {
        let (g, [x, y, z, x2, y2, o, _]) = fixture();
        assert!(variable_depends_on(&g, o, &[x], &[]));
        assert!(variable_depends_on(&g, y, &[y], &[]));
        assert!(!variable_depends_on(&g, o, &[z], &[]));
        assert!(!variable_depends_on(&g, o, &[x], &[x2]));
        let node = |v: VarId| g.var(v).owner().unwrap();
        assert!(apply_depends_on(&g, node(o), &[node(x2)]));
        assert!(apply_depends_on(&g, node(y2), &[node(y2)]));
        assert!(!apply_depends_on(&g, node(x2), &[node(y2)]));
    }
}
