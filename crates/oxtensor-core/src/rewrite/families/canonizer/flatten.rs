//! Reading a tree as terms (PyTensor's `get_num_denum`): below the root,
//! `main` nodes contribute their inputs, `inverse(a, b)` contributes `a`
//! and `b` inverted, `reciprocal(x)` (and, for sums, `-1 * x`) contributes
//! `x` inverted, and a `DimShuffle` that only adds broadcast axes on the
//! left is looked through. Only nodes of the root's dtype are read into
//! (an `int` product inside a float quotient stays one term). The walk uses
//! its own stack, so deep chains cannot overflow the thread's.

use super::{Algebra, Terms};
use crate::dtype::DType;
use crate::graph::{Client, FunctionGraph, VarId};
use crate::ops::dimshuffle::DimShuffle;
use crate::rewrite::families::util::{dtype_of, elemwise_kind, tensor_is, unique_value};
use crate::scalar::ScalarKind::Mul;
use smallvec::SmallVec;

/// Which nodes a reading may enter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Also nodes other trees read (to find what cancels), within a budget.
    Full,
    /// Only the root's own tree: nodes with no other reader, and no
    /// `DimShuffle` (regrouping across one would move work from a small
    /// operand to a broadcast one).
    Private,
}

/// Nodes a full reading may enter beyond the root's own tree. A shared
/// subtree is read again by every tree that uses it; the bound keeps the
/// total work linear in the graph.
const SHARED_BUDGET: usize = 64;

/// A tree's terms, and how many of its nodes the reading went through.
#[derive(Debug, Default)]
pub(super) struct Flat {
    pub terms: Terms,
    /// `main`, `inverse` and `reciprocal` nodes read (the root included).
    pub nodes: usize,
}

/// What a variable is to a reading.
enum Step {
    /// A term.
    Leaf,
    /// Its inputs are terms (`main`).
    Main(SmallVec<[VarId; 4]>),
    /// `inverse(a, b)`.
    Inverse(VarId, VarId),
    /// The inverse of its input (`reciprocal`, negation).
    Invert(VarId),
    /// A broadcast of its input.
    Through(VarId),
}

/// The terms of the tree rooted at `root`.
pub(super) fn flatten(fg: &FunctionGraph, alg: &Algebra, root: VarId, mode: Mode) -> Flat {
    let dtype = dtype_of(fg, root);
    let mut flat = Flat::default();
    let mut budget = SHARED_BUDGET;
    // (variable, inverted, inside a subtree other trees read)
    let mut stack = vec![(root, false, false)];
    while let Some((v, inv, outside)) = stack.pop() {
        let step = step(fg, alg, v, dtype, mode);
        let outside = outside || (v != root && fg.clients(v).len() > 1);
        let enter = match (&step, mode) {
            (Step::Leaf, _) => false,
            (_, Mode::Private) => !outside,
            (_, Mode::Full) if outside && budget == 0 => false,
            (_, Mode::Full) => {
                budget -= outside as usize;
                true
            }
        };
        if !enter {
            let list = if inv {
                &mut flat.terms.denum
            } else {
                &mut flat.terms.num
            };
            list.push(v);
            continue;
        }
        match step {
            Step::Leaf => {}
            Step::Main(ins) => {
                flat.nodes += 1;
                stack.extend(ins.iter().rev().map(|&x| (x, inv, outside)));
            }
            Step::Inverse(a, b) => {
                flat.nodes += 1;
                stack.extend([(b, !inv, outside), (a, inv, outside)]);
            }
            Step::Invert(x) => {
                flat.nodes += 1;
                stack.push((x, !inv, outside));
            }
            Step::Through(x) => stack.push((x, inv, outside)),
        }
    }
    flat
}

/// How a reading of `alg` in `dtype` sees `v`.
fn step(fg: &FunctionGraph, alg: &Algebra, v: VarId, dtype: Option<DType>, mode: Mode) -> Step {
    let g = fg.graph();
    let Some(node) = g.var(v).owner() else {
        return Step::Leaf;
    };
    let n = g.node(node);
    if let Some(ds) = n.op.as_any().downcast_ref::<DimShuffle>() {
        return match mode {
            Mode::Full if pads_left(ds) => Step::Through(n.inputs[0]),
            _ => Step::Leaf,
        };
    }
    let Some(kind) = elemwise_kind(fg, node) else {
        return Step::Leaf;
    };
    if dtype_of(fg, v) != dtype {
        return Step::Leaf;
    }
    match n.inputs[..] {
        _ if kind == alg.main => Step::Main(n.inputs.iter().copied().collect()),
        [a, b] if kind == alg.inverse => Step::Inverse(a, b),
        [x] if kind == alg.reciprocal => Step::Invert(x),
        [a, b] if kind == Mul && !alg.is_mul() => match negated(fg, a, b) {
            Some(x) => Step::Invert(x),
            None => Step::Leaf,
        },
        _ => Step::Leaf,
    }
}

/// `x` when `a * b` is `-1 * x` or `x * -1` (a negation, for sums).
fn negated(fg: &FunctionGraph, a: VarId, b: VarId) -> Option<VarId> {
    let minus_one = |v| unique_value(fg, v).is_some_and(|t| tensor_is(&t, -1.0));
    match (minus_one(a), minus_one(b)) {
        (true, false) => Some(b),
        (false, true) => Some(a),
        _ => None,
    }
}

/// Whether the `DimShuffle` only adds broadcast axes on the left (as
/// `Elemwise` does to a lower-rank input): then its input is the same term.
fn pads_left(ds: &DimShuffle) -> bool {
    let Some(pad) = ds.new_order.len().checked_sub(ds.input_ndim) else {
        return false;
    };
    ds.new_order[..pad].iter().all(Option::is_none)
        && ds.new_order[pad..]
            .iter()
            .enumerate()
            .all(|(i, a)| *a == Some(i))
}

/// Whether the tree of `out` is part of a larger one that a reader will
/// canonicalize: its only reader is a node of the algebra in the same
/// dtype (or, for sums, a negation `-1 * out` read by one). PyTensor's
/// canonizer waits for the root in the same way.
pub(super) fn absorbed(fg: &FunctionGraph, alg: &Algebra, out: VarId, dtype: DType) -> bool {
    let mut cur = out;
    loop {
        let Some(&Client::Node(reader, _)) = fg.clients(cur).only() else {
            return false;
        };
        let reader_out = fg.graph().node(reader).outputs[0];
        match step(fg, alg, reader_out, Some(dtype), Mode::Private) {
            Step::Invert(x) if x == cur && elemwise_kind(fg, reader) == Some(Mul) => {
                cur = reader_out;
            }
            Step::Leaf | Step::Through(_) => return false,
            _ => return true,
        }
    }
}
