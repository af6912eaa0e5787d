//! `FunctionGraph`: a graph with declared inputs and outputs, the clients of
//! every variable, attached features, and replacement that keeps all of it
//! consistent. Mirrors `pytensor/graph/fg.py` (with `ReplaceValidate` built in).
//! Its parts, by concept: `import.rs` (inputs, outputs, import and prune),
//! `replace.rs`, `attached.rs` (features), `integrity.rs`.

mod attached;
mod import;
mod integrity;
mod remove;
mod replace;
mod verbose;

pub use verbose::{LogSink, ReplaceLog};

use super::arena::Graph;
use super::features::Feature;
use super::ids::{NodeId, VarId};
use super::insertion_list::{InsertionList, Live};
use super::traversal;
use crate::error::Result;

/// A place where a variable is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// Input `i` of a node.
    Node(NodeId, usize),
    /// Output `i` of the function graph (the seeds' `("output", i)`).
    Output(usize),
}

/// One recorded input change, for `revert`.
#[derive(Clone, Debug)]
struct Change {
    client: Client,
    old: VarId,
    reason: String,
}

/// A graph with inputs, outputs, clients and features.
pub struct FunctionGraph {
    graph: Graph,
    inputs: Vec<VarId>,
    outputs: Vec<VarId>,
    /// Clients per variable id; `None`: the variable was never registered.
    clients: Vec<Option<InsertionList<Client>>>,
    in_nodes: Vec<bool>,
    /// How many entries of `in_nodes` are set.
    n_nodes: usize,
    in_vars: Vec<bool>,
    /// Whether each variable id is a declared input (`inputs.contains`, in O(1)).
    is_input: Vec<bool>,
    /// How `replace` looks for cycles (see [`CycleCheck`]).
    cycle_check: CycleCheck,
    features: Vec<Box<dyn Feature>>,
    history: Vec<Change>,
    /// Where replacements are logged (`optimizer_verbose`), if anywhere.
    replace_log: Option<ReplaceLog>,
}

impl Default for FunctionGraph {
    /// An empty graph (no inputs, no outputs): a placeholder while the real
    /// one is moved elsewhere for a moment (a host rewriter's call).
    fn default() -> Self {
        FunctionGraph {
            graph: Graph::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            clients: Vec::new(),
            in_nodes: Vec::new(),
            n_nodes: 0,
            in_vars: Vec::new(),
            is_input: Vec::new(),
            cycle_check: CycleCheck::Full,
            features: Vec::new(),
            history: Vec::new(),
            replace_log: None,
        }
    }
}

/// How [`FunctionGraph::replace`] makes sure a replacement creates no cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CycleCheck {
    /// Walk everything the replacement depends on (a user's edit: any
    /// variable may come in, and the walk may cost the graph's size).
    #[default]
    Full,
    /// Walk only the part of the replacement that is not in the graph yet,
    /// refusing it if it reads a reader of the replaced variable directly.
    /// Rewriters build replacements from the replaced node's ancestors, so
    /// this catches their slips at the cost of what they built; a deeper
    /// cycle still fails the toposort that linking does.
    Shallow,
}

/// `list[idx]` (an input or output, as `what` says), or an `IndexError`.
fn slot(list: &[VarId], idx: usize, what: &str) -> Result<VarId> {
    list.get(idx)
        .copied()
        .ok_or_else(|| crate::error::Error::Index(format!("no {what} {idx}")))
}

/// The ids whose flag in `flags` (indexed by id) is set.
fn members(flags: &[bool]) -> impl Iterator<Item = u32> + '_ {
    flags
        .iter()
        .enumerate()
        .filter(|(_, &b)| b)
        .map(|(i, _)| i as u32)
}

