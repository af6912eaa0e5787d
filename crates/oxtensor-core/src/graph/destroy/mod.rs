//! `DestroyHandler` (`pytensor/graph/destroyhandler.py`): the feature that
//! makes inplace work safe. It follows `view_map` (views of views) to the
//! root whose memory a value shares, knows which node destroys each root
//! (`destroy_map`), orders every other reader of a destroyed value before
//! its destroyer, and refuses graphs where that is impossible. State is
//! kept per event, so a validation looks only at what changed since the
//! last one (see `settle.rs`).

mod candidates;
mod check;
mod labels;
mod no_output;
mod order;
mod settle;
mod views;

#[cfg(test)]
mod random_graphs;
#[cfg(test)]
mod tests;

pub use candidates::{fast_inplace_check, inplace_candidates};
pub use no_output::NoOutputFromInplace;

use super::features::{Feature, InputChange, Orderings};
use super::fgraph::{Client, FunctionGraph};
use super::ids::{NodeId, VarId};
use super::traversal;
use crate::error::{Error, Result};
use order::TopoOrder;
use rustc_hash::FxHashMap;
use settle::Pending;
use smallvec::SmallVec;
use std::collections::BTreeMap;
use views::Views;

/// Tracks views and destroyers of a [`FunctionGraph`]; see the module docs.
#[derive(Debug, Default)]
pub struct DestroyHandler {
    views: Views,
    /// Each destroying node's destroyed inputs, as `(input position, root
    /// of that input)`, by node id (so orderings come out in a fixed order).
    destroyed: BTreeMap<NodeId, SmallVec<[(usize, VarId); 2]>>,
    /// The destroyers of each destroyed root; a consistent graph has one.
    by_root: FxHashMap<VarId, SmallVec<[NodeId; 1]>>,
    /// Nodes whose `view_map` the handler cannot follow, with why.
    unsupported: BTreeMap<NodeId, String>,
    order: TopoOrder,
    pending: Pending,
}

/// The inputs `n` destroys, each position once, in `destroy_map` order
/// (several lists, and several inputs in one list, are all supported).
fn destroyed_positions(fg: &FunctionGraph, n: NodeId) -> SmallVec<[usize; 2]> {
    let node = fg.graph().node(n);
    let mut out = SmallVec::new();
    for (_, ins) in node.op.destroy_map() {
        for i in ins {
            if i < node.inputs.len() && !out.contains(&i) {
                out.push(i);
            }
        }
    }
    out
}

/// Whether any node of `fg` declares a `destroy_map`.
pub fn has_destroy_ops(fg: &FunctionGraph) -> bool {
    fg.apply_nodes()
        .any(|n| !fg.graph().node(n).op.destroy_map().is_empty())
}

/// How a program runs a graph: its nodes in order, and the orderings the
/// order respects (what must run before each node besides its inputs).
#[derive(Debug, Default)]
pub struct Schedule {
    /// The nodes in the order they run.
    pub order: Vec<NodeId>,
    /// Every feature's orderings, merged.
    pub before: Orderings,
}

/// The schedule of `fg`: a toposort with every feature's orderings, those
/// of its [`DestroyHandler`] included; a graph holding inplace ops but no
/// handler (one rebuilt from its Python objects after pickling) gets the
/// orderings of a handler made for the occasion.
pub fn schedule(fg: &FunctionGraph) -> Result<Schedule> {
    let mut before = fg.orderings()?;
    if fg.feature::<DestroyHandler>().is_none() && has_destroy_ops(fg) {
        let mut dh = DestroyHandler::new();
        dh.import_all(fg);
        for (n, b) in dh.orderings(fg)? {
            before.entry(n).or_default().extend(b);
        }
    }
    let order = traversal::toposort_with_orderings(fg.graph(), fg.outputs(), fg.inputs(), &before)?;
    Ok(Schedule { order, before })
}

impl DestroyHandler {
    /// A handler for one graph; attach it with
    /// [`FunctionGraph::attach_feature`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The root of `v`'s view tree: the variable whose memory it shares.
    pub fn root(&self, v: VarId) -> VarId {
        self.views.root(v)
    }

