//! `pprint`: a graph as the expression a user would type (PyTensor's
//! `printing.pprint`): `x[0:2, idx]`, `set_subtensor(x[0], z)`,
//! `sum(x, axis=(0,))`, `(a + b) * c`. Inputs print by name, constants by
//! value; arithmetic is infix with PyTensor's precedences; other ops
//! print as calls, `exp(x)` or `Op{props}(inputs)`. Written from an
//! explicit stack, so deep graphs do not recurse.

use std::fmt::Write;

use crate::graph::{shorten_constant, Graph, NodeId, VarId, VarKind};
use crate::ops::advanced_inc_subtensor::{AdvancedIncSubtensor, AdvancedIncSubtensor1};
use crate::ops::advanced_subtensor::{AdvancedSubtensor, AdvancedSubtensor1};
use crate::ops::elemwise::Elemwise;
use crate::ops::reduce::CAReduce;
use crate::ops::subtensor::{IncSubtensor, Subtensor};
use crate::scalar::{ScalarKind, ScalarOp};
use crate::tensor::index::IdxEntry;

/// Precedence of a call, an index or a name: never parenthesised.
const ATOM: i32 = 100;

/// What is written next.
enum Piece {
    Text(String),
    /// A variable, parenthesised when its precedence is below `min`.
    Var {
        v: VarId,
        min: i32,
    },
}

/// The expression of `v`.
pub fn pprint(g: &Graph, v: VarId) -> String {
    let mut out = String::new();
    let mut todo = vec![Piece::Var { v, min: i32::MIN }];
    while let Some(piece) = todo.pop() {
        match piece {
            Piece::Text(t) => out.push_str(&t),
            Piece::Var { v, min } => {
                let (prec, mut pieces) = expression(g, v);
                if prec < min {
                    pieces.insert(0, Piece::Text("(".into()));
                    pieces.push(Piece::Text(")".into()));
                }
                todo.extend(pieces.into_iter().rev());
            }
        }
    }
    out
}

/// The precedence and pieces of one variable.
fn expression(g: &Graph, v: VarId) -> (i32, Vec<Piece>) {
    let var = g.var(v);
    match &var.kind {
        VarKind::Output { node, .. } => node_expression(g, *node),
        VarKind::Constant(c) if var.name.is_none() => {
            (ATOM, vec![Piece::Text(shorten_constant(&c.display))])
        }
        _ => (ATOM, vec![Piece::Text(g.describe_var(v))]),
    }
}

fn var(v: VarId, min: i32) -> Piece {
    Piece::Var { v, min }
}

fn text(t: impl Into<String>) -> Piece {
    Piece::Text(t.into())
}

/// The pieces of a node's output, by op.
fn node_expression(g: &Graph, node: NodeId) -> (i32, Vec<Piece>) {
    let n = g.node(node);
    let op = n.op.as_any();
    let ins = &n.inputs;
    if let Some(s) = op.downcast_ref::<Subtensor>() {
        return (ATOM, indexed(ins[0], &s.idx_list, &ins[1..]));
    }
    if let Some(s) = op.downcast_ref::<AdvancedSubtensor>() {
        return (ATOM, indexed(ins[0], &s.idx_list, &ins[1..]));
    }
    if op.is::<AdvancedSubtensor1>() {
        return (ATOM, indexed(ins[0], &[IdxEntry::Index(0)], &ins[1..]));
    }
    if let Some(s) = op.downcast_ref::<IncSubtensor>() {
        return (ATOM, increment(ins, &s.idx_list, s.set_instead_of_inc));
    }
    if let Some(s) = op.downcast_ref::<AdvancedIncSubtensor>() {
        return (ATOM, increment(ins, &s.idx_list, s.set_instead_of_inc));
    }
    if let Some(s) = op.downcast_ref::<AdvancedIncSubtensor1>() {
        return (
            ATOM,
            increment(ins, &[IdxEntry::Index(0)], s.set_instead_of_inc),
        );
    }
    if let Some(r) = op.downcast_ref::<CAReduce>() {
        return (ATOM, reduction(r, ins));
    }
    if let Some(e) = op.downcast_ref::<Elemwise>() {
        if let ScalarOp::Kind(kind) = e.scalar_op {
            if let Some(expr) = operator(kind, ins) {
                return expr;
            }
            return (ATOM, call(kind.name().to_string(), ins));
        }
    }
    (ATOM, call(n.op.to_string(), ins))
}

/// `name(a, b, ...)`.
fn call(name: String, ins: &[VarId]) -> Vec<Piece> {
    let mut pieces = vec![text(name + "(")];
    for (k, &i) in ins.iter().enumerate() {
        if k > 0 {
            pieces.push(text(", "));
        }
        pieces.push(var(i, i32::MIN));
    }
    pieces.push(text(")"));
    pieces
}

