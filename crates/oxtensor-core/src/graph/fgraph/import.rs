//! What a [`FunctionGraph`] holds: its declared inputs and outputs, and the
//! nodes imported for them, each variable with its clients; nodes are
//! pruned when their last client goes. Mirrors `FunctionGraph.import_var`,
//! `import_node` and `remove_client` of `pytensor/graph/fg.py`.

use super::{Client, FunctionGraph, InsertionList};
use crate::error::{Error, Result};
use crate::graph::{traversal, NodeId, VarId};
use crate::types::Type;

impl FunctionGraph {
    /// Declares a free variable as an input (once: declaring it again does nothing).
    pub fn add_input(&mut self, v: VarId) -> Result<()> {
        self.declare_input(v, false)
    }

    /// Declares a free variable as an input; with `keep_duplicate` a
    /// variable already declared takes another slot (PyTensor's
    /// `FunctionGraph([x, x], ...)` keeps both).
    pub(super) fn declare_input(&mut self, v: VarId, keep_duplicate: bool) -> Result<()> {
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
        if self.is_input(v) && !keep_duplicate {
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
        let v = super::slot(&self.outputs, idx, "output")?;
        self.outputs.remove(idx);
        for list in self.clients.iter_mut().flatten() {
            list.map_in_place(|c| shift_output(c, idx));
        }
        // Keep `revert` meaningful: recorded changes of later outputs move
        // down with them, and those of the removed output are forgotten.
        self.history.retain(|c| c.client != Client::Output(idx));
        self.history
            .iter_mut()
            .for_each(|c| shift_output(&mut c.client, idx));
        self.drop_client((v, Client::Output(idx)), reason, true)
    }

    pub(super) fn ensure_len(&mut self) {
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

    pub(super) fn register_var(&mut self, v: VarId) {
        self.ensure_len();
        self.clients[v.index()].get_or_insert_with(Default::default);
    }

    pub(super) fn clients_mut(&mut self, v: VarId) -> &mut InsertionList<Client> {
        self.ensure_len();
        self.clients[v.index()].get_or_insert_with(Default::default)
    }

    /// Brings a variable (and whatever computes it) into the graph.
    pub fn import_var(&mut self, v: VarId, reason: &str, import_missing: bool) -> Result<()> {
        self.graph.try_var(v)?;
        if let Some(node) = self.graph.var(v).owner() {
            if !self.has_node(node) {
                self.import_node(node, reason, import_missing)?;
            }
        } else if !self.graph.var(v).is_atomic() && !self.is_input(v) {
            self.import_free_var(v, import_missing)?;
        }
        self.register_var(v);
        self.in_vars[v.index()] = true;
        Ok(())
    }

    pub(super) fn import_free_var(&mut self, v: VarId, import_missing: bool) -> Result<()> {
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
    pub(super) fn check_node_inputs(&mut self, n: NodeId, import_missing: bool) -> Result<()> {
        for (i, &inp) in self.graph.node(n).inputs.clone().iter().enumerate() {
            let data = self.graph.var(inp);
            if data.owner().is_some() || data.is_atomic() || self.is_input(inp) {
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

    /// Removes one client entry (none if `client` is not listed); a
    /// variable left without clients whose owner's outputs are all unused
    /// gets its owner pruned, recursively. With `remove_if_empty` (what
    /// removing an output or a node does) the variables left without
    /// clients, inputs excepted, also leave `clients`; a replacement keeps
    /// their empty entries, as PyTensor's `remove_client` does.
    pub fn remove_client(
        &mut self,
        v: VarId,
        client: Client,
        reason: &str,
        remove_if_empty: bool,
    ) -> Result<()> {
        if self.clients.get(v.index()).is_none_or(Option::is_none) {
            return Err(Error::Value(format!(
                "{} has no clients entry in the graph",
                self.graph.try_var(v).map(|_| self.graph.describe_var(v))?
            )));
        }
        self.drop_client((v, client), reason, remove_if_empty)
    }

    /// [`Self::remove_client`] without its check: a variable without a
    /// clients entry (gone with an earlier pruned node) is skipped.
    pub(super) fn drop_client(
        &mut self,
        first: (VarId, Client),
        reason: &str,
        remove_if_empty: bool,
    ) -> Result<()> {
        let mut stack = vec![first];
        while let Some((var, client)) = stack.pop() {
            // A variable read twice by a pruned node may be gone already.
            let Some(list) = self.clients.get_mut(var.index()).and_then(Option::as_mut) else {
                continue;
            };
            list.remove(&client);
            if !list.is_empty() {
                continue;
            }
            if remove_if_empty && !self.is_input(var) {
                self.forget_clients(var);
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

    pub(super) fn prune_node(&mut self, node: NodeId, reason: &str) -> Result<()> {
        self.in_nodes[node.index()] = false;
        self.n_nodes -= 1;
        for out in self.graph.node(node).outputs.clone() {
            self.in_vars[out.index()] = false;
        }
        self.dispatch(|f, fg| f.on_prune(fg, node, reason))
    }
}

/// After output `removed` is dropped, later outputs move down by one.
fn shift_output(client: &mut Client, removed: usize) {
    if let Client::Output(j) = client {
        if *j > removed {
            *j -= 1;
        }
    }
}
