//! The view forest: for each output an op declares a view of one of its
//! inputs (`view_map`), the variable it looks at (PyTensor's `view_i`) and,
//! the other way, the views of each variable (`view_o`). Following `view_i`
//! up ends at a root, the variable that owns the memory every view in its
//! tree shares. The `DestroyHandler` keeps it current on every event.

use crate::graph::insertion_list::InsertionList;
use crate::graph::{FunctionGraph, Graph, Live, NodeId, VarId};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// `view_i` and `view_o` of the variables in a graph.
#[derive(Clone, Debug, Default)]
pub(super) struct Views {
    /// The variable each view looks at, by variable index (`view_i`).
    parent: Vec<Option<VarId>>,
    /// The views of each variable (`view_o`), in the order they appeared.
    /// A merged constant can have 50,000 of them, dropped one by one as
    /// merging removes its duplicate readers, hence not a plain vector.
    children: FxHashMap<VarId, InsertionList<VarId>>,
}

/// `(output, viewed input position)` for each view a node declares; an
/// output said to view several inputs (or none) is left out and reported
/// by [`unsupported_view`].
pub(super) fn view_pairs(g: &Graph, n: NodeId) -> SmallVec<[(VarId, usize); 2]> {
    let node = g.node(n);
    node.op
        .view_map()
        .into_iter()
        .filter_map(|(o, ins)| match ins[..] {
            [i] if i < node.inputs.len() => Some((*node.outputs.get(o)?, i)),
            _ => None,
        })
        .collect()
}

/// Why the handler cannot follow a node's `view_map`, if it cannot: the
/// seed's "only put a single input number in the list".
pub(super) fn unsupported_view(g: &Graph, n: NodeId) -> Option<String> {
    let node = g.node(n);
    let (o, ins) = node.op.view_map().into_iter().find(|(o, ins)| {
        *o >= node.outputs.len() || ins.len() != 1 || ins[0] >= node.inputs.len()
    })?;
    Some(format!(
        "view_map of {} maps output {o} to inputs {ins:?}; an output may view exactly one input \
         of its node",
        g.describe_node(n)
    ))
}

impl Views {
    /// The variable `v` is a view of, if it is one.
    pub(super) fn parent(&self, v: VarId) -> Option<VarId> {
        self.parent.get(v.index()).copied().flatten()
    }

    /// The views of `v`.
    pub(super) fn children(&self, v: VarId) -> Live<'_, VarId> {
        self.children
            .get(&v)
            .map_or_else(Live::default, InsertionList::live)
    }

    /// `v`, the variable it views, and so on up to its root. The walk is
    /// bounded so a cyclic graph (which validation refuses) cannot hang it.
    pub(super) fn chain(&self, v: VarId) -> impl Iterator<Item = VarId> + '_ {
        std::iter::successors(Some(v), |&cur| self.parent(cur)).take(self.parent.len() + 1)
    }

    /// The root of `v`'s tree: `v` itself when it views nothing.
    pub(super) fn root(&self, v: VarId) -> VarId {
        self.chain(v).last().unwrap_or(v)
    }

    /// `root` and every view of it, transitively, root first, breadth
    /// first (PyTensor's `impact` of a foundation).
    pub(super) fn tree(&self, root: VarId) -> Vec<VarId> {
        let mut out = vec![root];
        let mut k = 0;
        let limit = self.parent.len() + 1;
        while k < out.len() && out.len() < limit {
            out.extend(self.children(out[k]).iter().copied());
            k += 1;
        }
        out.truncate(limit);
        out
    }

    /// Records that `out` views `inp`.
    pub(super) fn link(&mut self, out: VarId, inp: VarId) {
        if self.parent.len() <= out.index() {
            self.parent.resize(out.index() + 1, None);
        }
        self.parent[out.index()] = Some(inp);
        self.children.entry(inp).or_default().push(out);
    }

    /// Forgets that `out` views anything.
    pub(super) fn unlink(&mut self, out: VarId) {
        let Some(inp) = self.parent(out) else { return };
        self.parent[out.index()] = None;
        if let Some(list) = self.children.get_mut(&inp) {
            list.remove(&out);
            if list.is_empty() {
                self.children.remove(&inp);
            }
        }
    }

    /// Registers the views node `n` declares.
    pub(super) fn add_node(&mut self, fg: &FunctionGraph, n: NodeId) {
        let inputs = &fg.graph().node(n).inputs;
        for (out, i) in view_pairs(fg.graph(), n) {
            self.link(out, inputs[i]);
        }
    }

    /// Forgets node `n`'s views, and the views of its outputs (pruned first
    /// or about to be re-pointed by an input change).
    pub(super) fn remove_node(&mut self, fg: &FunctionGraph, n: NodeId) {
        for &out in &fg.graph().node(n).outputs {
            self.unlink(out);
            for &child in self.children.remove(&out).unwrap_or_default().live() {
                if let Some(p) = self.parent.get_mut(child.index()) {
                    *p = None;
                }
            }
        }
    }

    /// Every `(view, viewed)` pair, for `view_i` from Python.
    pub(super) fn pairs(&self) -> impl Iterator<Item = (VarId, VarId)> + '_ {
        self.parent
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.map(|p| (VarId(i as u32), p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(i: u32) -> VarId {
        VarId(i)
    }

    #[test]
    fn roots_and_trees_follow_views_of_views() {
        let mut views = Views::default();
        views.link(v(1), v(0));
        views.link(v(2), v(1));
        views.link(v(3), v(0));
        assert_eq!(views.root(v(2)), v(0));
        assert_eq!(views.root(v(4)), v(4));
        assert_eq!(views.tree(v(0)), vec![v(0), v(1), v(3), v(2)]);
        assert_eq!(views.tree(v(1)), vec![v(1), v(2)]);
        views.unlink(v(1));
        assert_eq!(views.root(v(2)), v(1));
        assert_eq!(views.tree(v(0)), vec![v(0), v(3)]);
        assert_eq!(views.children(v(1)).to_vec(), [v(2)]);
    }

    #[test]
    fn a_cyclic_view_chain_does_not_hang() {
        let mut views = Views::default();
        views.link(v(1), v(0));
        views.link(v(0), v(1));
        let _ = views.root(v(0));
        assert!(views.tree(v(0)).len() <= 3);
    }
}
