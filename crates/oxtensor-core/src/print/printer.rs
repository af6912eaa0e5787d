//! The `debugprint` printer: one line per variable, depth first, from an
//! explicit stack; ids shared across the roots of one print.

use super::{char_id, fmt_io_map, IdType, PrintOptions};
use crate::graph::{FunctionGraph, Graph, NodeId, VarId, VarKind};
use std::collections::HashMap;
use std::fmt::Write;

/// The ids handed out so far; shared across the roots of one print.
#[derive(Default)]
struct Ids {
    nodes: HashMap<NodeId, usize>,
    vars: HashMap<VarId, usize>,
    /// Free variables that stand for themselves (an inner graph's
    /// `NominalVariable` inputs), by their text: the same in every inner
    /// graph, so they keep one id across graphs, as in PyTensor.
    atomic: HashMap<String, usize>,
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

    /// The id of an atomic variable printed as `text`.
    fn atomic(&mut self, text: String) -> usize {
        let next = self.next;
        let id = *self.atomic.entry(text).or_insert(next);
        self.next += usize::from(id == next);
        id
    }

    /// A fresh table for another graph: the count and the atomic
    /// variables go on (node and variable ids do not mean the same there).
    fn for_inner_graph(&mut self) -> Ids {
        Ids {
            next: self.next,
            atomic: std::mem::take(&mut self.atomic),
            ..Ids::default()
        }
    }
}

/// An op with an inner graph met while printing: its line's text and id.
struct InnerGraph {
    op: String,
    id: String,
    fg: FunctionGraph,
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
    /// The ops with an inner graph, in the order their nodes were first
    /// printed.
    inner: Vec<InnerGraph>,
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
pub(super) const MAX_INDENT: usize = 64;

pub(super) fn render(
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
    /// ` ← `, its subtree below; ids go on from the outer graph's. Ops met
    /// inside an inner graph follow, breadth first.
    fn inner_graphs(&mut self) {
        if self.inner.is_empty() {
            return;
        }
        self.out.push_str("\nInner graphs:\n");
        let mut queue: std::collections::VecDeque<InnerGraph> =
            std::mem::take(&mut self.inner).into();
        while let Some(entry) = queue.pop_front() {
            let _ = writeln!(self.out, "\n{}{}", entry.op, entry.id);
            let ids = self.ids.for_inner_graph();
            // Auto names and storage are the outer graph's variables'.
            let opts = PrintOptions {
                auto_names: HashMap::new(),
                storage: None,
                ..self.opts.clone()
            };
            let mut inner = Printer::new(entry.fg.graph(), &opts, None, ids);
            for &o in entry.fg.outputs() {
                inner.root(o, " ← ", "   ");
            }
            self.out.push_str(&inner.out);
            self.ids.next = inner.ids.next;
            self.ids.atomic = std::mem::take(&mut inner.ids.atomic);
            queue.extend(std::mem::take(&mut inner.inner));
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
            let text = self.g.describe_var(v);
            let id = match data.atomic {
                true => self.ids.atomic(format!("{text} {}", data.ty)),
                false => self.ids.get(Err(v)).0,
            };
            let label = format!("{text}{}{}", self.id(v, id), self.type_suffix(v));
            let _ = writeln!(self.out, "{first}{label}{}", self.storage(v));
            return Below::Nothing;
        };
        let (id, seen) = self.ids.get(Ok(node));
        let label = self.node_label(v, node, id);
        let _ = writeln!(self.out, "{first}{label}{}", self.storage(v));
        if !seen {
            if let Some(Ok(fg)) = self.g.node(node).op.inner_fgraph() {
                let op = self.g.node(node).op.describe();
                let id = self.id(v, id);
                self.inner.push(InnerGraph { op, id, fg });
            }
        }
        if self.opts.depth.is_some_and(|d| depth + 1 >= d) {
            return Below::Nothing;
        }
        // A named node under `stop_on_name` is elided like a repeat.
        match seen || (self.opts.stop_on_name && data.name.is_some()) {
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
        label += &self.id(v, id);
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

    /// The ` [id X]` of the line printing `v`, whose count is `id`.
    fn id(&self, v: VarId, id: usize) -> String {
        match self.opts.id_type {
            IdType::Char => format!(" [id {}]", char_id(id)),
            IdType::Int => format!(" [id {id}]"),
            IdType::Auto => match self.opts.auto_names.get(&v) {
                Some(name) => format!(" [id {name}]"),
                None => format!(" [id {}]", char_id(id)),
            },
            IdType::None => String::new(),
        }
    }

    /// ` [value]`: what the function's storage holds for `v`, with
    /// `print_storage`.
    fn storage(&self, v: VarId) -> String {
        match &self.opts.storage {
            Some(held) => format!(" [{}]", held.get(&v).map_or("None", String::as_str)),
            None => String::new(),
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
