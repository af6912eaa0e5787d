//! Replacement: moving clients from one variable to another (`replace`,
//! `change_node_input`) with the type and cycle checks, the history that
//! `revert` undoes, and `replace_all_validate` (PyTensor's `ReplaceValidate`).

use super::{Change, Client, CycleCheck, FunctionGraph};
use crate::error::{Error, Result};
use crate::graph::{traversal, InputChange, NodeId, VarId};
use std::collections::HashSet;

impl FunctionGraph {
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
        self.drop_client((old, client), reason, false)?;
        self.history.push(Change {
            client,
            old,
            reason: reason.to_owned(),
        });
        let change = InputChange {
            client,
            old,
            new,
            reason,
        };
        self.dispatch(|f, fg| f.on_change_input(fg, &change))
    }

    pub(super) fn set_client_input(&mut self, client: Client, var: VarId) {
        match client {
            Client::Node(n, i) => self.graph.node_mut(n).inputs[i] = var,
            Client::Output(i) => self.outputs[i] = var,
        }
    }

    /// Refuses a client that names a node outside the graph or an input or
    /// output slot that does not exist (user input, so an error, not a panic).
    pub(super) fn check_client(&self, client: Client) -> Result<()> {
        let (i, len) = match client {
            Client::Node(n, _) if !self.has_node(n) => {
                return Err(Error::Value(format!(
                    "{} is not in this FunctionGraph",
                    self.graph.describe_node(n)
                )))
            }
            Client::Node(n, i) => (i, self.graph.node(n).inputs.len()),
            Client::Output(i) => (i, self.outputs.len()),
        };
        if i < len {
            return Ok(());
        }
        // Described only on failure: this check runs on every replacement.
        let missing = match client {
            Client::Node(n, _) => format!("{} has no input", self.graph.describe_node(n)),
            Client::Output(_) => "The FunctionGraph has no output".to_owned(),
        };
        Err(Error::Index(format!("{missing} {i} (it has {len})")))
    }

    pub(super) fn check_replacement_type(&self, old: VarId, new: VarId) -> Result<()> {
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
        self.log_replace(var, new, reason);
        for client in self.clients(var).to_vec() {
            self.change_node_input(client, new, reason, import_missing, false)?;
        }
        Ok(())
    }

    /// `Type.filter_variable`: the new variable's type must be the old one
    /// or more specific.
    pub(super) fn filter_replacement(&self, var: VarId, new: VarId) -> Result<()> {
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
    pub(super) fn check_no_cycle(&self, var: VarId, new: VarId) -> Result<()> {
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
}
