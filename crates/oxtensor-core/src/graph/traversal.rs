//! Graph walks with PyTensor's exact orders (`pytensor/graph/traversal.py`):
//! depth-first walks pop the most recently pushed item, so the last input of
//! a node is visited first, and `toposort` emits independent subgraphs in
//! reverse order of the outputs that reach them.

use super::arena::Graph;
use super::ids::{NodeId, VarId};
use crate::error::{Error, Result};
use rustc_hash::FxHashSet;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;

/// Extra ordering constraints: each node must run after the listed nodes.
pub type NodeOrderings = HashMap<NodeId, Vec<NodeId>>;

/// A depth-first walk (`walk(..., bfs=False)`): each item is yielded once,
/// then its expansion is pushed in order and the last pushed is taken next.
pub fn walk_dfs<T: Copy + Eq + Hash>(start: &[T], expand: impl FnMut(T) -> Vec<T>) -> Vec<T> {
    walk(start, expand, false)
}

/// A breadth-first walk (`walk(..., bfs=True)`).
pub fn walk_bfs<T: Copy + Eq + Hash>(start: &[T], expand: impl FnMut(T) -> Vec<T>) -> Vec<T> {
    walk(start, expand, true)
}

/// Expansions are pushed at the back; the next item is taken from the
/// front (`bfs`) or the back.
fn walk<T: Copy + Eq + Hash>(
    start: &[T],
    mut expand: impl FnMut(T) -> Vec<T>,
    bfs: bool,
) -> Vec<T> {
    let mut frontier: VecDeque<T> = start.iter().copied().collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let next = |f: &mut VecDeque<T>| if bfs { f.pop_front() } else { f.pop_back() };
    while let Some(item) = next(&mut frontier) {
        if seen.insert(item) {
            out.push(item);
            frontier.extend(expand(item));
        }
    }
    out
}

fn owner_inputs(g: &Graph, v: VarId) -> Vec<VarId> {
    g.var(v)
        .owner()
        .map(|n| g.node(n).inputs.clone())
        .unwrap_or_default()
}

/// Every variable the outputs depend on, outputs included, not expanding
/// past `blockers` (`ancestors`).
pub fn ancestors(g: &Graph, outputs: &[VarId], blockers: &[VarId]) -> Vec<VarId> {
    let blockers: HashSet<VarId> = blockers.iter().copied().collect();
    walk_dfs(outputs, |v| {
        if blockers.contains(&v) {
            vec![]
        } else {
            owner_inputs(g, v)
        }
    })
}

/// The ancestors that have no owner: roots and constants (`graph_inputs`).
pub fn graph_inputs(g: &Graph, outputs: &[VarId], blockers: &[VarId]) -> Vec<VarId> {
    ancestors(g, outputs, blockers)
        .into_iter()
        .filter(|v| g.var(*v).owner().is_none())
        .collect()
}

/// The nodes computing the ancestors, each once, in the ancestors' order,
/// not the blockers' own (`apply_ancestors`).
pub fn apply_ancestors(g: &Graph, outputs: &[VarId], blockers: &[VarId]) -> Vec<NodeId> {
    owners_once(g, ancestors(g, outputs, blockers), blockers)
}

/// The owners of `vars` other than those in `skip`, each once, in order.
fn owners_once(g: &Graph, vars: Vec<VarId>, skip: &[VarId]) -> Vec<NodeId> {
    let mut seen = HashSet::new();
    vars.into_iter()
        .filter(|v| !skip.contains(v))
        .filter_map(|v| g.var(v).owner())
        .filter(|n| seen.insert(*n))
        .collect()
}

/// Variables between `ins` and `outs`, both ends included (`vars_between`).
pub fn vars_between(g: &Graph, ins: &[VarId], outs: &[VarId]) -> Vec<VarId> {
    ancestors(g, outs, ins)
}

/// Ownerless variables between the ends that are not in `ins` (`orphans_between`).
pub fn orphans_between(g: &Graph, ins: &[VarId], outs: &[VarId]) -> Vec<VarId> {
    vars_between(g, ins, outs)
        .into_iter()
        .filter(|v| g.var(*v).owner().is_none() && !ins.contains(v))
        .collect()
}

/// Nodes between the ends, in walk order (`applys_between`).
pub fn applys_between(g: &Graph, ins: &[VarId], outs: &[VarId]) -> Vec<NodeId> {
    owners_once(g, vars_between(g, ins, outs), ins)
}

/// Nodes between `blockers` and `outputs` in dependency order, by PyTensor's
/// stack algorithm: a node is emitted once all its owned inputs are.
///
/// A node whose inputs are still pending when it comes up a second time
/// depends on itself (its inputs were fully processed in between otherwise),
/// so the graph has a cycle: an error, where PyTensor's loop never ends.
pub fn toposort(g: &Graph, outputs: &[VarId], blockers: &[VarId]) -> Result<Vec<NodeId>> {
    let blocked: FxHashSet<VarId> = blockers.iter().copied().collect();
    toposort_by(g, outputs, |v| blocked.contains(&v))
}

