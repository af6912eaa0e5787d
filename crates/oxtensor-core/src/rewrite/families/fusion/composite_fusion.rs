//! `composite_elemwise_fusion` (PyTensor's `FusionOptimizer`): each group
//! `groups.rs` finds becomes one `Elemwise(Composite)` node whose inner
//! graph is the group's nodes, with an output for the root and for every
//! member read outside the group. Groups are replaced in the order they
//! were found (last roots first), as PyTensor replaces its subgraphs.

use super::groups::{find, Group};
use crate::error::{Error, Result};
use crate::graph::{Client, CycleCheck, FunctionGraph, NodeId, VarId};
use crate::ops::elemwise::Elemwise;
use crate::rewrite::{GraphRewriter, RewriterStats, RunContext};
use crate::scalar::composite::{Composite, Operand};
use crate::scalar::ScalarOp;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

/// The pass.
pub(super) struct CompositeFusion;

impl GraphRewriter for CompositeFusion {
    fn name(&self) -> &str {
        "composite_elemwise_fusion"
    }

    fn apply(&self, fg: &mut FunctionGraph, run: &mut RunContext) -> Result<bool> {
        let start = Instant::now();
        let groups = find(fg)?;
        let before = fg.set_cycle_check(CycleCheck::Shallow);
        let mut fused = 0;
        for group in &groups {
            let done = fuse(fg, group)
                .and_then(|pairs| fg.replace_all_validate(&pairs, "composite_elemwise_fusion"));
            match done {
                Ok(()) => fused += 1,
                Err(e) => {
                    let at = fg
                        .graph()
                        .describe_node(group.members[group.members.len() - 1]);
                    if let Err(e) = run.failure(e.at_rewrite(self.name(), at)) {
                        fg.set_cycle_check(before);
                        return Err(e);
                    }
                }
            }
        }
        fg.set_cycle_check(before);
        let stats = RewriterStats {
            calls: groups.len() as u64,
            applied: fused,
            failed: groups.len() as u64 - fused,
            time: start.elapsed(),
        };
        run.profile.record(self.name(), &stats);
        Ok(fused > 0)
    }
}

/// Builds `group`'s node; returns the `(old, new)` output pairs. Inputs
/// come in the order the root's expression reads them (`i0` leftmost),
/// outputs the root's first.
fn fuse(fg: &mut FunctionGraph, group: &Group) -> Result<Vec<(VarId, VarId)>> {
    let members: HashSet<NodeId> = group.members.iter().copied().collect();
    let leaves = leaf_order(fg, group, &members);
    let g = fg.graph();
    let mut at: HashMap<VarId, Operand> = leaves
        .iter()
        .enumerate()
        .map(|(i, &v)| (v, Operand::Input(i)))
        .collect();
    let dtypes = leaves
        .iter()
        .map(|&v| {
            let ty = g
                .var(v)
                .ty
                .as_tensor()
                .ok_or_else(|| Error::Type(format!("{} is not a tensor", g.describe_var(v))))?;
            Ok(ty.dtype)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut b = Composite::builder(&dtypes);
    let mut exposed: Vec<VarId> = Vec::new();
    for &m in &group.members {
        let node = g.node(m);
        let e = node
            .op
            .as_any()
            .downcast_ref::<Elemwise>()
            .ok_or_else(|| Error::Type(format!("{} is not an Elemwise", node.op)))?;
        let args: Vec<Operand> = node.inputs.iter().map(|v| at[v]).collect();
        let outs = match &e.scalar_op {
            ScalarOp::Composite(c) => b.inline(c, &args)?,
            op => vec![b.push(op.clone(), &args)?],
        };
        for (&v, o) in node.outputs.iter().zip(outs) {
            at.insert(v, o);
            if read_outside(fg, v, &members) {
                exposed.push(v);
            }
        }
    }
    // The root's outputs (exposed last) go first.
    let root = &g.node(group.members[group.members.len() - 1]).outputs;
    let theirs = exposed
        .iter()
        .rev()
        .take_while(|v| root.contains(v))
        .count();
    exposed.rotate_right(theirs);
    let outputs: Vec<Operand> = exposed.iter().map(|v| at[v]).collect();
    let op = Elemwise::new(ScalarOp::Composite(Arc::new(b.finish(&outputs)?)));
    let node = fg.graph_mut().apply(Arc::new(op), &leaves)?;
    let news = fg.graph().node(node).outputs.clone();
    Ok(exposed.into_iter().zip(news).collect())
}

/// The group's inputs (variables it reads that no member computes) in
/// depth-first order from the root, each input's subtree left to right.
fn leaf_order(fg: &FunctionGraph, group: &Group, members: &HashSet<NodeId>) -> Vec<VarId> {
    let g = fg.graph();
    let mut leaves = Vec::new();
    let mut seen: HashSet<VarId> = HashSet::new();
    let mut visited: HashSet<NodeId> = HashSet::new();
    for &start in group.members.iter().rev() {
        if !visited.insert(start) {
            continue;
        }
        let mut stack = vec![(start, 0)];
        while let Some((n, i)) = stack.last_mut() {
            let Some(&v) = g.node(*n).inputs.get(*i) else {
                stack.pop();
                continue;
            };
            *i += 1;
            match g.var(v).owner().filter(|o| members.contains(o)) {
                Some(m) if visited.insert(m) => stack.push((m, 0)),
                Some(_) => {}
                None if seen.insert(v) => leaves.push(v),
                None => {}
            }
        }
    }
    leaves
}

/// Whether `v` is a graph output or has a reader outside `members`.
fn read_outside(fg: &FunctionGraph, v: VarId, members: &HashSet<NodeId>) -> bool {
    fg.clients(v).iter().any(|c| match *c {
        Client::Node(n, _) => !members.contains(&n),
        Client::Output(_) => true,
    })
}
