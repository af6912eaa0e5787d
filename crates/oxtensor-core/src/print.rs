//! Text renderings of graphs: PyTensor's `debugprint` (`pytensor/printing.py`),
//! line for line: `[id A]` ids in first-visit order, box-drawing branches,
//! a repeated node printed once more with its subtree elided as `···`,
//! then the inner graphs of the ops that have one (a `Composite`'s).

use crate::graph::{FunctionGraph, Graph, NodeId, VarId, VarKind};
use crate::ops::IoMap;
use std::collections::HashMap;
use std::fmt::Write;

/// How ids are shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdType {
    /// `[id A]`, `[id B]`, ..., `[id BA]` (PyTensor's `"CHAR"`).
    #[default]
    Char,
    /// `[id 0]`, `[id 1]`, ... (`"int"`).
    Int,
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
}

/// The ids handed out so far; shared across the roots of one print.
#[derive(Default)]
struct Ids {
    nodes: HashMap<NodeId, usize>,
    vars: HashMap<VarId, usize>,
    next: usize,
}

impl Ids {
    /// The id of a node or leaf, and whether it was seen before.
    fn get(&mut self, key: Result<NodeId, VarId>) -> (usize, bool) {
        let next = &mut self.next;
        let mut fresh = false;
        let mut take = || {
            fresh = true;
            *next += 1;
            *next - 1
        };
        let id = match key {
            Ok(n) => *self.nodes.entry(n).or_insert_with(&mut take),
            Err(v) => *self.vars.entry(v).or_insert_with(&mut take),
        };
        (id, !fresh)
    }
}

struct Printer<'a> {
    g: &'a Graph,
    opts: &'a PrintOptions,
    topo: Option<HashMap<NodeId, usize>>,
    ids: Ids,
    out: String,
    /// The indentation of lines, shared between lines as a tree: each
    /// entry adds one level (`"   "` or `" │ "`) to its parent's.
    indents: Vec<Indent>,
    /// The nodes printed whose op has an inner graph, with that graph, in
    /// the order they were first printed.
    inner: Vec<(NodeId, FunctionGraph)>,
}

/// One level of indentation over the prefix `parent` (`None`: the margin).
struct Indent {
    parent: Option<usize>,
    text: &'static str,
    levels: usize,
}

/// A variable waiting to be printed: after the prefix `prefix` and its
/// `branch`; its children's lines start with the prefix plus `indent`.
struct Pending {
    var: VarId,
    prefix: Option<usize>,
    branch: &'static str,
    indent: &'static str,
    depth: usize,
}

/// What a printed line has below it.
enum Below {
    /// Nothing: a leaf, or a node not expanded (`depth`, `stop_on_name`).
    Nothing,
    /// A node printed before: `···` (its inputs were shown there).
    Elided,
    /// The node's inputs, each on its own lines.
    Inputs(Vec<VarId>),
}

/// Lines are indented by at most this many levels; deeper ones show how
/// many levels were left out (`[+N]`), so a chain of a million nodes
/// prints in a million short lines, not a triangle of a million columns.
const MAX_INDENT: usize = 64;

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

fn render(
    g: &Graph,
    roots: &[VarId],
    opts: &PrintOptions,
    topo: Option<HashMap<NodeId, usize>>,
) -> String {
    let mut p = Printer::new(g, opts, topo, Ids::default());
    for &root in roots {
        p.root(root, "", "");
    }
    p.inner_graphs();
    p.out
}

impl<'a> Printer<'a> {
    fn new(
        g: &'a Graph,
        opts: &'a PrintOptions,
        topo: Option<HashMap<NodeId, usize>>,
        ids: Ids,
    ) -> Printer<'a> {
        Printer {
            g,
            opts,
            topo,
            ids,
            out: String::new(),
            indents: Vec::new(),
            inner: Vec::new(),
        }
    }

    /// PyTensor's "Inner graphs:" section: each op with an inner graph,
    /// under the id of the node that has it, then each inner output after
    /// ` ← `, its subtree below; ids go on from the outer graph's.
    fn inner_graphs(&mut self) {
        if self.inner.is_empty() {
            return;
        }
        self.out.push_str("\nInner graphs:\n");
        for (node, fg) in std::mem::take(&mut self.inner) {
            let (id, _) = self.ids.get(Ok(node));
            let op = self.g.node(node).op.describe();
            let _ = writeln!(self.out, "\n{op}{}", self.id(id));
            let next = self.ids.next;
            let ids = Ids {
                next,
                ..Ids::default()
            };
            let mut inner = Printer::new(fg.graph(), self.opts, None, ids);
            for &o in fg.outputs() {
                inner.root(o, " ← ", "   ");
            }
            self.out.push_str(&inner.out);
            self.ids.next = inner.ids.next;
        }
    }
}

