//! `FunctionGraph`: a graph with declared inputs and outputs, the clients of
//! every variable, attached features, and replacement that keeps all of it
//! consistent. Mirrors `pytensor/graph/fg.py` (with `ReplaceValidate` built in).

use super::arena::{Graph, VarKind};
use super::features::{Feature, Orderings};
use super::ids::{NodeId, VarId};
use super::traversal;
use crate::error::{Error, Result};
use crate::types::Type;
use std::collections::HashSet;

/// A place where a variable is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// Input `i` of a node.
    Node(NodeId, usize),
    /// Output `i` of the function graph (the seeds' `("output", i)`).
    Output(usize),
}

/// After output `removed` is dropped, later outputs move down by one.
fn shift_output(client: &mut Client, removed: usize) {
    if let Client::Output(j) = client {
        if *j > removed {
            *j -= 1;
        }
    }
}

/// Holds a feature's place while that feature runs (see `dispatch`).
struct Vacant;

impl Feature for Vacant {
    fn name(&self) -> &str {
        "Vacant"
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
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
    clients: Vec<Option<Vec<Client>>>,
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

impl FunctionGraph {
    /// A function graph over `graph` (taken over; the caller's copy, if any,
    /// is never modified). Inputs must be free variables; every variable the
    /// outputs need must be an input or a constant.
    pub fn new(graph: Graph, inputs: Vec<VarId>, outputs: Vec<VarId>) -> Result<Self> {
        let mut fg = FunctionGraph {
            graph,
            ..FunctionGraph::default()
        };
        for v in inputs {
            fg.add_input(v)?;
        }
        for v in outputs {
            fg.add_output(v, "init")?;
        }
        Ok(fg)
    }

    /// A function graph whose inputs are the free variables the outputs need.
    pub fn from_outputs(graph: Graph, outputs: Vec<VarId>) -> Result<Self> {
        let inputs: Vec<VarId> = traversal::graph_inputs(&graph, &outputs, &[])
            .into_iter()
            .filter(|v| !graph.var(*v).is_constant())
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
    pub fn clients(&self, v: VarId) -> &[Client] {
        self.clients
            .get(v.index())
            .and_then(Option::as_deref)
            .unwrap_or(&[])
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
        self.in_nodes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b)
            .map(|(i, _)| NodeId(i as u32))
    }

    /// The variables in the graph, by id.
    pub fn variables(&self) -> impl Iterator<Item = VarId> + '_ {
        self.in_vars
            .iter()
            .enumerate()
            .filter(|(_, &b)| b)
            .map(|(i, _)| VarId(i as u32))
    }

    /// The input variable that `client` reads.
    pub fn client_input(&self, client: Client) -> VarId {
        match client {
            Client::Node(n, i) => self.graph.node(n).inputs[i],
            Client::Output(i) => self.outputs[i],
        }
    }

    // ---- inputs and outputs ------------------------------------------------

    /// Declares a free variable as an input.
    pub fn add_input(&mut self, v: VarId) -> Result<()> {
        let data = self.graph.try_var(v)?;
        if data.owner().is_some() {
            return Err(Error::Value(
                "One of the provided inputs is the output of an already existing node. If that is \
                 okay, either discard that input's owner or use graph.clone."
                    .into(),
            ));
        }
        if data.is_constant() {
            return Err(Error::Type(format!(
                "Constant {} cannot be an input of a graph; constants need no input slot",
                self.graph.describe_var(v)
            )));
        }
        if self.is_input(v) {
            return Ok(());
        }
        self.inputs.push(v);
        self.register_var(v);
        self.is_input[v.index()] = true;
        Ok(())
    }

    /// Appends an output and imports what it needs.
    pub fn add_output(&mut self, v: VarId, reason: &str) -> Result<()> {
        self.graph.try_var(v)?;
        self.outputs.push(v);
        self.import_var(v, reason, false)?;
        let idx = self.outputs.len() - 1;
        self.clients_mut(v).push(Client::Output(idx));
        Ok(())
    }

    /// Removes output `idx`; later outputs shift down by one.
    pub fn remove_output(&mut self, idx: usize, reason: &str) -> Result<()> {
        let v = *self
            .outputs
            .get(idx)
            .ok_or_else(|| Error::Index(format!("no output {idx}")))?;
        self.outputs.remove(idx);
        for list in self.clients.iter_mut().flatten() {
            list.iter_mut().for_each(|c| shift_output(c, idx));
        }
        // Keep `revert` meaningful: recorded changes of later outputs move
        // down with them, and those of the removed output are forgotten.
        self.history.retain(|c| c.client != Client::Output(idx));
        self.history
            .iter_mut()
            .for_each(|c| shift_output(&mut c.client, idx));
        self.remove_client(v, Client::Output(idx), reason)
    }

    // ---- import and prune --------------------------------------------------

    fn ensure_len(&mut self) {
        let (nv, nn) = (self.graph.num_vars(), self.graph.num_nodes());
        if self.clients.len() < nv {
            self.clients.resize(nv, None);
            self.in_vars.resize(nv, false);
            self.is_input.resize(nv, false);
        }
        if self.in_nodes.len() < nn {
            self.in_nodes.resize(nn, false);
        }
    }

    fn register_var(&mut self, v: VarId) {
        self.ensure_len();
        self.clients[v.index()].get_or_insert_with(Vec::new);
    }

    fn clients_mut(&mut self, v: VarId) -> &mut Vec<Client> {
        self.ensure_len();
        self.clients[v.index()].get_or_insert_with(Vec::new)
    }

    /// Brings a variable (and whatever computes it) into the graph.
    pub fn import_var(&mut self, v: VarId, reason: &str, import_missing: bool) -> Result<()> {
        self.graph.try_var(v)?;
        if let Some(node) = self.graph.var(v).owner() {
            if !self.has_node(node) {
                self.import_node(node, reason, import_missing)?;
            }
        } else if !self.graph.var(v).is_constant() && !self.is_input(v) {
            self.import_free_var(v, import_missing)?;
        }
        self.register_var(v);
        self.in_vars[v.index()] = true;
        Ok(())
    }

    fn import_free_var(&mut self, v: VarId, import_missing: bool) -> Result<()> {
        if let Type::Null(why) = &self.graph.var(v).ty {
            return Err(Error::Type(format!(
                "Computation graph contains a NaN. {why}"
            )));
        }
        if import_missing {
            return self.add_input(v);
        }
        Err(Error::MissingInput(format!(
            "Undeclared input: {}",
            self.graph.describe_var(v)
        )))
    }

    /// Brings a node and the nodes it needs into the graph, firing `on_import`.
    pub fn import_node(&mut self, node: NodeId, reason: &str, import_missing: bool) -> Result<()> {
        self.ensure_len();
        let outs = self.graph.node(node).outputs.clone();
        // The walk stops at variables already in the graph, so an import
        // costs the size of what is new, not of the whole graph.
        let new_nodes: Vec<NodeId> =
            traversal::toposort_by(&self.graph, &outs, |v| self.has_var(v))?
                .into_iter()
                .filter(|n| !self.has_node(*n))
                .collect();
        for &n in &new_nodes {
            self.check_node_inputs(n, import_missing)?;
        }
        for n in new_nodes {
            self.in_nodes[n.index()] = true;
            self.n_nodes += 1;
            for out in self.graph.node(n).outputs.clone() {
                self.register_var(out);
                self.in_vars[out.index()] = true;
            }
            for (i, inp) in self.graph.node(n).inputs.clone().into_iter().enumerate() {
                self.import_var(inp, reason, import_missing)?;
                self.clients_mut(inp).push(Client::Node(n, i));
            }
            self.dispatch(|f, fg| f.on_import(fg, n, reason))?;
        }
        Ok(())
    }

    /// Refuses a node whose free inputs are neither declared nor constants.
    fn check_node_inputs(&mut self, n: NodeId, import_missing: bool) -> Result<()> {
        for (i, &inp) in self.graph.node(n).inputs.clone().iter().enumerate() {
            let data = self.graph.var(inp);
            if data.owner().is_some() || data.is_constant() || self.is_input(inp) {
                continue;
            }
            if import_missing {
                self.add_input(inp)?;
                continue;
            }
            return Err(Error::MissingInput(format!(
                "Input {i} ({}) of the graph (indices start from 0), used to compute {}, was not \
                 provided and not given a value. Declare it as an input of the graph or give it a value.",
                self.graph.describe_var(inp),
                self.graph.describe_node(n)
            )));
        }
        Ok(())
    }

    /// Removes one client entry; a variable left without clients whose
    /// owner's outputs are all unused gets its owner pruned, recursively.
    pub fn remove_client(&mut self, v: VarId, client: Client, reason: &str) -> Result<()> {
        let mut stack = vec![(v, client)];
        while let Some((var, client)) = stack.pop() {
            let list = self.clients_mut(var);
            if let Some(pos) = list.iter().position(|c| *c == client) {
                list.remove(pos);
            }
            if !list.is_empty() {
                continue;
            }
            match self.graph.var(var).owner() {
                None => self.in_vars[var.index()] = false,
                Some(node) => {
                    let outs = self.graph.node(node).outputs.clone();
                    if self.has_node(node) && outs.iter().all(|o| self.clients(*o).is_empty()) {
                        self.prune_node(node, reason)?;
                        let inputs = self.graph.node(node).inputs.clone();
                        stack.extend(
                            inputs
                                .into_iter()
                                .enumerate()
                                .map(|(i, inp)| (inp, Client::Node(node, i))),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn prune_node(&mut self, node: NodeId, reason: &str) -> Result<()> {
        self.in_nodes[node.index()] = false;
        self.n_nodes -= 1;
        for out in self.graph.node(node).outputs.clone() {
            self.in_vars[out.index()] = false;
        }
        self.dispatch(|f, fg| f.on_prune(fg, node, reason))
    }

    // ---- replacement -------------------------------------------------------

    /// Makes `client` read `new` instead of its current input.
    pub fn change_node_input(
        &mut self,
        client: Client,
        new: VarId,
        reason: &str,
        import_missing: bool,
        check: bool,
    ) -> Result<()> {
        self.graph.try_var(new)?;
        self.check_client(client)?;
        let old = self.client_input(client);
        if old == new {
            return Ok(());
        }
        if check {
            self.check_replacement_type(old, new)?;
        }
        self.set_client_input(client, new);
        if let Err(err) = self.import_var(new, reason, import_missing) {
            // A refused import (an undeclared input, a NullType) must leave
            // the graph as it was, or a retry would see nothing to change.
            self.set_client_input(client, old);
            return Err(err);
        }
        self.clients_mut(new).push(client);
        self.remove_client(old, client, reason)?;
        self.history.push(Change {
            client,
            old,
            reason: reason.to_owned(),
        });
        self.dispatch(|f, fg| f.on_change_input(fg, client, old, new, reason))
    }

    fn set_client_input(&mut self, client: Client, var: VarId) {
        match client {
            Client::Node(n, i) => self.graph.node_mut(n).inputs[i] = var,
            Client::Output(i) => self.outputs[i] = var,
        }
    }

    /// Refuses a client that names a node outside the graph or an input or
    /// output slot that does not exist (user input, so an error, not a panic).
    fn check_client(&self, client: Client) -> Result<()> {
        let (i, len, missing) = match client {
            Client::Node(n, _) if !self.has_node(n) => {
                return Err(Error::Value(format!(
                    "{} is not in this FunctionGraph",
                    self.graph.describe_node(n)
                )))
            }
            Client::Node(n, i) => (
                i,
                self.graph.node(n).inputs.len(),
                format!("{} has no input", self.graph.describe_node(n)),
            ),
            Client::Output(i) => (
                i,
                self.outputs.len(),
                "The FunctionGraph has no output".to_owned(),
            ),
        };
        if i < len {
            return Ok(());
        }
        Err(Error::Index(format!("{missing} {i} (it has {len})")))
    }

    fn check_replacement_type(&self, old: VarId, new: VarId) -> Result<()> {
        let (t_old, t_new) = (&self.graph.var(old).ty, &self.graph.var(new).ty);
        if t_old.is_super(t_new) {
            return Ok(());
        }
        Err(Error::Type(format!(
            "The type of the replacement ({t_new}) must be compatible with the type of the original \
             Variable ({t_old})."
        )))
    }

    /// Replaces every use of `var` by `new`. Refuses a type that cannot hold
    /// `var`'s values and a replacement that would make the graph cyclic.
    /// A variable that is not in the graph is silently left alone.
    pub fn replace(
        &mut self,
        var: VarId,
        new: VarId,
        reason: &str,
        import_missing: bool,
    ) -> Result<()> {
        self.graph.try_var(new)?;
        self.filter_replacement(var, new)?;
        if !self.has_var(var) {
            return Ok(());
        }
        self.check_no_cycle(var, new)?;
        for client in self.clients(var).to_vec() {
            self.change_node_input(client, new, reason, import_missing, false)?;
        }
        Ok(())
    }

    /// `Type.filter_variable`: the new variable's type must be the old one
    /// or more specific.
    fn filter_replacement(&self, var: VarId, new: VarId) -> Result<()> {
        let (t_old, t_new) = (&self.graph.var(var).ty, &self.graph.var(new).ty);
        if t_old.is_super(t_new) {
            return Ok(());
        }
        let name = self.graph.describe_var(new);
        Err(Error::Type(format!(
            "Cannot convert Type {t_new} (of Variable {name}) into Type {t_old}. You can try to \
             manually convert {name} into a {t_old}."
        )))
    }

    /// Sets how `replace` looks for cycles; returns the previous setting.
    pub fn set_cycle_check(&mut self, check: CycleCheck) -> CycleCheck {
        std::mem::replace(&mut self.cycle_check, check)
    }

    /// A cycle would appear if `new` is computed from a node that reads `var`.
    fn check_no_cycle(&self, var: VarId, new: VarId) -> Result<()> {
        let readers: HashSet<NodeId> = self
            .clients(var)
            .iter()
            .filter_map(|c| {
                if let Client::Node(n, _) = c {
                    Some(*n)
                } else {
                    None
                }
            })
            .collect();
        if readers.is_empty() {
            return Ok(());
        }
        let reached = match self.cycle_check {
            CycleCheck::Full => traversal::ancestors(&self.graph, &[new], &self.inputs),
            // Stop at variables the graph already has: only the new part
            // and its edge into the graph are looked at.
            CycleCheck::Shallow => {
                traversal::walk_dfs(&[new], |v| match self.graph.var(v).owner() {
                    Some(n) if !self.has_node(n) => self.graph.node(n).inputs.clone(),
                    _ => Vec::new(),
                })
            }
        };
        let culprit = reached
            .into_iter()
            .filter_map(|v| self.graph.var(v).owner())
            .find(|n| readers.contains(n));
        match culprit {
            None => Ok(()),
            Some(n) => Err(Error::Inconsistency(format!(
                "Replacing {} with {} would create a cycle: the replacement depends on {}, which \
                 uses the replaced variable",
                self.graph.describe_var(var),
                self.graph.describe_var(new),
                self.graph.describe_node(n)
            ))),
        }
    }

    /// `replace` for each pair, in order.
    pub fn replace_all(&mut self, pairs: &[(VarId, VarId)], reason: &str) -> Result<()> {
        pairs
            .iter()
            .try_for_each(|&(v, n)| self.replace(v, n, reason, false))
    }

    /// A token for [`FunctionGraph::revert`].
    pub fn checkpoint(&self) -> usize {
        self.history.len()
    }

    /// Undoes every input change made since `checkpoint`, newest first.
    pub fn revert(&mut self, checkpoint: usize) -> Result<()> {
        while self.history.len() > checkpoint {
            let change = self
                .history
                .pop()
                .expect("history is longer than the checkpoint");
            if self.check_client(change.client).is_err() {
                // The node left the graph by an unrecorded edit
                // (`remove_output`): nothing of it is left to undo.
                continue;
            }
            let reason = format!("Revert({})", change.reason);
            let before = self.history.len();
            self.change_node_input(change.client, change.old, &reason, false, false)?;
            self.history.truncate(before);
        }
        Ok(())
    }

    /// Asks every feature whether the graph is acceptable.
    pub fn validate(&mut self) -> Result<()> {
        self.dispatch(|f, fg| f.on_validate(fg))
    }

    /// `replace_all`, then `validate`; on any error every change is reverted
    /// and the error returned.
    pub fn replace_all_validate(&mut self, pairs: &[(VarId, VarId)], reason: &str) -> Result<()> {
        let chk = self.checkpoint();
        let result = self
            .replace_all(pairs, reason)
            .and_then(|()| self.validate());
        if let Err(err) = result {
            self.revert(chk)?;
            return Err(err);
        }
        Ok(())
    }

    // ---- features ----------------------------------------------------------

    /// Attaches a feature; one whose `on_attach` says `AlreadyThere` is dropped silently.
    pub fn attach_feature(&mut self, mut feature: Box<dyn Feature>) -> Result<()> {
        match feature.on_attach(self) {
            Ok(()) => {
                self.features.push(feature);
                Ok(())
            }
            Err(Error::AlreadyThere(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Detaches the feature at `index`, calling its `on_detach`.
    pub fn remove_feature(&mut self, index: usize) -> Result<Box<dyn Feature>> {
        if index >= self.features.len() {
            return Err(Error::Index(format!("no feature at index {index}")));
        }
        let mut feature = self.features.remove(index);
        feature.on_detach(self)?;
        Ok(feature)
    }

    /// The attached features.
    pub fn features(&self) -> &[Box<dyn Feature>] {
        &self.features
    }

    /// The first attached feature of type `T`.
    pub fn feature<T: Feature>(&self) -> Option<&T> {
        self.features
            .iter()
            .find_map(|f| f.as_any().downcast_ref::<T>())
    }

    /// The first attached feature of type `T`, mutably.
    pub fn feature_mut<T: Feature>(&mut self) -> Option<&mut T> {
        self.features
            .iter_mut()
            .find_map(|f| f.as_any_mut().downcast_mut::<T>())
    }

    /// Runs `f` with the first feature of type `T` taken out of the graph,
    /// so `f` may use the feature and the graph mutably together (a shape
    /// feature adding shape nodes to the arena). The feature hears of no
    /// event while it is out: `f` may add to the arena but must not change
    /// which nodes are in the graph. `None` if there is no such feature.
    pub fn with_feature<T: Feature, R>(
        &mut self,
        f: impl FnOnce(&mut T, &mut FunctionGraph) -> R,
    ) -> Option<R> {
        let pos = self.features.iter().position(|x| x.as_any().is::<T>())?;
        let mut feature = self.features.remove(pos);
        let out = feature.as_any_mut().downcast_mut::<T>().map(|t| f(t, self));
        self.features.insert(pos, feature);
        out
    }

    /// Detaches the first feature of type `T`, if any.
    pub fn remove_feature_of<T: Feature>(&mut self) -> Result<Option<Box<dyn Feature>>> {
        match self.features.iter().position(|x| x.as_any().is::<T>()) {
            Some(i) => self.remove_feature(i).map(Some),
            None => Ok(None),
        }
    }

    /// Calls `f` on every feature in attach order. Each is taken out while
    /// it runs, so it sees the graph through a shared reference, and the
    /// others stay in: a feature may read another's state (the Supervisor
    /// asks the DestroyHandler what is destroyed).
    fn dispatch(
        &mut self,
        mut f: impl FnMut(&mut dyn Feature, &FunctionGraph) -> Result<()>,
    ) -> Result<()> {
        for k in 0..self.features.len() {
            let mut feat = std::mem::replace(&mut self.features[k], Box::new(Vacant));
            let result = f(feat.as_mut(), self);
            self.features[k] = feat;
            result?;
        }
        Ok(())
    }

    /// The features' ordering constraints, merged.
    pub fn orderings(&self) -> Result<Orderings> {
        let mut all = Orderings::new();
        for f in &self.features {
            for (node, before) in f.orderings(self)? {
                all.entry(node).or_default().extend(before);
            }
        }
        Ok(all)
    }

    /// The nodes in an order that respects dependencies and the features'
    /// orderings; an error if the orderings make a cycle.
    pub fn toposort(&self) -> Result<Vec<NodeId>> {
        self.toposort_with(&Orderings::new())
    }

    /// `toposort` with extra orderings (e.g. from features the host keeps).
    pub fn toposort_with(&self, extra: &Orderings) -> Result<Vec<NodeId>> {
        let mut all = self.orderings()?;
        for (node, before) in extra {
            all.entry(*node).or_default().extend(before.iter().copied());
        }
        traversal::toposort_with_orderings(&self.graph, &self.outputs, &self.inputs, &all)
    }

    // ---- integrity and cloning ---------------------------------------------

    /// Checks that clients, nodes and variables agree with each other.
    pub fn check_integrity(&self) -> Result<()> {
        let reachable: HashSet<NodeId> =
            traversal::applys_between(&self.graph, &self.inputs, &self.outputs)
                .into_iter()
                .collect();
        let listed: HashSet<NodeId> = self.apply_nodes().collect();
        if reachable != listed {
            let mut diff: Vec<String> = listed
                .symmetric_difference(&reachable)
                .map(|n| self.graph.describe_node(*n))
                .collect();
            diff.sort();
            return Err(Error::Integrity(format!(
                "The following nodes are inappropriately cached:\nmissing: {diff:?}"
            )));
        }
        for &node in &listed {
            for (i, &inp) in self.graph.node(node).inputs.iter().enumerate() {
                self.check_input_link(node, i, inp)?;
            }
        }
        for v in self.variables() {
            self.check_var(v)?;
        }
        Ok(())
    }

    fn check_input_link(&self, node: NodeId, i: usize, inp: VarId) -> Result<()> {
        if !self.has_var(inp) {
            return Err(Error::Integrity(format!(
                "Undeclared input: {} of {}",
                self.graph.describe_var(inp),
                self.graph.describe_node(node)
            )));
        }
        if !self.clients(inp).contains(&Client::Node(node, i)) {
            return Err(Error::Integrity(format!(
                "Inconsistent clients list: {} has no entry for input {i} of {}",
                self.graph.describe_var(inp),
                self.graph.describe_node(node)
            )));
        }
        Ok(())
    }

    fn check_var(&self, v: VarId) -> Result<()> {
        let data = self.graph.var(v);
        let cached = match data.kind {
            VarKind::Output { node, .. } => self.has_node(node),
            VarKind::Root => self.is_input(v),
            VarKind::Constant(_) => true,
        };
        if !cached {
            return Err(Error::Integrity(format!(
                "The following variables are inappropriately cached: {}",
                self.graph.describe_var(v)
            )));
        }
        for c in self.clients(v) {
            let ok = match *c {
                Client::Node(n, i) => {
                    self.has_node(n) && self.graph.node(n).inputs.get(i) == Some(&v)
                }
                Client::Output(i) => self.outputs.get(i) == Some(&v),
            };
            if !ok {
                return Err(Error::Integrity(format!(
                    "Client not in FunctionGraph: {c:?} of {}",
                    self.graph.describe_var(v)
                )));
            }
        }
        Ok(())
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
        }
    }
}

#[cfg(test)]
#[path = "fgraph_tests.rs"]
mod tests;
