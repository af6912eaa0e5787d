//! Forward mode: Jacobian-vector products (`pushforward`, `Rop`). Either
//! node by node through each op's own rule, falling back to a local double
//! pullback for ops without one, or for the whole graph at once by the
//! double pullback: with `u` standing for the outputs' cotangents,
//! `pullback(f, wrt, u)` is `Jᵀu`, linear in `u`, and pulling that back
//! to `u` along the tangents gives `J v`. The result does not depend on the
//! values of `u`, only on its shape, so `u` is finally replaced by `f`.

use super::reverse::local_pullback;
use super::{
    grad_with, substitute, GradHost, GradRequest, GradResult, OnDisconnected, ReturnDisconnected,
};
use crate::build;
use crate::error::{Error, Result};
use crate::graph::traversal::toposort;
use crate::graph::{Graph, NodeId, VarId};
use crate::ops::scalar_grad::{grad_dtype, match_dtype};
use crate::types::Type;
use std::collections::HashMap;

/// A forward-mode request: PyTensor's `pushforward` arguments.
#[derive(Clone, Debug, Default)]
pub struct PushforwardRequest {
    /// The outputs whose tangents are wanted.
    pub f: Vec<VarId>,
    /// The variables the tangents are given for.
    pub wrt: Vec<VarId>,
    /// One tangent (evaluation point) per `wrt` entry.
    pub tangents: Vec<VarId>,
    /// Use each op's own pushforward (`Rop`), else the double pullback.
    pub use_op_pushforward: bool,
    /// `disconnected_outputs`: an output that does not depend on `wrt`.
    pub disconnected_outputs: OnDisconnected,
    /// `return_disconnected`.
    pub return_disconnected: ReturnDisconnected,
}

/// One tangent per output of `req.f`.
pub fn pushforward(
    g: &mut Graph,
    req: &PushforwardRequest,
    host: Option<&mut dyn GradHost>,
) -> Result<GradResult> {
    check_tangents(g, req)?;
    let tangents = super::with_host(host, |h| {
        if req.use_op_pushforward {
            through_ops(g, req, h)
        } else {
            through_pullback(g, &req.f, &req.wrt, &req.tangents, h)
        }
    })?;
    let mut result = GradResult::default();
    for (&f, t) in req.f.iter().zip(tangents) {
        result.grads.push(match t {
            Some(t) => Some(match_dtype(g, t, tensor_dtype(g, f)?)?),
            // Computed from `wrt` with a zero derivative (floor, a cast to int).
            None if reaches(g, f, &req.wrt) => {
                Some(build::zeros_like(g, f, grad_dtype(tensor_dtype(g, f)?))?)
            }
            None => disconnected_output(g, req, f, &mut result.warnings)?,
        });
    }
    Ok(result)
}

/// Whether `f` is computed from some of `wrt`.
fn reaches(g: &Graph, f: VarId, wrt: &[VarId]) -> bool {
    crate::graph::traversal::ancestors(g, &[f], &[])
        .iter()
        .any(|v| wrt.contains(v))
}

fn tensor_dtype(g: &Graph, v: VarId) -> Result<crate::dtype::DType> {
    Ok(g.var(v)
        .ty
        .expect_tensor("A differentiated variable")?
        .dtype)
}

fn check_tangents(g: &Graph, req: &PushforwardRequest) -> Result<()> {
    if req.wrt.len() != req.tangents.len() {
        return Err(Error::Value(format!(
            "wrt has {} entries but {} tangents (eval_points) were given",
            req.wrt.len(),
            req.tangents.len()
        )));
    }
    for (i, (&w, &t)) in req.wrt.iter().zip(&req.tangents).enumerate() {
        let (wt, tt) = (&g.try_var(w)?.ty, &g.try_var(t)?.ty);
        if let (Type::Tensor(a), Type::Tensor(b)) = (wt, tt) {
            if a.ndim() != b.ndim() {
                return Err(Error::Value(format!(
                    "Element {i} of wrt/eval_point have mismatched dimensionality: {} versus {}",
                    a.ndim(),
                    b.ndim()
                )));
            }
        }
    }
    Ok(())
}

