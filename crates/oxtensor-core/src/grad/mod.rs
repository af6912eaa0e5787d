//! Automatic differentiation on the arena graph: reverse mode ([`grad`],
//! [`pullback`]) and forward mode ([`pushforward`]), adding the derivative
//! graphs as new nodes. One implementation serves Rust programs and Python,
//! which reaches ops written in Python through a [`GradHost`].
//! Mirrors `pytensor/gradient.py`.

mod forward;
pub mod jacobian;
mod reverse;
mod substitute;

pub use forward::{pushforward, PushforwardRequest};
pub use jacobian::{hessian, jacobian, JacobianRequest};
pub use reverse::grad;
use reverse::grad_with;
pub use substitute::substitute;

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};

/// What `disconnected_inputs` asks for when a `wrt` entry does not reach the cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnDisconnected {
    /// `DisconnectedInputError`.
    #[default]
    Raise,
    /// A warning (returned in [`GradResult::warnings`]).
    Warn,
    /// Nothing.
    Ignore,
}

impl OnDisconnected {
    /// Raises `msg` as a `DisconnectedInputError`, adds it to `warnings`,
    /// or drops it.
    pub(crate) fn report(self, msg: String, warnings: &mut Vec<String>) -> Result<()> {
        match self {
            OnDisconnected::Raise => return Err(Error::Disconnected(msg)),
            OnDisconnected::Warn => warnings.push(msg),
            OnDisconnected::Ignore => {}
        }
        Ok(())
    }
}

/// What `return_disconnected` gives for a disconnected `wrt` entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReturnDisconnected {
    /// Zeros shaped like the variable (`"zero"`).
    #[default]
    Zero,
    /// Nothing (`"none"`).
    None,
    /// A `DisconnectedType` variable (`"disconnected"`).
    Disconnected,
}

/// A reverse-mode request: PyTensor's `grad` arguments.
#[derive(Clone, Debug, Default)]
pub struct GradRequest {
    /// The scalar cost, or `None` when `known_grads` seeds the gradient.
    pub cost: Option<VarId>,
    /// The variables to differentiate with respect to.
    pub wrt: Vec<VarId>,
    /// Gradients given for intermediate variables (`known_grads`).
    pub known_grads: Vec<(VarId, VarId)>,
    /// `grad(known_grads=...)`'s rule, PyTensor's: a known gradient is the
    /// variable's whole gradient, and what the cost sends through it is
    /// dropped. Off for a pullback, whose cotangents are seeds that add to
    /// what flows through their variables (an `f` inside another `f`'s
    /// graph still passes that one's cotangent on).
    pub known_replaces: bool,
    /// Variables treated as constants: gradients do not flow through them.
    pub consider_constant: Vec<VarId>,
    /// `disconnected_inputs`.
    pub disconnected_inputs: OnDisconnected,
    /// `return_disconnected`.
    pub return_disconnected: ReturnDisconnected,
    /// `null_gradients="return"` (else an undefined gradient raises).
    pub return_null: bool,
    /// `add_names`: name gradients `(dcost/dx)`.
    pub add_names: bool,
}

impl GradRequest {
    /// `grad(cost, wrt)` with PyTensor's defaults.
    pub fn new(cost: VarId, wrt: &[VarId]) -> Self {
        GradRequest {
            cost: Some(cost),
            wrt: wrt.to_vec(),
            add_names: true,
            ..Default::default()
        }
    }
}

/// The gradients (one per `wrt` entry, `None` for `return_disconnected="none"`)
/// and the warnings `disconnected_inputs="warn"` produced.
#[derive(Clone, Debug, Default)]
pub struct GradResult {
    /// One gradient per `wrt` entry.
    pub grads: Vec<Option<VarId>>,
    /// Warning messages for the host to show.
    pub warnings: Vec<String>,
}

/// How the driver reaches ops defined in the host language (Python ops):
/// their gradient methods need the host's graph objects.
pub trait GradHost {
    /// The op's `L_op`/`pullback` for `node`; one term per input.
    fn pullback(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        output_grads: &[VarId],
    ) -> Result<Vec<VarId>>;

    /// The op's `R_op`/`pushforward`, or `None` when it has none.
    fn pushforward(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        tangents: &[Option<VarId>],
    ) -> Result<Option<Vec<Option<VarId>>>>;

    /// The op's `connection_pattern(node)`, or `None` when it has none.
    fn connection_pattern(&mut self, g: &Graph, node: NodeId) -> Result<Option<Vec<Vec<bool>>>>;
}

/// `pullback(f, wrt, cotangents)`: the vector-Jacobian product, as `grad`
/// with no cost and the cotangents as known gradients.
pub fn pullback(
    g: &mut Graph,
    f: &[VarId],
    wrt: &[VarId],
    cotangents: &[VarId],
    host: Option<&mut dyn GradHost>,
) -> Result<GradResult> {
    let req = GradRequest {
        wrt: wrt.to_vec(),
        known_grads: f.iter().copied().zip(cotangents.iter().copied()).collect(),
        ..Default::default()
    };
    grad(g, &req, host)
}

/// Runs `f` with the given host, or one that refuses host ops.
fn with_host<T>(host: Option<&mut dyn GradHost>, f: impl FnOnce(&mut dyn GradHost) -> T) -> T {
    match host {
        Some(h) => f(h),
        None => f(&mut NoHost),
    }
}

/// The host of programs with no host language: host ops cannot occur.
struct NoHost;

impl NoHost {
    fn refuse<T>(g: &Graph, node: NodeId) -> Result<T> {
        Err(crate::Error::NotImplemented(format!(
            "{} is defined in a host language and no host was given to differentiate it",
            g.node(node).op
        )))
    }
}

impl GradHost for NoHost {
    fn pullback(&mut self, g: &mut Graph, node: NodeId, _: &[VarId]) -> Result<Vec<VarId>> {
        Self::refuse(g, node)
    }

    fn pushforward(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        _: &[Option<VarId>],
    ) -> Result<Option<Vec<Option<VarId>>>> {
        Self::refuse(g, node)
    }

    fn connection_pattern(&mut self, g: &Graph, node: NodeId) -> Result<Option<Vec<Vec<bool>>>> {
        Self::refuse(g, node)
    }
}

/// The op's connection pattern, from the host for host ops.
fn connection_pattern(
    g: &Graph,
    node: NodeId,
    host: &mut dyn GradHost,
) -> Result<Option<Vec<Vec<bool>>>> {
    let op = g.node(node).op.clone();
    if op.is_host() {
        host.connection_pattern(g, node)
    } else {
        op.connection_pattern(g.node(node).inputs.len())
    }
}

#[cfg(test)]
mod tests;
