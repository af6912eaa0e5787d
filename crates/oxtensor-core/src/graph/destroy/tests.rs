//! The handler on small graphs built from [`MapOp`]s, an op whose maps are
//! whatever a test says: the seed's examples, PyTensor's refusals with
//! their messages, and the incremental bookkeeping under replacements.

use super::*;
use crate::compile::aliasing::{protected_vars, Supervisor};
use crate::dtype::DType;
use crate::graph::Graph;
use crate::ops::{IoMap, Op, OpRef};
use crate::types::{TensorType, Type};
use std::sync::Arc;

/// An op with the maps a test gives it (its outputs take input 0's type).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct MapOp {
    pub(super) label: String,
    pub(super) n_out: usize,
    pub(super) view: IoMap,
    pub(super) destroy: IoMap,
    pub(super) same: Vec<(usize, usize)>,
    pub(super) aliased: Vec<(usize, usize)>,
}

impl Op for MapOp {
    crate::op_identity!("MapOp");
    fn describe(&self) -> String {
        self.label.clone()
    }
    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let ty = inputs.first().map_or_else(
            || TensorType::scalar(DType::Float64).into(),
            |t| (*t).clone(),
        );
        Ok(vec![ty; self.n_out.max(1)])
    }
    fn view_map(&self) -> IoMap {
        self.view.clone()
    }
    fn destroy_map(&self) -> IoMap {
        self.destroy.clone()
    }
    fn destroyhandler_tolerate_same(&self) -> Vec<(usize, usize)> {
        self.same.clone()
    }
    fn destroyhandler_tolerate_aliased(&self) -> Vec<(usize, usize)> {
        self.aliased.clone()
    }
}

pub(super) fn pure(label: &str) -> OpRef {
    Arc::new(MapOp {
        label: label.into(),
        ..MapOp::default()
    })
}

pub(super) fn view(label: &str) -> OpRef {
    Arc::new(MapOp {
        label: label.into(),
        view: vec![(0, vec![0])],
        ..MapOp::default()
    })
}

pub(super) fn inplace(label: &str, destroy: IoMap) -> OpRef {
    Arc::new(MapOp {
        label: label.into(),
        destroy,
        ..MapOp::default()
    })
}

fn add_inplace() -> OpRef {
    inplace("add_inplace", vec![(0, vec![0])])
}

/// A fresh graph with float64 scalar inputs of these names.
fn scalars<const N: usize>(names: [&str; N]) -> (Graph, [VarId; N]) {
    crate::graph::testing::graph_with(names.map(|n| (n, DType::Float64, 0)))
}

fn ap(g: &mut Graph, op: OpRef, inputs: &[VarId]) -> VarId {
    let n = g.apply(op, inputs).unwrap();
    g.node(n).outputs[0]
}

fn owner(fg: &FunctionGraph, v: VarId) -> NodeId {
    fg.graph().var(v).owner().unwrap()
}

fn with_handler(g: Graph, inputs: Vec<VarId>, outputs: Vec<VarId>) -> FunctionGraph {
    let mut fg = FunctionGraph::new(g, inputs, outputs).unwrap();
    fg.attach_feature(Box::new(DestroyHandler::new())).unwrap();
    fg
}

fn dh(fg: &FunctionGraph) -> &DestroyHandler {
    fg.feature::<DestroyHandler>().unwrap()
}

fn refusal(fg: &mut FunctionGraph) -> String {
    fg.validate().unwrap_err().to_string()
}

fn position(order: &[NodeId], n: NodeId) -> usize {
    order.iter().position(|&m| m == n).unwrap()
}