fn disconnected_output(
    g: &mut Graph,
    req: &PushforwardRequest,
    f: VarId,
    warnings: &mut Vec<String>,
) -> Result<Option<VarId>> {
    let msg = format!(
        "pushforward was asked for the tangent of {}, which does not depend on any variable in wrt",
        g.describe_var(f)
    );
    req.disconnected_outputs.report(msg, warnings)?;
    Ok(match req.return_disconnected {
        ReturnDisconnected::Zero => Some(build::zeros_like(g, f, grad_dtype(tensor_dtype(g, f)?))?),
        ReturnDisconnected::None => None,
        ReturnDisconnected::Disconnected => Some(g.input(Type::Disconnected, None)),
    })
}

/// Node by node from `wrt` to `f`.
fn through_ops(
    g: &mut Graph,
    req: &PushforwardRequest,
    host: &mut dyn GradHost,
) -> Result<Vec<Option<VarId>>> {
    let mut tangent: HashMap<VarId, VarId> = req
        .wrt
        .iter()
        .copied()
        .zip(req.tangents.iter().copied())
        .collect();
    // Outputs reached from `wrt` whose op gives no tangent (a Python op's
    // `R_op` returning None, an integer output): PyTensor's `Rop` carries
    // them as `None`, and fails if one is asked for.
    let mut undefined: HashMap<VarId, String> = HashMap::new();
    for node in toposort(g, &req.f, &req.wrt)? {
        let inputs = g.node(node).inputs.clone();
        let ts: Vec<Option<VarId>> = inputs.iter().map(|i| tangent.get(i).copied()).collect();
        let out_vars = g.node(node).outputs.clone();
        if ts.iter().all(Option::is_none) {
            if let Some(why) = inputs.iter().find_map(|i| undefined.get(i)).cloned() {
                out_vars.iter().for_each(|&o| {
                    undefined.insert(o, why.clone());
                });
            }
            continue;
        }
        let outs =
            node_pushforward(g, node, &ts, host).map_err(|e| e.at_node(g.describe_node(node)))?;
        if outs.len() != out_vars.len() {
            return Err(Error::Value(format!(
                "{}.R_op returned {} tangents for {} outputs",
                g.node(node).op,
                outs.len(),
                out_vars.len()
            )));
        }
        for (o, t) in out_vars.into_iter().zip(outs) {
            match t {
                Some(t) => {
                    tangent.insert(o, t);
                }
                None => {
                    if let Some(why) = no_tangent(g, node, o) {
                        undefined.insert(o, why);
                    }
                }
            }
        }
    }
    req.f
        .iter()
        .map(|f| match (tangent.get(f), undefined.get(f)) {
            (Some(&t), _) => Ok(Some(t)),
            (None, Some(why)) => Err(Error::Value(format!(
                "The function is not differentiable with respect to the provided inputs: {why}"
            ))),
            (None, None) => Ok(None),
        })
        .collect()
}

/// Why output `o` of `node`, reached from `wrt`, has no tangent: its op is
/// a host op whose `R_op` gave none, or it is discrete.
fn no_tangent(g: &Graph, node: NodeId, o: VarId) -> Option<String> {
    let op = &g.node(node).op;
    let discrete = g
        .var(o)
        .ty
        .as_tensor()
        .is_some_and(|t| !t.dtype.is_continuous());
    if op.is_host() {
        Some(format!("{op}.R_op returned None for {}", g.describe_var(o)))
    } else if discrete {
        Some(format!(
            "{op} has a discrete output ({})",
            g.describe_var(o)
        ))
    } else {
        None
    }
}