    /// The variable `v` is a view of (`view_i`), if any.
    pub fn view_of(&self, v: VarId) -> Option<VarId> {
        self.views.parent(v)
    }

    /// Every `(view, viewed)` pair (`view_i`).
    pub fn view_pairs(&self) -> Vec<(VarId, VarId)> {
        self.views.pairs().collect()
    }

    /// `root` and all its views, transitively (PyTensor's `impact`).
    pub fn aliases(&self, root: VarId) -> Vec<VarId> {
        self.views.tree(root)
    }

    /// The nodes that destroy `v` or any alias of it (at most one in a
    /// consistent graph).
    pub fn destroyers(&self, v: VarId) -> Vec<NodeId> {
        self.by_root
            .get(&self.views.root(v))
            .map_or_else(Vec::new, |d| d.to_vec())
    }

    /// Whether any of `vars`, or any alias of one, is destroyed.
    pub fn has_destroyers(&self, vars: &[VarId]) -> bool {
        vars.iter()
            .any(|&v| self.by_root.contains_key(&self.views.root(v)))
    }

    /// The destroying nodes, with the roots each destroys (`droot` and
    /// `root_destroyer` from the other side).
    pub fn destroyed_roots(&self) -> impl Iterator<Item = (NodeId, VarId)> + '_ {
        self.destroyed
            .iter()
            .flat_map(|(&n, e)| e.iter().map(move |&(_, r)| (n, r)))
    }

    /// Whether some node destroys something.
    pub fn any_destroyer(&self) -> bool {
        !self.destroyed.is_empty()
    }

    /// Every destroyer's readers, as orderings: each other reader of an
    /// alias of a destroyed value runs first. Fails on a graph the handler
    /// would refuse for any reason but a cycle.
    pub fn orderings(&self, fg: &FunctionGraph) -> Result<Orderings> {
        let mut out = Orderings::new();
        for &d in self.destroyed.keys() {
            let mut before = Vec::new();
            self.check_destroyer(fg, d, &mut |r, _| before.push(r))?;
            let mut seen = rustc_hash::FxHashSet::default();
            before.retain(|r| seen.insert(*r));
            if !before.is_empty() {
                out.insert(d, before);
            }
        }
        Ok(out)
    }

    /// Records node `n`'s destroyed inputs and their roots (again, after
    /// a change), and marks it for checking.
    fn bind(&mut self, fg: &FunctionGraph, n: NodeId) {
        self.unbind(n);
        let inputs = &fg.graph().node(n).inputs;
        let entries: SmallVec<[(usize, VarId); 2]> = destroyed_positions(fg, n)
            .into_iter()
            .map(|p| (p, self.views.root(inputs[p])))
            .collect();
        if entries.is_empty() {
            return;
        }
        for (k, &(_, root)) in entries.iter().enumerate() {
            if !entries[..k].iter().any(|&(_, r)| r == root) {
                self.by_root.entry(root).or_default().push(n);
            }
        }
        self.destroyed.insert(n, entries);
        self.pending.destroyers.push(n);
    }

    fn unbind(&mut self, n: NodeId) {
        let Some(entries) = self.destroyed.remove(&n) else {
            return;
        };
        for (_, root) in entries {
            if let Some(list) = self.by_root.get_mut(&root) {
                list.retain(|d| *d != n);
                if list.is_empty() {
                    self.by_root.remove(&root);
                }
            }
        }
    }

    /// Registers node `n`'s views and destroyed inputs.
    fn register(&mut self, fg: &FunctionGraph, n: NodeId) {
        self.views.add_node(fg, n);
        if let Some(why) = views::unsupported_view(fg.graph(), n) {
            self.unsupported.insert(n, why);
        }
        self.bind(fg, n);
    }

    /// Registers every node of `fg` from scratch (attach, or a rebuild).
    fn import_all(&mut self, fg: &FunctionGraph) -> Vec<NodeId> {
        *self = DestroyHandler::default();
        let nodes = traversal::toposort(fg.graph(), fg.outputs(), fg.inputs())
            .unwrap_or_else(|_| fg.apply_nodes().collect());
        for &n in &nodes {
            self.register(fg, n);
        }
        nodes
    }

    /// Rebuilds everything, the order included: with the handler's
    /// orderings when the graph allows them, else by data edges alone
    /// (the destroyers, all marked, then find what is wrong).
    fn rebuild(&mut self, fg: &FunctionGraph) {
        let nodes = self.import_all(fg);
        let full = self.orderings(fg).and_then(|ords| {
            traversal::toposort_with_orderings(fg.graph(), fg.outputs(), fg.inputs(), &ords)
        });
        self.order = TopoOrder::from_sequence(full.as_deref().unwrap_or(&nodes));
    }

    /// `out`'s view tree hangs from another variable now: destroyers
    /// reading it have new roots or new aliasing, and all its readers are
    /// checked again.
    fn moved(&mut self, fg: &FunctionGraph, out: VarId) {
        let mut rebind = Vec::new();
        for v in self.views.tree(out) {
            for &c in fg.clients(v) {
                // Any position: a destroyer reading the tree through an
                // input it does not destroy may now alias what it destroys.
                if let Client::Node(m, _) = c {
                    if self.destroyed.contains_key(&m) && !rebind.contains(&m) {
                        rebind.push(m);
                    }
                }
            }
        }
        for m in rebind {
            self.bind(fg, m);
        }
        self.pending.moved.push(out);
    }

    /// Notes that `reader` reads `v`, if that matters to a destroyer now.
    fn note_read(&mut self, reader: NodeId, v: VarId) {
        if self.by_root.contains_key(&self.views.root(v)) {
            self.pending.reads.push((reader, v));
        }
    }
}

