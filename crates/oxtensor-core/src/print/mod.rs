//! Text renderings of graphs: PyTensor's `debugprint` (`pytensor/printing.py`),
//! line for line: `[id A]` ids in first-visit order, box-drawing branches,
//! a repeated node printed once more with its subtree elided as `···`,
//! then the inner graphs of the ops that have one (a `Composite`'s); and
//! `FunctionGraph`'s `repr` (`fgraph_repr`).

mod fgraph_repr;
mod printer;
#[cfg(test)]
mod tests;

use crate::graph::{FunctionGraph, Graph, VarId};
use crate::ops::IoMap;
pub use fgraph_repr::as_string;
use printer::render;
use std::collections::HashMap;

/// How ids are shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdType {
    /// `[id A]`, `[id B]`, ..., `[id BA]` (PyTensor's `"CHAR"`).
    #[default]
    Char,
    /// `[id 0]`, `[id 1]`, ... (`"int"`).
    Int,
    /// Each variable's own label, `PrintOptions::auto_names` (PyTensor's
    /// `"auto"`: its `auto_name`); `Char` ids for the others.
    Auto,
    /// No ids (`""`).
    None,
}

/// `debugprint`'s options.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Append each variable's type (`<Vector(float64, shape=(?,))>`).
    pub print_type: bool,
    /// Append each variable's static shape (`shape=(?, 3)`).
    pub print_shape: bool,
    /// How ids look.
    pub id_type: IdType,
    /// Print at most this many levels (`None`: all).
    pub depth: Option<usize>,
    /// Do not expand variables that have a name.
    pub stop_on_name: bool,
    /// Append `d={...}` for ops with a destroy map.
    pub print_destroy_map: bool,
    /// Append `v={...}` for ops with a view map.
    pub print_view_map: bool,
    /// The labels of `IdType::Auto`, by variable.
    pub auto_names: HashMap<VarId, String>,
    /// `print_storage`: what the function's storage holds for each
    /// variable, appended as ` [value]` (` [None]` for what it does not hold).
    pub storage: Option<HashMap<VarId, String>>,
}

/// `debugprint` of a function graph: its outputs, with each node's position
/// in the toposort at the end of its line.
pub fn debugprint(fg: &FunctionGraph, opts: &PrintOptions) -> String {
    // A graph whose orderings are cyclic still prints, without positions.
    let topo = fg
        .toposort()
        .ok()
        .map(|order| order.into_iter().enumerate().map(|(i, n)| (n, i)).collect());
    render(fg.graph(), fg.outputs(), opts, topo)
}

/// `debugprint` of variables of a graph.
pub fn debugprint_vars(g: &Graph, roots: &[VarId], opts: &PrintOptions) -> String {
    render(g, roots, opts, None)
}

/// A Python dict repr of an io map: `{0: [0]}`.
pub fn fmt_io_map(map: &IoMap) -> String {
    let items: Vec<String> = map.iter().map(|(o, ins)| format!("{o}: {ins:?}")).collect();
    format!("{{{}}}", items.join(", "))
}

/// PyTensor's `char_from_number`: base 26 over the letters, `A`..`Z`, `BA`...
pub fn char_id(mut n: usize) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push((b'A' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}
