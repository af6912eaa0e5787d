//! The inner graph of a [`Jacobian`](super::Jacobian) node: its own arena
//! holding the expression, the `wrt` variables, the cotangent input `u` and
//! the pullback rows, with stand-ins for the outer graph's free variables.
//! Copying between arenas lives here too (the inner graph is cut out of the
//! caller's graph, and `infer_shape` copies part of it back).

use crate::build;
use crate::error::{Error, Result};
use crate::graph::traversal::{graph_inputs, toposort_by};
use crate::graph::{FunctionGraph, Graph, NodeId, VarId};
use std::collections::HashMap;

/// The variables an inner graph is made of, in some arena.
#[derive(Clone, Debug)]
pub struct Parts {
    /// The free variables, in the node's input order.
    pub inputs: Vec<VarId>,
    /// The cotangent input.
    pub u: VarId,
    /// The expression.
    pub y: VarId,
    /// The `wrt` variables.
    pub wrt: Vec<VarId>,
    /// The pullback rows, in the Jacobian's output dtypes.
    pub rows: Vec<VarId>,
}

/// The graph a Jacobian node runs, in an arena of its own.
#[derive(Clone, Debug)]
pub struct Inner {
    /// The arena.
    pub graph: Graph,
    /// Stand-ins for the node's inputs (the outer free variables), in order.
    pub inputs: Vec<VarId>,
    /// The cotangent of the flattened expression: a unit vector per row.
    pub u: VarId,
    /// The expression (not flattened).
    pub y: VarId,
    /// The `wrt` variables.
    pub wrt: Vec<VarId>,
    /// One pullback row per `wrt` entry, in the Jacobian's output dtype.
    pub rows: Vec<VarId>,
    /// `y`'s shape, then each `wrt`'s: what a call computes before the rows.
    pub shapes: Vec<VarId>,
}

impl Inner {
    /// Cuts the graph computing `y`, `wrt` and `rows` (which read `u`) out
    /// of `g`; also gives the outer variables the stand-ins replace: the
    /// free variables those depend on, constants and `u` left out.
    pub fn extract(
        g: &Graph,
        y: VarId,
        wrt: &[VarId],
        u: VarId,
        rows: &[VarId],
    ) -> Result<(Inner, Vec<VarId>)> {
        let roots: Vec<VarId> = [y].iter().chain(wrt).chain(rows).copied().collect();
        let outer: Vec<VarId> = graph_inputs(g, &roots, &[])
            .into_iter()
            .filter(|&v| v != u && !g.var(v).is_constant())
            .collect();
        let parts = Parts {
            inputs: outer.clone(),
            u,
            y,
            wrt: wrt.to_vec(),
            rows: rows.to_vec(),
        };
        Ok((Inner::copy_from(g, &parts)?, outer))
    }

    /// The inner graph of `parts`, variables of `g`, copied into an arena
    /// of its own (`parts.inputs` become the stand-ins, in that order).
    pub fn copy_from(g: &Graph, parts: &Parts) -> Result<Inner> {
        let mut graph = Graph::new();
        let mut map = HashMap::new();
        let mut stand_in = |v: VarId, name: Option<&str>| -> Result<VarId> {
            let d = g.try_var(v)?;
            let copy = graph.input(d.ty.clone(), name.or(d.name.as_deref()));
            map.insert(v, copy);
            Ok(copy)
        };
        let inputs = parts
            .inputs
            .iter()
            .map(|&v| stand_in(v, None))
            .collect::<Result<Vec<_>>>()?;
        let u = stand_in(parts.u, Some("u"))?;
        let (y, wrt, rows) = (parts.y, &parts.wrt, &parts.rows);
        let roots: Vec<VarId> = [y].iter().chain(wrt).chain(rows).copied().collect();
        copy_between(g, &roots, &mut graph, &mut map)?;
        let mut shapes = vec![build::shape(&mut graph, map[&y])?];
        for w in wrt {
            shapes.push(build::shape(&mut graph, map[w])?);
        }
        Ok(Inner {
            graph,
            inputs,
            u,
            y: map[&y],
            wrt: wrt.iter().map(|w| map[w]).collect(),
            rows: rows.iter().map(|r| map[r]).collect(),
            shapes,
        })
    }

    /// The variables that make up this inner graph (what pickling keeps).
    pub fn parts(&self) -> Parts {
        Parts {
            inputs: self.inputs.clone(),
            u: self.u,
            y: self.y,
            wrt: self.wrt.clone(),
            rows: self.rows.clone(),
        }
    }

    /// The rows' graph (inputs, then `u`), as `dprint` shows it.
    pub fn rows_fgraph(&self) -> Result<FunctionGraph> {
        let mut inputs = self.inputs.clone();
        inputs.push(self.u);
        FunctionGraph::new(self.graph.clone(), inputs, self.rows.clone())
    }
}

/// Copies the nodes computing `outputs` from `src` into `dst`. `map` gives
/// the copy of each variable already in `dst` (the free variables must all
/// be there; constants are copied as met) and receives the new ones.
/// Returns the copied nodes, in order.
pub fn copy_between(
    src: &Graph,
    outputs: &[VarId],
    dst: &mut Graph,
    map: &mut HashMap<VarId, VarId>,
) -> Result<Vec<NodeId>> {
    let order = toposort_by(src, outputs, |v| map.contains_key(&v))?;
    let mut copied = Vec::new();
    for node in order {
        let n = src.node(node);
        let mut inputs = Vec::with_capacity(n.inputs.len());
        for &v in &n.inputs {
            inputs.push(copy_leaf(src, v, dst, map)?);
        }
        let types = n.outputs.iter().map(|&o| src.var(o).ty.clone()).collect();
        let copy = dst.add_node(n.op.clone(), inputs, types)?;
        for (i, &o) in n.outputs.iter().enumerate() {
            let c = dst.node(copy).outputs[i];
            dst.set_name(c, src.var(o).name.as_deref());
            map.insert(o, c);
        }
        copied.push(copy);
    }
    for &v in outputs {
        copy_leaf(src, v, dst, map)?;
    }
    Ok(copied)
}

/// The copy of `v`: known already, or a constant (copied now). Nodes are
/// copied in order, so any other variable is a free one `map` lacks.
fn copy_leaf(
    src: &Graph,
    v: VarId,
    dst: &mut Graph,
    map: &mut HashMap<VarId, VarId>,
) -> Result<VarId> {
    if let Some(&c) = map.get(&v) {
        return Ok(c);
    }
    let d = src.try_var(v)?;
    if let Some(c) = d.constant() {
        let copy = dst.constant(d.ty.clone(), c.clone(), d.name.as_deref());
        map.insert(v, copy);
        return Ok(copy);
    }
    Err(Error::Value(format!(
        "the variable {} has no counterpart in the graph it is copied into",
        src.describe_var(v)
    )))
}
