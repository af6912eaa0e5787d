//! Finding the groups `composite_elemwise_fusion` fuses, in time linear in
//! the graph: nodes are visited outputs first (reverse toposort), and a
//! fusible node joins the group of a fusible reader when every other reader
//! comes later in the toposort than that group's last node (its root), or
//! is a graph output. Its value is then also an output of the group, which
//! needs it at the group's shape; a node of a smaller broadcast pattern (a
//! row against a matrix) joins only when the group is its only reader.
//!
//! Why no cycle can appear: every edge leaving a group ends at a node
//! after the group's root, so after fusion every edge between groups (a
//! node alone is a group of its own) goes from an earlier root to a later
//! one. PyTensor checks convexity with ancestor bitsets instead, quadratic
//! in the graph; this rule is stricter only for a reader placed before the
//! root that does not depend on the group, which the toposort rarely makes.

use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Client, FunctionGraph, NodeId, VarId};
use crate::kernels::fused::support;
use crate::ops::elemwise::Elemwise;
use crate::scalar::ScalarOp;
use smallvec::SmallVec;
use std::collections::HashMap;

/// A group of nodes to fuse into one `Elemwise(Composite)`.
#[derive(Debug)]
pub(super) struct Group {
    /// The members in toposort order (the root last).
    pub(super) members: Vec<NodeId>,
}

/// What fusion needs to know of a node that may join a group.
struct Fusible {
    dtype: DType,
    /// Which dimensions of its outputs are statically 1.
    ones: SmallVec<[bool; 4]>,
}

/// A group being grown.
struct Growing {
    root: usize,
    dtype: DType,
    ones: SmallVec<[bool; 4]>,
    members: Vec<usize>,
}

/// The groups of two or more nodes, in the order they are found (roots
/// last in the toposort first), which is the order to replace them in.
pub(super) fn find(fg: &FunctionGraph) -> Result<Vec<Group>> {
    let order = fg.toposort()?;
    let pos: HashMap<NodeId, usize> = order.iter().enumerate().map(|(k, &n)| (n, k)).collect();
    let mut group_of: Vec<Option<usize>> = vec![None; order.len()];
    let mut groups: Vec<Growing> = Vec::new();
    for p in (0..order.len()).rev() {
        let Some(me) = fusible(fg, order[p]) else {
            continue;
        };
        let at = |n: NodeId| pos.get(&n).copied();
        let joined = host_group(fg, order[p], &me, &group_of, &groups, at);
        let g = joined.unwrap_or_else(|| {
            groups.push(Growing {
                root: p,
                dtype: me.dtype,
                ones: me.ones.clone(),
                members: Vec::new(),
            });
            groups.len() - 1
        });
        groups[g].members.push(p);
        group_of[p] = Some(g);
    }
    Ok(groups
        .into_iter()
        .filter(|g| g.members.len() > 1)
        .map(|g| Group {
            members: g.members.iter().rev().map(|&p| order[p]).collect(),
        })
        .collect())
}

/// The group `node` joins: that of a reader in a group of its dtype and
/// rank, if every reader outside it comes after the group's root (see the
/// module docs) and, when some does, the node has the group's pattern.
fn host_group(
    fg: &FunctionGraph,
    node: NodeId,
    me: &Fusible,
    group_of: &[Option<usize>],
    groups: &[Growing],
    at: impl Fn(NodeId) -> Option<usize>,
) -> Option<usize> {
    let outputs = &fg.graph().node(node).outputs;
    let clients = || outputs.iter().flat_map(|&v| fg.clients(v).iter());
    let group_of_client = |c: &Client| match *c {
        Client::Node(n, _) => group_of[at(n)?],
        Client::Output(_) => None,
    };
    let g = clients().filter_map(group_of_client).find(|&g| {
        let host = &groups[g];
        host.dtype == me.dtype && host.ones.len() == me.ones.len()
    })?;
    let root = groups[g].root;
    let mut outside = false;
    for c in clients() {
        if group_of_client(c) == Some(g) {
            continue;
        }
        outside = true;
        let later = match *c {
            Client::Node(n, _) => at(n).is_some_and(|k| k > root),
            Client::Output(_) => true,
        };
        if !later {
            return None;
        }
    }
    (!outside || me.ones == groups[g].ones).then_some(g)
}

/// What fusion needs to know of `node`, when the fused kernel can compute
/// it: a plain `Elemwise` of a kind (or composite) it runs, every output
/// of one float dtype.
fn fusible(fg: &FunctionGraph, node: NodeId) -> Option<Fusible> {
    let g = fg.graph();
    let n = g.node(node);
    let e = n.op.as_any().downcast_ref::<Elemwise>()?;
    if !e.inplace_pattern.is_empty() {
        return None;
    }
    let out = g.var(*n.outputs.first()?).ty.as_tensor()?;
    let dtypes: SmallVec<[DType; 4]> = n
        .inputs
        .iter()
        .map(|&v| g.var(v).ty.as_tensor().map(|t| t.dtype))
        .collect::<Option<_>>()?;
    let runs = match &e.scalar_op {
        ScalarOp::Composite(c) => c.nodes().iter().all(|inner| {
            let ds: SmallVec<[DType; 4]> = inner.args.iter().map(|&a| c.dtype_of(a)).collect();
            inner.dtype == out.dtype && support::runs_node(&inner.op, &ds, inner.dtype)
        }),
        op => support::runs_node(op, &dtypes, out.dtype),
    };
    let same = n.outputs.iter().all(|&v| same_type(fg, v, out));
    (runs && same).then(|| Fusible {
        dtype: out.dtype,
        ones: out.shape.iter().map(|&d| d == Some(1)).collect(),
    })
}

fn same_type(fg: &FunctionGraph, v: VarId, like: &crate::types::TensorType) -> bool {
    fg.graph().var(v).ty.as_tensor() == Some(like)
}
