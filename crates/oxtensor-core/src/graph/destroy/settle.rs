//! Validation, incrementally: the events since the last validation left
//! destroyers, reads and view moves to look at and data edges to order.
//! Each gives the dependency edges it adds (a reader before its
//! destroyer, a producer before its new reader); the order takes them one
//! by one and finds any cycle in the region between each edge's ends.
//! Nothing else in the graph is looked at.

use super::order::{Cycle, Deps, TopoOrder};
use super::views::Views;
use super::DestroyHandler;
use crate::error::{Error, Result};
use crate::graph::{traversal, Client, FunctionGraph, NodeId, VarId};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::BTreeMap;

/// What changed since the last validation.
#[derive(Debug, Default)]
pub(super) struct Pending {
    /// Destroyers imported or changed: checked in full.
    pub(super) destroyers: Vec<NodeId>,
    /// `(reader, variable)`: a new read of an alias of a destroyed value.
    pub(super) reads: Vec<(NodeId, VarId)>,
    /// Views re-pointed: all readers of their trees.
    pub(super) moved: Vec<VarId>,
    /// `(producer, reader)`: data edges from input changes.
    pub(super) edges: Vec<(NodeId, NodeId)>,
    /// Set when so many events went unvalidated that rebuilding costs less
    /// than replaying them (the lists are then dropped).
    pub(super) overflowed: bool,
}

impl Pending {
    /// Bounds the lists: past a few events per node, a rebuild is cheaper.
    pub(super) fn note_event(&mut self, n_nodes: usize) {
        let len = self.destroyers.len() + self.reads.len() + self.moved.len() + self.edges.len();
        if len > 4 * n_nodes + 4096 {
            *self = Pending {
                overflowed: true,
                ..Pending::default()
            };
        }
    }

    /// Takes back what a failed validation did not get through.
    pub(super) fn absorb(&mut self, mut older: Pending) {
        older.destroyers.append(&mut self.destroyers);
        older.reads.append(&mut self.reads);
        older.moved.append(&mut self.moved);
        older.edges.append(&mut self.edges);
        older.overflowed |= self.overflowed;
        *self = older;
    }
}

/// An edge to add to the order, and why it exists (for the message).
struct Edge {
    before: NodeId,
    after: NodeId,
    /// The variable `before` reads that `after` destroys, for an ordering.
    destroyed: Option<VarId>,
}

/// The dependency graph the order's searches walk: data edges plus the
/// handler's orderings, read from the current state.
struct DepGraph<'a> {
    fg: &'a FunctionGraph,
    views: &'a Views,
    by_root: &'a FxHashMap<VarId, SmallVec<[NodeId; 1]>>,
    destroyed: &'a BTreeMap<NodeId, SmallVec<[(usize, VarId); 2]>>,
}

impl Deps for DepGraph<'_> {
    fn succ(&self, n: NodeId, out: &mut Vec<NodeId>) {
        let node = self.fg.graph().node(n);
        for &o in &node.outputs {
            out.extend(self.fg.clients(o).iter().filter_map(client_node));
        }
        for &v in &node.inputs {
            if let Some(ds) = self.by_root.get(&self.views.root(v)) {
                out.extend(ds.iter().filter(|&&d| d != n));
            }
        }
    }

    fn pred(&self, n: NodeId, out: &mut Vec<NodeId>) {
        let g = self.fg.graph();
        out.extend(g.node(n).inputs.iter().filter_map(|&v| g.var(v).owner()));
        let Some(entries) = self.destroyed.get(&n) else {
            return;
        };
        for (k, &(_, root)) in entries.iter().enumerate() {
            if entries[..k].iter().any(|&(_, r)| r == root) {
                continue;
            }
            for v in self.views.tree(root) {
                let readers = self.fg.clients(v).iter().filter_map(client_node);
                out.extend(readers.filter(|&r| r != n));
            }
        }
    }
}

fn client_node(c: &Client) -> Option<NodeId> {
    match *c {
        Client::Node(n, _) => Some(n),
        Client::Output(_) => None,
    }
}

