//! Copying the part of a graph that computes some outputs, inside the same
//! arena, with some variables replaced on the way (PyTensor's
//! `rebuild_collect_shared` with `givens`): what compilation does so that
//! rewriting never changes the caller's nodes. Free variables and
//! constants are shared, not copied; every node is copied.

use super::arena::Graph;
use super::ids::VarId;
use super::traversal::toposort;
use crate::error::{Error, Result};
use crate::ops::known;
use crate::types::Type;
use std::collections::HashMap;

/// Copies of `outputs` and everything they are computed from, with each
/// key of `givens` replaced by a copy of its value (all at once: a value
/// that mentions a key keeps the key's original, as PyTensor's givens).
/// Nodes whose inputs keep their types keep their output types; others are
/// typed again, so a given of a more specific type refines what depends on it.
pub fn clone_with_givens(
    g: &mut Graph,
    outputs: &[VarId],
    givens: &HashMap<VarId, VarId>,
) -> Result<Vec<VarId>> {
    let keys: Vec<VarId> = givens.keys().copied().collect();
    let values: Vec<VarId> = keys.iter().map(|k| givens[k]).collect();
    let mut map: HashMap<VarId, VarId> = keys
        .iter()
        .copied()
        .zip(copy_nodes(g, &values, &[], HashMap::new())?)
        .collect();
    for k in &keys {
        check_given(g, *k, map[k])?;
    }
    let copies = copy_nodes(g, outputs, &keys, std::mem::take(&mut map))?;
    Ok(copies)
}

/// A given must be able to stand for its key: same kind of type.
fn check_given(g: &Graph, key: VarId, value: VarId) -> Result<()> {
    let (tk, tv) = (&g.var(key).ty, &g.var(value).ty);
    if tk.in_same_class(tv) || tk.is_super(tv) {
        return Ok(());
    }
    Err(Error::Type(format!(
        "The given {} of type {tv} cannot replace {} of type {tk}",
        g.describe_var(value),
        g.describe_var(key)
    )))
}

/// Copies every node between `blockers` and `outputs`, reading `map`'s
/// replacement for any variable it has; returns the outputs' copies.
fn copy_nodes(
    g: &mut Graph,
    outputs: &[VarId],
    blockers: &[VarId],
    mut map: HashMap<VarId, VarId>,
) -> Result<Vec<VarId>> {
    for node in toposort(g, outputs, blockers)? {
        let (op, inputs, outs) = {
            let n = g.node(node);
            (n.op.clone(), n.inputs.clone(), n.outputs.clone())
        };
        let new_inputs: Vec<VarId> = inputs.iter().map(|v| *map.get(v).unwrap_or(v)).collect();
        let same_types = inputs
            .iter()
            .zip(&new_inputs)
            .all(|(&a, &b)| g.var(a).ty == g.var(b).ty);
        let types: Vec<Type> = if same_types {
            outs.iter().map(|&o| g.var(o).ty.clone()).collect()
        } else {
            known::output_types(g, op.as_ref(), &new_inputs)
                .map_err(|e| e.at_node(g.describe_node(node)))?
        };
        let copy = g.add_node(op, new_inputs, types)?;
        for (i, &o) in outs.iter().enumerate() {
            let c = g.node(copy).outputs[i];
            let name = g.var(o).name.clone();
            g.set_name(c, name.as_deref());
            g.var_mut(c).indestructible = g.var(o).indestructible;
            map.insert(o, c);
        }
    }
    Ok(outputs.iter().map(|v| *map.get(v).unwrap_or(v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::types::TensorType;

    #[test]
    fn copies_nodes_shares_leaves_and_applies_givens() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let y = g.input(
            TensorType::new(DType::Float64, [Some(3)]).unwrap(),
            Some("y"),
        );
        let e = build::exp(&mut g, x).unwrap();
        g.set_name(e, Some("e"));
        let out = build::neg(&mut g, e).unwrap();
        let [copy] = clone_with_givens(&mut g, &[out], &HashMap::new()).unwrap()[..] else {
            panic!()
        };
        assert_ne!(copy, out, "nodes are copied");
        let inner = g.node(g.var(copy).owner().unwrap()).inputs[0];
        assert_eq!(g.var(inner).name.as_deref(), Some("e"));
        assert_eq!(
            g.node(g.var(inner).owner().unwrap()).inputs[0],
            x,
            "inputs are shared"
        );
        // x -> y: a more specific type flows through.
        let givens = HashMap::from([(x, y)]);
        let [given] = clone_with_givens(&mut g, &[out], &givens).unwrap()[..] else {
            panic!()
        };
        assert_eq!(g.var(given).ty.as_tensor().unwrap().shape[0], Some(3));
        // Givens apply all at once: `x -> exp(x)` reads the original `x`.
        let own = HashMap::from([(x, e)]);
        let [twice] = clone_with_givens(&mut g, &[out], &own).unwrap()[..] else {
            panic!()
        };
        let e2 = g.node(g.var(twice).owner().unwrap()).inputs[0];
        let e1 = g.node(g.var(e2).owner().unwrap()).inputs[0];
        let x0 = g.node(g.var(e1).owner().unwrap()).inputs[0];
        assert_eq!(x0, x, "exp(exp(x))");
        let bad = g.input(TensorType::with_ndim(DType::Int64, 2), None);
        assert!(clone_with_givens(&mut g, &[out], &HashMap::from([(x, bad)])).is_err());
    }
}