/// [`toposort`] with the blockers given as a predicate (a graph's own
/// membership test, say, where listing the blockers would cost the graph's size).
pub fn toposort_by(
    g: &Graph,
    outputs: &[VarId],
    blocked: impl Fn(VarId) -> bool,
) -> Result<Vec<NodeId>> {
    // Fx hash sets: every rewrite phase sorts the whole graph, and SipHash
    // of each id was most of the cost; marks as long as the arena would
    // cost its size for each small sort (importing one node sorts it).
    let mut computed: FxHashSet<VarId> = FxHashSet::default();
    let mut expanded: FxHashSet<NodeId> = FxHashSet::default();
    let mut todo: Vec<VarId> = outputs.to_vec();
    let mut order = Vec::new();
    while let Some(cur) = todo.pop() {
        if computed.contains(&cur) || blocked(cur) {
            continue;
        }
        let Some(node) = g.var(cur).owner() else {
            continue;
        };
        // `cur` goes back under its pending inputs; if none is pending
        // it comes straight off again and the node is ready.
        todo.push(cur);
        let before = todo.len();
        todo.extend(
            g.node(node)
                .inputs
                .iter()
                .copied()
                .filter(|&i| !computed.contains(&i) && !blocked(i) && g.var(i).owner().is_some()),
        );
        if todo.len() == before {
            todo.pop();
            order.push(node);
            computed.extend(g.node(node).outputs.iter().copied());
        } else if !expanded.insert(node) {
            return Err(Error::Value("graph contains cycles".into()));
        }
    }
    Ok(order)
}

/// An item of the combined variable/node dependency graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Item {
    Var(VarId),
    Node(NodeId),
}

/// `toposort` with extra orderings: Kahn's algorithm over the items found by
/// a depth-first walk, sources taken first-in first-out. Fails on a cycle.
pub fn toposort_with_orderings(
    g: &Graph,
    outputs: &[VarId],
    blockers: &[VarId],
    orderings: &NodeOrderings,
) -> Result<Vec<NodeId>> {
    if orderings.values().all(Vec::is_empty) {
        return toposort(g, outputs, blockers);
    }
    let blockers: HashSet<VarId> = blockers.iter().copied().collect();
    let deps = |item: Item| -> Vec<Item> {
        match item {
            Item::Var(v) if blockers.contains(&v) => vec![],
            Item::Var(v) => match g.var(v).owner() {
                Some(n) => std::iter::once(Item::Node(n))
                    .chain(extra(orderings, n))
                    .collect(),
                None => vec![],
            },
            Item::Node(n) => g
                .node(n)
                .inputs
                .iter()
                .map(|&i| Item::Var(i))
                .chain(extra(orderings, n))
                .collect(),
        }
    };
    let start: Vec<Item> = outputs.iter().map(|&v| Item::Var(v)).collect();
    let sorted = kahn(&start, deps)?;
    Ok(sorted
        .into_iter()
        .filter_map(|i| if let Item::Node(n) = i { Some(n) } else { None })
        .collect())
}

fn extra(orderings: &NodeOrderings, n: NodeId) -> impl Iterator<Item = Item> + '_ {
    orderings
        .get(&n)
        .into_iter()
        .flatten()
        .map(|&p| Item::Node(p))
}