impl Printer<'_> {
    /// Prints the graph below `root`, depth first with each node's inputs
    /// in order, as PyTensor's recursive `_debugprint` does, but from an
    /// explicit stack: graphs can be deeper than the native stack.
    /// The root's line starts with `branch`, its children's with `indent`.
    fn root(&mut self, root: VarId, branch: &'static str, indent: &'static str) {
        let mut stack = vec![Pending {
            var: root,
            prefix: None,
            branch,
            indent,
            depth: 0,
        }];
        while let Some(item) = stack.pop() {
            let first = format!("{}{}", self.render(item.prefix), item.branch);
            let below = self.line(item.var, &first, item.depth);
            let rest = self.indent(item.prefix, item.indent);
            let inputs = match below {
                Below::Nothing => continue,
                Below::Elided => {
                    let _ = writeln!(self.out, "{} └─ ···", self.render(rest));
                    continue;
                }
                Below::Inputs(inputs) if inputs.is_empty() => continue,
                Below::Inputs(inputs) => inputs,
            };
            let last = inputs.len() - 1;
            for (k, &inp) in inputs.iter().enumerate().rev() {
                let (branch, indent) = if k == last {
                    (" └─ ", "   ")
                } else {
                    (" ├─ ", " │ ")
                };
                stack.push(Pending {
                    var: inp,
                    prefix: rest,
                    branch,
                    indent,
                    depth: item.depth + 1,
                });
            }
        }
    }

    /// Prints `v`'s line after `first`; says what goes below it.
    fn line(&mut self, v: VarId, first: &str, depth: usize) -> Below {
        let data = self.g.var(v);
        let Some(node) = data.owner() else {
            let (id, _) = self.ids.get(Err(v));
            let label = format!(
                "{}{}{}",
                self.g.describe_var(v),
                self.id(id),
                self.type_suffix(v)
            );
            let _ = writeln!(self.out, "{first}{label}");
            return Below::Nothing;
        };
        let (id, seen) = self.ids.get(Ok(node));
        let _ = writeln!(self.out, "{first}{}", self.node_label(v, node, id));
        if !seen {
            if let Some(Ok(fg)) = self.g.node(node).op.inner_fgraph() {
                self.inner.push((node, fg));
            }
        }
        if self.opts.depth.is_some_and(|d| depth + 1 >= d)
            || (self.opts.stop_on_name && data.name.is_some())
        {
            return Below::Nothing;
        }
        match seen {
            true => Below::Elided,
            false => Below::Inputs(self.g.node(node).inputs.clone()),
        }
    }

    /// The prefix `parent` with one more level, `text`.
    fn indent(&mut self, parent: Option<usize>, text: &'static str) -> Option<usize> {
        if text.is_empty() {
            return parent;
        }
        let levels = parent.map_or(0, |p| self.indents[p].levels) + 1;
        self.indents.push(Indent {
            parent,
            text,
            levels,
        });
        Some(self.indents.len() - 1)
    }

    /// The text of a prefix: its last [`MAX_INDENT`] levels, after `[+N]`
    /// when `N` more were left out.
    fn render(&self, prefix: Option<usize>) -> String {
        let mut parts = Vec::new();
        let mut at = prefix;
        while let Some(i) = at.filter(|_| parts.len() < MAX_INDENT) {
            parts.push(self.indents[i].text);
            at = self.indents[i].parent;
        }
        let hidden = at.map_or(0, |i| self.indents[i].levels);
        let mut text = if hidden > 0 {
            format!("[+{hidden}]")
        } else {
            String::new()
        };
        parts.iter().rev().for_each(|p| text.push_str(p));
        text
    }

    fn node_label(&self, v: VarId, node: NodeId, id: usize) -> String {
        let n = self.g.node(node);
        let mut label = n.op.describe();
        if n.outputs.len() > 1 {
            if let VarKind::Output { index, .. } = self.g.var(v).kind {
                let _ = write!(label, ".{index}");
            }
        }
        label += &self.id(id);
        label += &self.type_suffix(v);
        if let Some(name) = &self.g.var(v).name {
            let _ = write!(label, " '{name}'");
        }
        if self.opts.print_destroy_map && !n.op.destroy_map().is_empty() {
            let _ = write!(label, " d={}", fmt_io_map(&n.op.destroy_map()));
        }
        if self.opts.print_view_map && !n.op.view_map().is_empty() {
            let _ = write!(label, " v={}", fmt_io_map(&n.op.view_map()));
        }
        if let Some(pos) = self.topo.as_ref().and_then(|t| t.get(&node)) {
            let _ = write!(label, " {pos}");
        }
        label
    }

    fn id(&self, id: usize) -> String {
        match self.opts.id_type {
            IdType::Char => format!(" [id {}]", char_id(id)),
            IdType::Int => format!(" [id {id}]"),
            IdType::None => String::new(),
        }
    }

    fn type_suffix(&self, v: VarId) -> String {
        let ty = &self.g.var(v).ty;
        let mut s = String::new();
        if self.opts.print_type {
            let _ = write!(s, " <{ty}>");
        }
        if let (true, Some(t)) = (self.opts.print_shape, ty.as_tensor()) {
            let dims = t
                .shape
                .iter()
                .map(|d| d.map_or("?".to_string(), |d| d.to_string()));
            let _ = write!(s, " shape={}", crate::types::fmt_tuple(dims));
        }
        s
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::tensor::Tensor;
    use crate::types::TensorType;

    #[test]
    fn fgraph_repr_marks_shared_subexpressions() {
        let mut g = Graph::new();
        let x = g.input(TensorType::scalar(DType::Float64), Some("x"));
        let y = build::exp(&mut g, x).unwrap();
        let z = build::add(&mut g, y, y).unwrap();
        let fg = FunctionGraph::new(g, vec![x], vec![z, y]).unwrap();
        assert_eq!(as_string(&fg), "Add(*1 -> Exp(x), *1), *1");
    }

    #[test]
    fn ids_in_base_26() {
        assert_eq!(char_id(0), "A");
        assert_eq!(char_id(25), "Z");
        assert_eq!(char_id(26), "BA");
        assert_eq!(char_id(27), "BB");
    }

    #[test]
    fn seed_example_with_types() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let two = g.tensor_constant(Tensor::scalar(2.0f32));
        let y = build::mul(&mut g, x, two).unwrap();
        assert_eq!(
            debugprint_vars(&g, &[y], &PrintOptions::default()),
            "Mul [id A]\n ├─ x [id B]\n └─ ExpandDims{axis=0} [id C]\n    └─ 2.0 [id D]\n"
        );
        let typed = PrintOptions {
            print_type: true,
            ..Default::default()
        };
        assert_eq!(
            debugprint_vars(&g, &[y], &typed),
            "Mul [id A] <Vector(float64, shape=(?,))>\n \
             ├─ x [id B] <Vector(float64, shape=(?,))>\n \
             └─ ExpandDims{axis=0} [id C] <Vector(float32, shape=(1,))>\n    \
             └─ 2.0 [id D] <Scalar(float32, shape=())>\n"
        );
    }

    /// `x + 1 + 1 ...`, `n` additions deep.
    fn chain(n: usize) -> (Graph, VarId, VarId) {
        let mut g = Graph::new();
        let x = g.input(TensorType::scalar(DType::Float64), Some("x"));
        let one = g.tensor_constant(Tensor::scalar(1.0f64));
        let mut z = x;
        for _ in 0..n {
            z = build::add(&mut g, z, one).unwrap();
        }
        (g, x, z)
    }

    #[test]
    fn deep_chains_print_without_recursion_in_linear_space() {
        // Deeper than a test thread's 2 MiB stack allows a recursive walk.
        let n = 200_000;
        let (g, x, z) = chain(n);
        let text = debugprint_vars(&g, &[z], &PrintOptions::default());
        let lines: Vec<&str> = text.lines().collect();
        // The n additions down the chain, `x`, then each addition's `1.0`.
        assert_eq!(lines.len(), 2 * n + 1);
        let widest = lines.iter().map(|l| l.chars().count()).max().unwrap();
        assert!(widest < 3 * MAX_INDENT + 40, "{widest} columns");
        // `x` is n levels down: n - 1 levels of indentation, 64 shown.
        let hidden = format!("[+{}]", n - 1 - MAX_INDENT);
        assert!(lines[n].starts_with(&hidden), "{}", lines[n]);
        assert!(lines[n].ends_with(&format!(" ├─ x [id {}]", char_id(n))));
        let fg = FunctionGraph::new(g, vec![x], vec![z]).unwrap();
        let repr = as_string(&fg);
        assert!(repr.starts_with("Add(Add("), "{}", &repr[..40]);
        assert_eq!(repr.matches("Add(").count(), n);
        assert!(repr.len() < 40 * n, "linear in the depth");
    }

    #[test]
    fn shallow_indentation_is_pytensors() {
        let (g, _, z) = chain(3);
        assert_eq!(
            debugprint_vars(&g, &[z], &PrintOptions::default()),
            "Add [id A]\n \
             ├─ Add [id B]\n \
             │  ├─ Add [id C]\n \
             │  │  ├─ x [id D]\n \
             │  │  └─ 1.0 [id E]\n \
             │  └─ 1.0 [id E]\n \
             └─ 1.0 [id E]\n"
        );
    }

    #[test]
    fn repeated_nodes_are_elided() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let z = build::exp(&mut g, x).unwrap();
        g.set_name(z, Some("z"));
        let m = build::mul(&mut g, z, z).unwrap();
        let w = build::sum(&mut g, m, None).unwrap();
        g.set_name(w, Some("w"));
        assert_eq!(
            debugprint_vars(&g, &[w], &PrintOptions::default()),
            "Sum{axes=None} [id A] 'w'\n \
             └─ Mul [id B]\n    \
             ├─ Exp [id C] 'z'\n    \
             │  └─ x [id D]\n    \
             └─ Exp [id C] 'z'\n       \
             └─ ···\n"
        );
    }
}