impl DestroyHandler {
    /// Checks what `p` lists and orders the edges it adds.
    pub(super) fn settle(&mut self, fg: &FunctionGraph, p: &Pending) -> Result<()> {
        let mut edges = Vec::new();
        if !self.destroyed.is_empty() {
            self.destroyer_edges(fg, p, &mut edges)?;
            self.reader_edges(fg, p, &mut edges);
        }
        for &(a, b) in &p.edges {
            if fg.has_node(a) && fg.has_node(b) && reads_output_of(fg, b, a) {
                edges.push(Edge {
                    before: a,
                    after: b,
                    destroyed: None,
                });
            }
        }
        let deps = DepGraph {
            fg,
            views: &self.views,
            by_root: &self.by_root,
            destroyed: &self.destroyed,
        };
        self.order.take_moved();
        for e in &edges {
            if let Err(Cycle) = self.order.add_edge(e.before, e.after, &deps) {
                return Err(cycle_error(fg, e));
            }
        }
        // The searches assume every edge but the one added holds; edges
        // still waiting their turn may not, and a search bounded by labels
        // can then miss a cycle through them. The nodes that moved show it.
        let moved = self.order.take_moved();
        if moved.iter().all(|&n| self.order.respects(n, &deps)) {
            return Ok(());
        }
        self.reorder_from_scratch(fg)
    }

    /// Orders every node again over data edges and orderings, or names
    /// the cycle they make.
    fn reorder_from_scratch(&mut self, fg: &FunctionGraph) -> Result<()> {
        let ords = self.orderings(fg)?;
        match traversal::toposort_with_orderings(fg.graph(), fg.outputs(), fg.inputs(), &ords) {
            Ok(order) => {
                self.order = TopoOrder::from_sequence(&order);
                Ok(())
            }
            Err(_) => Err(Error::Inconsistency(
                "Dependency graph contains cycles: the nodes that read values before their \
                 destroyers run depend on those destroyers' results"
                    .into(),
            )),
        }
    }

    /// Checks each pending destroyer; its readers must run before it.
    fn destroyer_edges(
        &self,
        fg: &FunctionGraph,
        p: &Pending,
        edges: &mut Vec<Edge>,
    ) -> Result<()> {
        let mut done = rustc_hash::FxHashSet::default();
        for &d in &p.destroyers {
            if !fg.has_node(d) || !done.insert(d) {
                continue;
            }
            self.check_destroyer(fg, d, &mut |r, v| {
                edges.push(Edge {
                    before: r,
                    after: d,
                    destroyed: Some(v),
                })
            })?;
        }
        Ok(())
    }

    /// New reads of destroyed values, and readers of moved view trees.
    fn reader_edges(&self, fg: &FunctionGraph, p: &Pending, edges: &mut Vec<Edge>) {
        let read = |r: NodeId, v: VarId, edges: &mut Vec<Edge>| {
            for &d in self.by_root.get(&self.views.root(v)).into_iter().flatten() {
                if d != r {
                    edges.push(Edge {
                        before: r,
                        after: d,
                        destroyed: Some(v),
                    });
                }
            }
        };
        for &(r, v) in &p.reads {
            if fg.has_node(r) && fg.graph().node(r).inputs.contains(&v) {
                read(r, v, edges);
            }
        }
        for &top in &p.moved {
            for v in self.views.tree(top) {
                for r in fg.clients(v).iter().filter_map(client_node) {
                    read(r, v, edges);
                }
            }
        }
    }
}

/// Whether some input of `reader` is an output of `producer`.
fn reads_output_of(fg: &FunctionGraph, reader: NodeId, producer: NodeId) -> bool {
    let g = fg.graph();
    g.node(reader)
        .inputs
        .iter()
        .any(|&v| g.var(v).owner() == Some(producer))
}

fn cycle_error(fg: &FunctionGraph, e: &Edge) -> Error {
    let g = fg.graph();
    let (before, after) = (g.describe_node(e.before), g.describe_node(e.after));
    Error::Inconsistency(match e.destroyed {
        Some(v) => format!(
            "Dependency graph contains cycles: {before} reads {}, which {after} destroys, so it \
             must run first, but it depends on {after}'s result",
            g.describe_var(v)
        ),
        None => format!(
            "Dependency graph contains cycles: {after} reads the output of {before}, which \
             depends on {after}"
        ),
    })
}
