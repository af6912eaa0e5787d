//! Features: objects attached to a [`FunctionGraph`] that hear about every
//! change (import, prune, input change), may veto in `on_validate`, and may
//! add ordering constraints. Mirrors `pytensor/graph/features.py`.

use super::fgraph::{Client, FunctionGraph};
use super::ids::{NodeId, VarId};
use crate::error::{Error, Result};
use std::any::Any;

pub use super::traversal::NodeOrderings as Orderings;

/// What `on_change_input` hears.
#[derive(Clone, Copy, Debug)]
pub struct InputChange<'a> {
    /// The node input (or graph output) that changed.
    pub client: Client,
    /// The variable it read before.
    pub old: VarId,
    /// The variable it reads now.
    pub new: VarId,
    /// Why (the rewrite's name, or the caller's reason).
    pub reason: &'a str,
}

/// Writes a [`Feature`]'s `name` (`$name`) and its downcasting methods.
macro_rules! feature_identity {
    ($name:literal) => {
        fn name(&self) -> &str {
            $name
        }

        fn as_any(&self) -> &dyn std::any::Any {
            self
        }

        fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
            self
        }
    };
}
pub(crate) use feature_identity;

/// A listener attached to a function graph. Every callback has a no-op default.
pub trait Feature: Any + Send + Sync {
    /// A short name for messages.
    fn name(&self) -> &str;

    /// Called when attached; `Err(Error::AlreadyThere)` cancels the attach silently.
    fn on_attach(&mut self, _fg: &FunctionGraph) -> Result<()> {
        Ok(())
    }

    /// Called when removed.
    fn on_detach(&mut self, _fg: &FunctionGraph) -> Result<()> {
        Ok(())
    }

    /// A node entered the graph.
    fn on_import(&mut self, _fg: &FunctionGraph, _node: NodeId, _reason: &str) -> Result<()> {
        Ok(())
    }

    /// A node left the graph.
    fn on_prune(&mut self, _fg: &FunctionGraph, _node: NodeId, _reason: &str) -> Result<()> {
        Ok(())
    }

    /// A client's input changed (see [`InputChange`]).
    fn on_change_input(&mut self, _fg: &FunctionGraph, _change: &InputChange) -> Result<()> {
        Ok(())
    }

    /// Veto the current state by returning an `Inconsistency` error.
    fn on_validate(&mut self, _fg: &FunctionGraph) -> Result<()> {
        Ok(())
    }

    /// Extra ordering constraints (`{node: [nodes that must run first]}`).
    fn orderings(&self, _fg: &FunctionGraph) -> Result<Orderings> {
        Ok(Orderings::new())
    }

    /// For downcasting to the concrete feature.
    fn as_any(&self) -> &dyn Any;

    /// For downcasting to the concrete feature, mutably.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// `Err(Error::AlreadyThere(message))` when `fg` already has a feature of
/// type `F`: the `on_attach` of a feature a graph has at most one of.
pub fn attach_once<F: Feature>(fg: &FunctionGraph, message: &str) -> Result<()> {
    if fg.feature::<F>().is_some() {
        return Err(Error::AlreadyThere(message.into()));
    }
    Ok(())
}