impl FunctionGraph {
    /// A function graph over `graph` (taken over; the caller's copy, if any,
    /// is never modified). Inputs must be free variables (one listed twice
    /// keeps both slots, as in PyTensor); every variable the
    /// outputs need must be an input or a constant.
    pub fn new(graph: Graph, inputs: Vec<VarId>, outputs: Vec<VarId>) -> Result<Self> {
        let mut fg = FunctionGraph {
            graph,
            ..FunctionGraph::default()
        };
        for v in inputs {
            fg.declare_input(v, true)?;
        }
        for v in outputs {
            fg.add_output(v, "init")?;
        }
        Ok(fg)
    }

    /// A function graph whose inputs are the free variables the outputs need
    /// (atomic ones aside).
    pub fn from_outputs(graph: Graph, outputs: Vec<VarId>) -> Result<Self> {
        let inputs: Vec<VarId> = traversal::graph_inputs(&graph, &outputs, &[])
            .into_iter()
            .filter(|v| !graph.var(*v).is_atomic())
            .collect();
        Self::new(graph, inputs, outputs)
    }

    // ---- read access -------------------------------------------------------

    /// The arena.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The arena, to add new variables and nodes before importing them.
    /// Existing nodes must be changed only through this graph's methods.
    pub fn graph_mut(&mut self) -> &mut Graph {
        &mut self.graph
    }

    /// Declared inputs.
    pub fn inputs(&self) -> &[VarId] {
        &self.inputs
    }

    /// Outputs.
    pub fn outputs(&self) -> &[VarId] {
        &self.outputs
    }

    /// Whether `v` is a declared input.
    pub fn is_input(&self, v: VarId) -> bool {
        self.is_input.get(v.index()).copied().unwrap_or(false)
    }

    /// The clients of a variable, in insertion order (empty if unknown).
    pub fn clients(&self, v: VarId) -> Live<'_, Client> {
        self.clients
            .get(v.index())
            .and_then(Option::as_ref)
            .map_or_else(Live::default, InsertionList::live)
    }

    /// Variables that have a clients entry (including unused inputs).
    pub fn client_keys(&self) -> impl Iterator<Item = VarId> + '_ {
        self.clients
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_some())
            .map(|(i, _)| VarId(i as u32))
    }

    /// Whether the node is in the graph.
    pub fn has_node(&self, n: NodeId) -> bool {
        self.in_nodes.get(n.index()).copied().unwrap_or(false)
    }

    /// Whether the variable is in the graph (`var in fgraph.variables`).
    pub fn has_var(&self, v: VarId) -> bool {
        self.in_vars.get(v.index()).copied().unwrap_or(false)
    }

    /// How many nodes are in the graph (`len(fgraph.apply_nodes)`).
    pub fn num_apply_nodes(&self) -> usize {
        self.n_nodes
    }

    /// The nodes in the graph, by id.
    pub fn apply_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        members(&self.in_nodes).map(NodeId)
    }

    /// The variables in the graph, by id.
    pub fn variables(&self) -> impl Iterator<Item = VarId> + '_ {
        members(&self.in_vars).map(VarId)
    }

    /// The input variable that `client` reads.
    pub fn client_input(&self, client: Client) -> VarId {
        match client {
            Client::Node(n, i) => self.graph.node(n).inputs[i],
            Client::Output(i) => self.outputs[i],
        }
    }

    /// A copy of this graph (without features). Ids are the same in the copy.
    pub fn clone_graph(&self) -> FunctionGraph {
        FunctionGraph {
            graph: self.graph.clone(),
            inputs: self.inputs.clone(),
            outputs: self.outputs.clone(),
            clients: self.clients.clone(),
            in_nodes: self.in_nodes.clone(),
            n_nodes: self.n_nodes,
            in_vars: self.in_vars.clone(),
            is_input: self.is_input.clone(),
            cycle_check: self.cycle_check,
            features: Vec::new(),
            history: Vec::new(),
            replace_log: self.replace_log.clone(),
        }
    }
}

#[cfg(test)]
#[path = "fgraph_tests.rs"]
mod tests;