/// A node's own pushforward, or its local double pullback.
fn node_pushforward(
    g: &mut Graph,
    node: NodeId,
    ts: &[Option<VarId>],
    host: &mut dyn GradHost,
) -> Result<Vec<Option<VarId>>> {
    let op = g.node(node).op.clone();
    let own = if op.is_host() {
        host.pushforward(g, node, ts)?
    } else {
        op.pushforward(g, node, ts)?
    };
    if let Some(own) = own {
        return Ok(own);
    }
    let outs = g.node(node).outputs.clone();
    let inputs = g.node(node).inputs.clone();
    let (us, ogs) = cotangent_placeholders(g, &outs);
    let terms = local_pullback(g, node, &ogs, host)?;
    let known: Vec<(VarId, VarId)> = terms
        .iter()
        .zip(inputs.iter().zip(ts))
        .filter_map(|(&t, (_, v))| v.map(|v| (t, v)))
        .collect();
    pull_to_placeholders(g, &outs, &us, known, host)
}

/// A placeholder cotangent per continuous output (disconnected for the rest).
fn cotangent_placeholders(g: &mut Graph, outs: &[VarId]) -> (Vec<Option<VarId>>, Vec<VarId>) {
    let mut us = Vec::new();
    let mut ogs = Vec::new();
    for &o in outs {
        let ty = g.var(o).ty.clone();
        let continuous = ty.as_tensor().is_some_and(|t| t.dtype.is_continuous());
        let u = g.input(if continuous { ty } else { Type::Disconnected }, None);
        us.push(continuous.then_some(u));
        ogs.push(u);
    }
    (us, ogs)
}

/// The second pullback: from the `Jᵀu` terms (seeded with the tangents)
/// back to the placeholders `u`, which are then replaced by the outputs.
fn pull_to_placeholders(
    g: &mut Graph,
    outs: &[VarId],
    us: &[Option<VarId>],
    known: Vec<(VarId, VarId)>,
    host: &mut dyn GradHost,
) -> Result<Vec<Option<VarId>>> {
    for (t, _) in &known {
        if let Type::Null(why) = &g.var(*t).ty {
            return Err(Error::NullGradient(format!(
                "`pushforward` encountered a NaN. {why}"
            )));
        }
    }
    let known: Vec<(VarId, VarId)> = known
        .into_iter()
        .filter(|(t, _)| g.var(*t).ty.as_tensor().is_some())
        .collect();
    let wrt: Vec<VarId> = us.iter().flatten().copied().collect();
    if known.is_empty() || wrt.is_empty() {
        return Ok(vec![None; outs.len()]);
    }
    let req = GradRequest {
        wrt,
        known_grads: known,
        disconnected_inputs: OnDisconnected::Ignore,
        return_disconnected: ReturnDisconnected::None,
        ..Default::default()
    };
    let jv = grad_with(g, &req, host)?.grads;
    let replace: HashMap<VarId, VarId> = us
        .iter()
        .zip(outs)
        .filter_map(|(u, &o)| u.map(|u| (u, o)))
        .collect();
    let found: Vec<VarId> = jv.iter().flatten().copied().collect();
    let mut fixed = substitute(g, &found, &replace)?.into_iter();
    let mut per_u = jv.into_iter().map(move |j| j.and_then(|_| fixed.next()));
    Ok(us
        .iter()
        .map(|u| u.and_then(|_| per_u.next().flatten()))
        .collect())
}

/// The whole graph's double pullback.
fn through_pullback(
    g: &mut Graph,
    f: &[VarId],
    wrt: &[VarId],
    tangents: &[VarId],
    host: &mut dyn GradHost,
) -> Result<Vec<Option<VarId>>> {
    let (us, ogs) = cotangent_placeholders(g, f);
    let known: Vec<(VarId, VarId)> = f.iter().copied().zip(ogs).collect();
    let req = GradRequest {
        wrt: wrt.to_vec(),
        known_grads: known,
        disconnected_inputs: OnDisconnected::Ignore,
        return_disconnected: ReturnDisconnected::Disconnected,
        ..Default::default()
    };
    let jtu = grad_with(g, &req, host)?.grads;
    let known: Vec<(VarId, VarId)> = jtu
        .into_iter()
        .zip(tangents)
        .filter_map(|(t, &v)| t.map(|t| (t, v)))
        .collect();
    pull_to_placeholders(g, f, &us, known, host)
}