/// The seed: `r1 = log(x); r2 = add_inplace(x, y); r3 = log(x); r4 =
/// log(r2)`; `x + y` and both logs of `x` run before the addition.
#[test]
fn readers_of_the_destroyed_value_run_first() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let e = ap(&mut g, pure("add"), &[x, y]);
    let r1 = ap(&mut g, pure("log"), &[x]);
    let r2 = ap(&mut g, add_inplace(), &[x, y]);
    let r3 = ap(&mut g, pure("log"), &[x]);
    let r4 = ap(&mut g, pure("log"), &[r2]);
    let mut fg = with_handler(g, vec![x, y], vec![e, r1, r3, r4]);
    fg.validate().unwrap();
    let d = owner(&fg, r2);
    assert_eq!(dh(&fg).destroyers(x), vec![d]);
    assert!(dh(&fg).destroyers(y).is_empty());
    assert!(dh(&fg).has_destroyers(&[y, x]));
    let ords = fg.orderings().unwrap();
    let mut before = ords[&d].clone();
    before.sort();
    let mut want = vec![owner(&fg, e), owner(&fg, r1), owner(&fg, r3)];
    want.sort();
    assert_eq!(before, want);
    let order = fg.toposort().unwrap();
    for r in [e, r1, r3] {
        assert!(position(&order, owner(&fg, r)) < position(&order, d));
    }
    assert!(position(&order, d) < position(&order, owner(&fg, r4)));
}

/// Views of views share the root's memory: destroying the deepest view
/// destroys the root, and every reader of the tree runs first.
#[test]
fn destroyers_reach_through_views_of_views() {
    let (mut g, [x]) = scalars(["x"]);
    let v1 = ap(&mut g, view("v1"), &[x]);
    let v2 = ap(&mut g, view("v2"), &[v1]);
    let r = ap(&mut g, pure("read"), &[v1]);
    let d = ap(&mut g, add_inplace(), &[v2]);
    let mut fg = with_handler(g, vec![x], vec![r, d]);
    fg.validate().unwrap();
    let dn = owner(&fg, d);
    assert_eq!(dh(&fg).root(v2), x);
    assert_eq!(dh(&fg).view_of(v2), Some(v1));
    assert_eq!(dh(&fg).aliases(x), vec![x, v1, v2]);
    for v in [x, v1, v2] {
        assert_eq!(dh(&fg).destroyers(v), vec![dn]);
    }
    let order = fg.toposort().unwrap();
    assert!(position(&order, owner(&fg, r)) < position(&order, dn));
}

#[test]
fn two_destroyers_of_one_value_or_of_two_views_are_refused() {
    for through_view in [false, true] {
        let (mut g, [x]) = scalars(["x"]);
        let other = if through_view {
            ap(&mut g, view("T"), &[x])
        } else {
            x
        };
        let d1 = ap(&mut g, add_inplace(), &[x]);
        let d2 = ap(&mut g, inplace("mul_inplace", vec![(0, vec![0])]), &[other]);
        let mut fg = with_handler(g, vec![x], vec![d1, d2]);
        let msg = refusal(&mut fg);
        assert!(msg.starts_with("Multiple destroyers of x: "), "{msg}");
        assert!(
            msg.contains("add_inplace(x)") && msg.contains("mul_inplace("),
            "{msg}"
        );
    }
}

#[test]
fn constants_and_indestructible_values_are_refused() {
    let (mut g, [x]) = scalars(["x"]);
    let c = g.tensor_constant(crate::tensor::Tensor::scalar(2.0f64));
    let d = ap(&mut g, add_inplace(), &[c]);
    let mut fg = with_handler(g, vec![x], vec![d]);
    let msg = refusal(&mut fg);
    assert!(
        msg.starts_with("Attempting to destroy indestructible variables: [2.0]"),
        "{msg}"
    );

    let (mut g, [x]) = scalars(["x"]);
    let v = ap(&mut g, view("v"), &[x]);
    g.var_mut(x).indestructible = true;
    let d = ap(&mut g, add_inplace(), &[v]);
    let mut fg = with_handler(g, vec![x], vec![d]);
    let msg = refusal(&mut fg);
    assert!(msg.contains("indestructible variables: [x]"), "{msg}");
    assert!(msg.contains("destroyed by add_inplace(v.0)"), "{msg}");
}

/// `add_inplace(x, x)` and `add_inplace(x, x.T)`: refused unless the op
/// tolerates the same variable, or any alias, at that position.
/// `(second input through a view, tolerate_same, tolerate_aliased, accepted)`.
type AliasCase = (bool, Vec<(usize, usize)>, Vec<(usize, usize)>, bool);