/// `x[entries]`, the entries' numbers counting among `idx`.
fn indexed(x: VarId, entries: &[IdxEntry], idx: &[VarId]) -> Vec<Piece> {
    let mut pieces = vec![var(x, ATOM), text("[")];
    for (k, entry) in entries.iter().enumerate() {
        if k > 0 {
            pieces.push(text(", "));
        }
        match *entry {
            IdxEntry::Index(i) => pieces.extend(idx.get(i).map(|&v| var(v, i32::MIN))),
            IdxEntry::Slice { start, stop, step } => {
                let bound = |b: Option<usize>| b.and_then(|i| idx.get(i)).map(|&v| var(v, ATOM));
                pieces.extend(bound(start));
                pieces.push(text(":"));
                pieces.extend(bound(stop));
                if let Some(step) = bound(step) {
                    pieces.push(text(":"));
                    pieces.push(step);
                }
            }
        }
    }
    pieces.push(text("]"));
    pieces
}

/// `inc_subtensor(x[entries], y)` (or `set_subtensor`); inputs are `x, y, idx...`.
fn increment(ins: &[VarId], entries: &[IdxEntry], set: bool) -> Vec<Piece> {
    let name = if set {
        "set_subtensor("
    } else {
        "inc_subtensor("
    };
    let mut pieces = vec![text(name)];
    pieces.extend(indexed(ins[0], entries, &ins[2..]));
    pieces.push(text(", "));
    pieces.push(var(ins[1], i32::MIN));
    pieces.push(text(")"));
    pieces
}

/// `sum(x, axis=(0, 1))`; `axis=None` for all axes.
fn reduction(r: &CAReduce, ins: &[VarId]) -> Vec<Piece> {
    let mut axis = String::new();
    match &r.axis {
        None => axis.push_str("None"),
        Some(axes) => {
            let items: Vec<String> = axes.iter().map(|a| a.to_string()).collect();
            let trailing = if items.len() == 1 { "," } else { "" };
            let _ = write!(axis, "({}{trailing})", items.join(", "));
        }
    }
    let name = r.kind.class_name().to_lowercase();
    let mut pieces = vec![text(name + "(")];
    pieces.extend(ins.iter().map(|&i| var(i, i32::MIN)));
    pieces.push(text(format!(", axis={axis})")));
    pieces
}

/// Infix arithmetic, PyTensor's precedences: `**` 1, unary `-` 0,
/// `*` `/` `//` `%` -1, `+` `-` -2. A left-associative operator
/// parenthesises an equal right operand (`a - (b - c)`), `**` an equal left one.
fn operator(kind: ScalarKind, ins: &[VarId]) -> Option<(i32, Vec<Piece>)> {
    let (symbol, prec, commutes) = match kind {
        ScalarKind::Add => (" + ", -2, true),
        ScalarKind::Sub => (" - ", -2, false),
        ScalarKind::Mul => (" * ", -1, true),
        ScalarKind::TrueDiv => (" / ", -1, false),
        ScalarKind::IntDiv => (" // ", -1, false),
        ScalarKind::Mod => (" % ", -1, false),
        ScalarKind::Pow => (" ** ", 1, false),
        ScalarKind::Neg => return Some((0, vec![text("-"), var(*ins.first()?, 0)])),
        _ => return None,
    };
    if ins.len() < 2 {
        return None;
    }
    let right_assoc = kind == ScalarKind::Pow;
    let mut pieces = Vec::new();
    for (k, &i) in ins.iter().enumerate() {
        let first = k == 0;
        if !first {
            pieces.push(text(symbol));
        }
        let strict = !commutes && (first == right_assoc);
        pieces.push(var(i, if strict { prec + 1 } else { prec }));
    }
    Some((prec, pieces))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::tensor::Tensor;
    use crate::types::TensorType;

    fn input(g: &mut Graph, name: &str, ndim: usize) -> VarId {
        g.input(TensorType::with_ndim(DType::Float64, ndim), Some(name))
    }

    #[test]
    fn arithmetic_is_infix_with_precedence() {
        let mut g = Graph::new();
        let (a, b, c) = (
            input(&mut g, "a", 0),
            input(&mut g, "b", 0),
            input(&mut g, "c", 0),
        );
        let sum = build::add(&mut g, a, b).unwrap();
        let prod = build::mul(&mut g, sum, c).unwrap();
        assert_eq!(pprint(&g, prod), "(a + b) * c");
        let diff = build::sub(&mut g, b, c).unwrap();
        let outer = build::sub(&mut g, a, diff).unwrap();
        assert_eq!(pprint(&g, outer), "a - (b - c)");
        let e = build::exp(&mut g, outer).unwrap();
        assert_eq!(pprint(&g, e), "exp(a - (b - c))");
    }

    #[test]
    fn sums_show_their_axes() {
        let mut g = Graph::new();
        let x = input(&mut g, "x", 2);
        let s = build::sum(&mut g, x, Some(&[0])).unwrap();
        assert_eq!(pprint(&g, s), "sum(x, axis=(0,))");
    }

    #[test]
    fn subtensors_print_as_indexing() {
        let mut g = Graph::new();
        let x = input(&mut g, "x", 2);
        let (zero, two) = (
            g.tensor_constant(Tensor::scalar(0i64)),
            g.tensor_constant(Tensor::scalar(2i64)),
        );
        let op = Subtensor {
            idx_list: vec![
                IdxEntry::Slice {
                    start: None,
                    stop: Some(0),
                    step: None,
                },
                IdxEntry::Index(1),
            ],
        };
        let y = g
            .apply_out(std::sync::Arc::new(op), &[x, two, zero])
            .unwrap();
        assert_eq!(pprint(&g, y), "x[:2, 0]");
    }
}
