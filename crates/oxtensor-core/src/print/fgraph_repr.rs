//! `FunctionGraph`'s `repr`: its outputs as nested calls.

use crate::graph::{FunctionGraph, VarId};
use std::collections::HashMap;
use std::fmt::Write;

/// The text of a function graph's outputs, as `FunctionGraph`'s `repr`
/// shows it: a variable used more than once is written `*N -> expr` the
/// first time and `*N` after (`Add(*1 -> Exp(x), *1), *1`). Written from an
/// explicit stack, in the order a recursive rendering would visit.
pub fn as_string(fg: &FunctionGraph) -> String {
    let g = fg.graph();
    let shared: std::collections::HashSet<VarId> = fg
        .variables()
        .filter(|&v| g.var(v).owner().is_some() && fg.clients(v).len() > 1)
        .collect();
    let mut numbers: HashMap<VarId, usize> = HashMap::new();
    let mut out = String::new();
    let mut todo: Vec<Piece> = Vec::new();
    for (k, &o) in fg.outputs().iter().enumerate().rev() {
        todo.push(Piece::Var(o));
        if k > 0 {
            todo.push(Piece::Text(", "));
        }
    }
    while let Some(piece) = todo.pop() {
        let v = match piece {
            Piece::Text(t) => {
                out.push_str(t);
                continue;
            }
            Piece::Var(v) => v,
        };
        let Some(node) = g.var(v).owner().filter(|_| !fg.inputs().contains(&v)) else {
            out.push_str(&g.describe_var(v));
            continue;
        };
        if let Some(n) = numbers.get(&v) {
            let _ = write!(out, "*{n}");
            continue;
        }
        if shared.contains(&v) {
            let n = numbers.len() + 1;
            numbers.insert(v, n);
            let _ = write!(out, "*{n} -> ");
        }
        let _ = write!(out, "{}(", g.node(node).op);
        todo.push(Piece::Text(")"));
        for (k, &i) in g.node(node).inputs.iter().enumerate().rev() {
            todo.push(Piece::Var(i));
            if k > 0 {
                todo.push(Piece::Text(", "));
            }
        }
    }
    out
}

/// What [`as_string`] writes next.
enum Piece {
    Var(VarId),
    Text(&'static str),
}