#[test]
fn input_aliasing_follows_the_tolerate_lists() {
    let cases: [AliasCase; 5] = [
        (false, vec![], vec![], false),
        (false, vec![(0, 1)], vec![], true),
        (true, vec![(0, 1)], vec![], false),
        (true, vec![], vec![(0, 1)], true),
        (false, vec![(1, 0)], vec![], false),
    ];
    for (through_view, same, aliased, ok) in cases {
        let (mut g, [x]) = scalars(["x"]);
        let second = if through_view {
            ap(&mut g, view("T"), &[x])
        } else {
            x
        };
        let op = Arc::new(MapOp {
            label: "add_inplace".into(),
            destroy: vec![(0, vec![0])],
            same: same.clone(),
            aliased: aliased.clone(),
            ..MapOp::default()
        });
        let d = ap(&mut g, op, &[x, second]);
        let mut fg = with_handler(g, vec![x], vec![d]);
        match fg.validate() {
            Ok(()) => assert!(ok, "{same:?} {aliased:?} {through_view}"),
            Err(e) => {
                assert!(!ok, "{e}");
                assert!(
                    e.to_string().starts_with("Input aliasing: add_inplace(x, "),
                    "{e}"
                );
            }
        }
    }
}

/// A reader of `x` that also needs the destroyer's result cannot run
/// before it: the destruction would need a cycle.
#[test]
fn a_destruction_needing_a_cycle_is_refused() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let d = ap(&mut g, add_inplace(), &[x, y]);
    let late = ap(&mut g, pure("late"), &[x, d]);
    let mut fg = with_handler(g, vec![x, y], vec![late]);
    let msg = refusal(&mut fg);
    assert!(
        msg.starts_with("Dependency graph contains cycles: late(x, add_inplace.0)"),
        "{msg}"
    );
    assert!(
        msg.contains("reads x, which add_inplace(x, y) destroys"),
        "{msg}"
    );
}

/// The seed: `destroy_map = {0: [0, 1]}` is legal and supported.
#[test]
fn one_output_may_destroy_two_inputs() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let rx = ap(&mut g, pure("rx"), &[x]);
    let ry = ap(&mut g, pure("ry"), &[y]);
    let d = ap(&mut g, inplace("both", vec![(0, vec![0, 1])]), &[x, y]);
    let mut fg = with_handler(g.clone(), vec![x, y], vec![rx, ry, d]);
    fg.validate().unwrap();
    let dn = owner(&fg, d);
    assert_eq!(dh(&fg).destroyers(x), vec![dn]);
    assert_eq!(dh(&fg).destroyers(y), vec![dn]);
    let order = fg.toposort().unwrap();
    for r in [rx, ry] {
        assert!(position(&order, owner(&fg, r)) < position(&order, dn));
    }
    // A second destroyer of `y` is one too many.
    let d2 = ap(&mut g, add_inplace(), &[y]);
    let mut fg = with_handler(g, vec![x, y], vec![rx, d, d2]);
    assert!(refusal(&mut fg).starts_with("Multiple destroyers of y"));
}

/// The seed's `view_map` examples: all accepted but `{0: [0, 1]}`.
#[test]
fn the_seeds_view_maps() {
    let maps: [(IoMap, usize, bool); 6] = [
        (vec![(0, vec![0])], 1, true),
        (vec![(0, vec![1])], 1, true),
        (vec![(1, vec![0])], 2, true),
        (vec![(0, vec![0]), (1, vec![1])], 2, true),
        (vec![(0, vec![0]), (1, vec![0])], 2, true),
        (vec![(0, vec![0, 1])], 1, false),
    ];
    for (map, n_out, ok) in maps {
        let (mut g, [x, y]) = scalars(["x", "y"]);
        let op = Arc::new(MapOp {
            label: "myop".into(),
            n_out,
            view: map.clone(),
            ..MapOp::default()
        });
        let n = g.apply(op, &[x, y]).unwrap();
        let outs = g.node(n).outputs.clone();
        let d = ap(&mut g, add_inplace(), &[outs[n_out - 1]]);
        let mut fg = with_handler(g, vec![x, y], vec![d]);
        if ok {
            fg.validate().unwrap();
            let (o, ins) = &map[map.len() - 1];
            let viewed = [x, y][ins[0]];
            assert_eq!(dh(&fg).root(outs[*o]), viewed, "{map:?}");
        } else {
            let msg = refusal(&mut fg);
            assert!(msg.contains("maps output 0 to inputs [0, 1]"), "{msg}");
            assert!(msg.contains("may view exactly one input"), "{msg}");
        }
    }
}