impl Feature for DestroyHandler {
    crate::graph::feature_identity!("DestroyHandler");

    fn on_attach(&mut self, fg: &FunctionGraph) -> Result<()> {
        crate::graph::attach_once::<DestroyHandler>(fg, "DestroyHandler is already attached")?;
        self.rebuild(fg);
        Ok(())
    }

    fn on_import(&mut self, fg: &FunctionGraph, node: NodeId, _reason: &str) -> Result<()> {
        self.register(fg, node);
        self.order.insert_after_inputs(fg, node);
        for &v in &fg.graph().node(node).inputs {
            self.note_read(node, v);
        }
        self.pending.note_event(self.order.len());
        Ok(())
    }

    fn on_prune(&mut self, fg: &FunctionGraph, node: NodeId, _reason: &str) -> Result<()> {
        self.views.remove_node(fg, node);
        self.unbind(node);
        self.unsupported.remove(&node);
        self.order.remove(node);
        Ok(())
    }

    fn on_change_input(&mut self, fg: &FunctionGraph, change: &InputChange) -> Result<()> {
        let InputChange { client, new, .. } = *change;
        // An output changing is the Supervisor's business, not a reader's.
        let Client::Node(n, i) = client else {
            return Ok(());
        };
        for (out, pos) in views::view_pairs(fg.graph(), n) {
            if pos == i {
                self.views.unlink(out);
                self.views.link(out, new);
                self.moved(fg, out);
            }
        }
        // A destroyer reading something else may now alias what it destroys.
        if self.destroyed.contains_key(&n) {
            self.bind(fg, n);
        }
        self.note_read(n, new);
        if let Some(p) = fg.graph().var(new).owner() {
            self.pending.edges.push((p, n));
        }
        self.pending.note_event(self.order.len());
        Ok(())
    }

    fn on_validate(&mut self, fg: &FunctionGraph) -> Result<()> {
        if let Some(why) = self.unsupported.values().next() {
            return Err(Error::OutOfScope(why.clone()));
        }
        if self.pending.overflowed {
            self.rebuild(fg);
        }
        let pending = std::mem::take(&mut self.pending);
        let result = self.settle(fg, &pending);
        if result.is_err() {
            // Kept for the next validation: the caller may not revert.
            self.pending.absorb(pending);
        }
        result
    }

    fn orderings(&self, fg: &FunctionGraph) -> Result<Orderings> {
        DestroyHandler::orderings(self, fg)
    }
}