/// Kahn's algorithm in PyTensor's `walk_toposort` order.
pub fn kahn<T: Copy + Eq + Hash>(start: &[T], deps: impl Fn(T) -> Vec<T>) -> Result<Vec<T>> {
    // Counts, not lists, of unmet dependencies: a destroyer with thousands
    // of readers ordered before it would make removing them one by one
    // from a list quadratic. A dependency listed twice is met twice.
    let mut remaining: HashMap<T, usize> = HashMap::new();
    let mut clients: HashMap<T, Vec<T>> = HashMap::new();
    let mut sources = VecDeque::new();
    let visited = walk_dfs(start, |item| {
        let d = deps(item);
        for &child in &d {
            clients.entry(child).or_default().push(item);
        }
        if d.is_empty() {
            sources.push_back(item);
        }
        remaining.insert(item, d.len());
        d
    });
    let mut done = HashSet::new();
    let mut out = Vec::with_capacity(visited.len());
    while let Some(item) = sources.pop_front() {
        if !done.insert(item) {
            continue;
        }
        out.push(item);
        for &client in clients.get(&item).into_iter().flatten() {
            let left = remaining.get_mut(&client).expect("every client was walked");
            *left -= 1;
            if *left == 0 {
                sources.push_back(client);
            }
        }
    }
    if out.len() != visited.len() {
        return Err(Error::Value("graph contains cycles".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::ops::elemwise::Elemwise;
    use crate::scalar::ScalarKind;
    use crate::types::TensorType;
    use std::sync::Arc;

    struct Fixture {
        g: Graph,
        r: [VarId; 3],
        o1: VarId,
        o2: VarId,
    }

    /// `o1 = op(r1, r2); o2 = op(r3, o1)`, as in PyTensor's traversal tests.
    fn fixture() -> Fixture {
        let mut g = Graph::new();
        let ty = TensorType::scalar(DType::Float64);
        let r = [
            g.input(ty.clone(), Some("r1")),
            g.input(ty.clone(), Some("r2")),
            g.input(ty, Some("r3")),
        ];
        let add = Arc::new(Elemwise::new(ScalarKind::Add));
        let o1 = g.apply_out(add.clone(), &[r[0], r[1]]).unwrap();
        let o2 = g.apply_out(add, &[r[2], o1]).unwrap();
        Fixture { g, r, o1, o2 }
    }

    #[test]
    fn walks_in_pytensor_order() {
        let Fixture {
            g,
            r: [r1, r2, r3],
            o1,
            o2,
        } = fixture();
        assert_eq!(ancestors(&g, &[o2], &[]), vec![o2, o1, r2, r1, r3]);
        assert_eq!(ancestors(&g, &[o2], &[o1]), vec![o2, o1, r3]);
        assert_eq!(graph_inputs(&g, &[o2], &[]), vec![r2, r1, r3]);
        assert_eq!(vars_between(&g, &[r1, r2], &[o2]), vec![o2, o1, r2, r1, r3]);
        assert_eq!(orphans_between(&g, &[r1, r2], &[o2]), vec![r3]);
        let bfs = walk_bfs(&[o2], |v| owner_inputs(&g, v));
        assert_eq!(bfs, vec![o2, r3, o1, r1, r2]);
    }

    #[test]
    fn toposort_orders() {
        let Fixture {
            g,
            r: [r1, ..],
            o1,
            o2,
        } = fixture();
        let (n1, n2) = (g.var(o1).owner().unwrap(), g.var(o2).owner().unwrap());
        assert_eq!(toposort(&g, &[o2], &[]).unwrap(), vec![n1, n2]);
        assert_eq!(toposort(&g, &[o2], &[o1]).unwrap(), vec![n2]);
        assert_eq!(toposort(&g, &[o2], &[r1]).unwrap(), vec![n1, n2]);
        let mut ord = NodeOrderings::new();
        ord.insert(n1, vec![n2]);
        assert!(toposort_with_orderings(&g, &[o2], &[], &ord).is_err());
    }

    #[test]
    fn apply_ancestors_lists_each_node_once_and_stops_at_blockers() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
        let e = build::exp(&mut g, x).unwrap();
        let y = build::add(&mut g, e, e).unwrap();
        let (add, exp) = (g.var(y).owner().unwrap(), g.var(e).owner().unwrap());
        assert_eq!(apply_ancestors(&g, &[y], &[]), vec![add, exp]);
        assert_eq!(apply_ancestors(&g, &[y], &[e]), vec![add]);
        assert!(apply_ancestors(&g, &[x], &[]).is_empty());
    }

    #[test]
    fn independent_subgraphs_come_out_reversed() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
        let exp = build::exp(&mut g, x).unwrap();
        let log = build::log(&mut g, x).unwrap();
        let sin = build::sin(&mut g, x).unwrap();
        let add = g
            .apply_out(Arc::new(Elemwise::new(ScalarKind::Add)), &[exp, log, sin])
            .unwrap();
        let names: Vec<String> = toposort(&g, &[add], &[])
            .unwrap()
            .iter()
            .map(|n| g.node(*n).op.describe())
            .collect();
        assert_eq!(names, ["Sin", "Log", "Exp", "Add"]);
        let names: Vec<String> = toposort(&g, &[exp, log], &[x])
            .unwrap()
            .iter()
            .map(|n| g.node(*n).op.describe())
            .collect();
        assert_eq!(names, ["Log", "Exp"]);
    }

    #[test]
    fn cycles_are_errors_not_endless_loops() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
        let exp = build::exp(&mut g, x).unwrap();
        let log = build::log(&mut g, exp).unwrap();
        let exp_node = g.var(exp).owner().unwrap();
        g.node_mut(exp_node).inputs[0] = log;
        for outputs in [vec![log], vec![exp], vec![log, exp]] {
            let err = toposort(&g, &outputs, &[]).unwrap_err();
            assert_eq!(err.to_string(), "graph contains cycles");
        }
        let empty = NodeOrderings::new();
        assert!(toposort_with_orderings(&g, &[log], &[], &empty).is_err());
        assert_eq!(ancestors(&g, &[log], &[]), vec![log, exp]);
    }
}