/// The seed's `myop.destroy_map = {1: [0]}`: the second output is
/// computed by overwriting the first input.
#[test]
fn a_second_output_may_destroy() {
    let (mut g, [x]) = scalars(["x"]);
    let r = ap(&mut g, pure("read"), &[x]);
    let op = Arc::new(MapOp {
        label: "myop".into(),
        n_out: 2,
        destroy: vec![(1, vec![0])],
        ..MapOp::default()
    });
    let n = g.apply(op, &[x]).unwrap();
    let out1 = g.node(n).outputs[1];
    let mut fg = with_handler(g, vec![x], vec![r, out1]);
    fg.validate().unwrap();
    assert_eq!(dh(&fg).destroyers(x), vec![n]);
    let order = fg.toposort().unwrap();
    assert!(position(&order, owner(&fg, r)) < position(&order, n));
}

/// An inplace candidate swapped in and refused leaves the handler as it
/// was; one accepted is checked from then on.
#[test]
fn candidates_are_validated_and_reverted() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let a = ap(&mut g, pure("add"), &[x, y]);
    let b = ap(&mut g, pure("mul"), &[a, x]);
    let mut fg = with_handler(g, vec![x, y], vec![b]);
    fg.validate().unwrap();
    // mul_inplace(a, x) destroying `a` is fine: nothing else reads it.
    let ok = ap(
        fg.graph_mut(),
        inplace("mul_inplace", vec![(0, vec![0])]),
        &[a, x],
    );
    fg.replace_all_validate(&[(b, ok)], "inplace").unwrap();
    assert_eq!(dh(&fg).destroyers(a), vec![owner(&fg, ok)]);
    // add_inplace(x, y) destroying `x` is not: `mul_inplace` reads `x` and
    // needs `a`, which needs the addition.
    let bad = ap(fg.graph_mut(), add_inplace(), &[x, y]);
    let msg = fg
        .replace_all_validate(&[(a, bad)], "inplace")
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("Dependency graph contains cycles"), "{msg}");
    assert!(!fg.has_node(owner(&fg, bad)));
    assert!(dh(&fg).destroyers(x).is_empty());
    fg.validate().unwrap();
    fg.check_integrity().unwrap();
}

/// Re-pointing a view moves its whole tree: its readers now read what the
/// new root's destroyer overwrites, and must run first.
#[test]
fn a_view_changing_input_moves_its_tree() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let v = ap(&mut g, view("v"), &[x]);
    let w = ap(&mut g, view("w"), &[v]);
    let r = ap(&mut g, pure("read"), &[w]);
    let d = ap(&mut g, add_inplace(), &[y]);
    let mut fg = with_handler(g, vec![x, y], vec![r, d]);
    fg.validate().unwrap();
    let vn = owner(&fg, v);
    fg.change_node_input(Client::Node(vn, 0), y, "test", false, true)
        .unwrap();
    assert_eq!(dh(&fg).root(w), y);
    fg.validate().unwrap();
    let order = fg.toposort().unwrap();
    assert!(position(&order, owner(&fg, r)) < position(&order, owner(&fg, d)));
    // A destroyer inside the moved tree gets the new root too.
    let d2 = ap(fg.graph_mut(), add_inplace(), &[w]);
    fg.replace_all_validate(&[(r, d2)], "test").unwrap_err();
    fg.validate().unwrap();
}

#[test]
fn the_supervisor_protects_inputs_and_outputs() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let s = ap(&mut g, pure("sum"), &[x, y]);
    let mut fg = with_handler(g, vec![x, y], vec![s, y]);
    fg.attach_feature(Box::new(Supervisor::new([x]))).unwrap();
    let protected = protected_vars(&fg);
    assert!(protected.contains(&x) && protected.contains(&y) && protected.contains(&s));
    for (target, name) in [(x, "x"), (y, "y")] {
        let d = ap(fg.graph_mut(), add_inplace(), &[target]);
        let msg = fg
            .replace_all_validate(&[(s, d)], "inplace")
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            format!(
                "Trying to destroy a protected variable: {name} (destroyed by add_inplace({name}))"
            )
        );
    }
    let dh = dh(&fg);
    assert_eq!(inplace_candidates(&fg, dh, &[x, y, s], &protected), vec![]);
    let none = rustc_hash::FxHashSet::default();
    assert_eq!(
        inplace_candidates(&fg, dh, &[x, y, s], &none),
        vec![x, y, s]
    );
    assert_eq!(
        fast_inplace_check(&fg, dh, &[x, y, s], &none),
        vec![x, y, s]
    );
}

/// Two inputs sharing a root rule each other out; views of protected
/// variables are not candidates (the older check lets them through).
#[test]
fn inplace_candidates_follow_views() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let v = ap(&mut g, view("v"), &[x]);
    let c = g.tensor_constant(crate::tensor::Tensor::scalar(1.0f64));
    let s = ap(&mut g, pure("f"), &[x, v, y, c]);
    let fg = with_handler(g, vec![x, y], vec![s]);
    let protected: rustc_hash::FxHashSet<VarId> = [y].into_iter().collect();
    let dh = dh(&fg);
    assert_eq!(
        inplace_candidates(&fg, dh, &[x, v, y, c], &protected),
        vec![]
    );
    assert_eq!(
        inplace_candidates(&fg, dh, &[v, y], &Default::default()),
        vec![v, y]
    );
    let protected: rustc_hash::FxHashSet<VarId> = [x].into_iter().collect();
    assert_eq!(inplace_candidates(&fg, dh, &[v], &protected), vec![]);
    assert_eq!(fast_inplace_check(&fg, dh, &[v, c], &protected), vec![v]);
}

/// A graph rebuilt without a handler is scheduled with the same orderings.
#[test]
fn schedule_without_a_handler_orders_readers_first() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let d = ap(&mut g, add_inplace(), &[x, y]);
    let r = ap(&mut g, pure("read"), &[x]);
    let fg = FunctionGraph::new(g, vec![x, y], vec![r, d]).unwrap();
    let plain = fg.toposort().unwrap();
    assert!(position(&plain, owner(&fg, d)) < position(&plain, owner(&fg, r)));
    let sched = schedule(&fg).unwrap();
    assert!(position(&sched.order, owner(&fg, r)) < position(&sched.order, owner(&fg, d)));
    assert_eq!(sched.before[&owner(&fg, d)], vec![owner(&fg, r)]);
}

/// Thousands of changes with no validation in between overflow the
/// pending lists; the next validation rebuilds and still finds the error.
#[test]
fn unvalidated_changes_are_caught_after_a_rebuild() {
    let (mut g, [x, y]) = scalars(["x", "y"]);
    let a = ap(&mut g, pure("a"), &[x, y]);
    let b = ap(&mut g, pure("b"), &[a]);
    let mut fg = with_handler(g, vec![x, y], vec![b]);
    let mut cur = a;
    for _ in 0..5000 {
        let next = ap(fg.graph_mut(), pure("a"), &[x, y]);
        fg.replace(cur, next, "churn", false).unwrap();
        cur = next;
    }
    assert!(dh(&fg).pending.overflowed);
    let d1 = ap(fg.graph_mut(), add_inplace(), &[x]);
    let d2 = ap(fg.graph_mut(), add_inplace(), &[x]);
    let both = ap(fg.graph_mut(), pure("both"), &[d1, d2]);
    fg.replace(cur, both, "two", false).unwrap();
    assert!(refusal(&mut fg).starts_with("Multiple destroyers of x"));
}
