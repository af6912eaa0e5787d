//! Reverse mode: PyTensor's `grad`. The nodes between the cost and the
//! `wrt` variables are found once (through connected edges only), then
//! visited from the cost down, each asked for its gradient terms given the
//! summed gradients of its outputs. The rules of the seeds' Op contract are
//! enforced here, around every op's pullback, so each op need not.

use super::{connection_pattern, GradHost, GradRequest, GradResult, ReturnDisconnected};
use crate::build;
use crate::error::{Error, Result};
use crate::graph::traversal::toposort;
use crate::graph::{Graph, NodeId, VarId};
use crate::ops::scalar_grad::{disconnected, grad_dtype, match_dtype};
use crate::ops::scalar_tensor::ScalarFromTensor;
use crate::types::Type;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Computes the gradients `req` asks for, adding their graphs to `g`.
/// `host` differentiates ops defined in a host language (none in a pure
/// Rust program).
pub fn grad(
    g: &mut Graph,
    req: &GradRequest,
    host: Option<&mut dyn GradHost>,
) -> Result<GradResult> {
    super::with_host(host, |h| grad_with(g, req, h))
}

pub(super) fn grad_with(
    g: &mut Graph,
    req: &GradRequest,
    host: &mut dyn GradHost,
) -> Result<GradResult> {
    check_cost(g, req)?;
    let cost_name = req.cost.and_then(|c| g.var(c).name.clone());
    let mut d = Driver::new(host, cost_name, req.add_names);
    let seeds = seeds(g, req)?;
    let sources: Vec<VarId> = seeds.iter().map(|s| s.0).collect();
    let order = toposort(g, &sources, &req.consider_constant)?;
    // `consider_constant` stops the walk at those variables (their owners
    // are not in `order`), yet they still receive gradients themselves, as
    // in PyTensor: `grad(x + y, x, consider_constant=[x])` is 1.
    let active = d.active(g, &order, &sources)?;
    let depends = d.depends(g, &order, &active, &req.wrt)?;
    for (v, s) in seeds {
        if req.known_replaces && req.known_grads.iter().any(|(k, _)| *k == v) {
            // A known gradient is the variable's whole gradient, as in
            // PyTensor's `grad`: terms the cost sends through it are not
            // added.
            d.totals.insert(v, s);
        } else {
            d.terms.entry(v).or_default().push(s);
        }
    }
    for &node in order.iter().rev() {
        let outs = g.node(node).outputs.clone();
        if !outs
            .iter()
            .any(|o| active.contains(o) && depends.contains(o))
        {
            continue;
        }
        let output_grads = outs
            .iter()
            .map(|&o| {
                if active.contains(&o) && depends.contains(&o) {
                    d.total(g, o)
                } else {
                    Ok(disconnected(g))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let terms = d.node_terms(g, node, &output_grads)?;
        let inputs = g.node(node).inputs.clone();
        for (x, t) in inputs.into_iter().zip(terms) {
            if active.contains(&x) && depends.contains(&x) {
                d.terms.entry(x).or_default().push(t);
            }
        }
    }
    let mut result = GradResult::default();
    for &w in &req.wrt {
        let total = d.total(g, w)?;
        result
            .grads
            .push(finish(g, req, w, total, &mut result.warnings)?);
    }
    Ok(result)
}

/// One node's gradient terms for the given output gradients, with the
/// driver's rules applied (the first half of a double pullback).
pub(super) fn local_pullback(
    g: &mut Graph,
    node: NodeId,
    output_grads: &[VarId],
    host: &mut dyn GradHost,
) -> Result<Vec<VarId>> {
    Driver::new(host, None, false).node_terms(g, node, output_grads)
}

/// PyTensor's argument checks on the cost.
fn check_cost(g: &Graph, req: &GradRequest) -> Result<()> {
    let Some(cost) = req.cost else {
        if req.known_grads.is_empty() {
            return Err(Error::Value(
                "cost and known_grads can't both be None.".into(),
            ));
        }
        return Ok(());
    };
    match &g.try_var(cost)?.ty {
        Type::Null(why) => Err(Error::Value(format!(
            "Can't differentiate a NaN cost. Cost is NaN because {why}"
        ))),
        Type::Tensor(t) if t.ndim() == 0 => Ok(()),
        Type::Scalar(_) => Ok(()),
        Type::Tensor(_) => Err(Error::Type("Cost must be a scalar.".into())),
        other => Err(Error::Type(format!(
            "Cost must be a scalar tensor, got a variable of type {other}"
        ))),
    }
}

/// The starting gradients: the known ones, and ones for the cost.
fn seeds(g: &mut Graph, req: &GradRequest) -> Result<Vec<(VarId, VarId)>> {
    let mut out = Vec::new();
    for &(v, gv) in &req.known_grads {
        g.try_var(v)?;
        out.push((v, known_seed(g, v, gv)?));
    }
    if let Some(cost) = req.cost {
        if !req.known_grads.iter().any(|(v, _)| *v == cost) {
            if let Type::Scalar(dtype) = g.var(cost).ty {
                // A scalar graph's cost (PyTensor differentiates those
                // too): its seed is the scalar 1, what scalar ops' rules take.
                let one = build::scalar_constant(g, grad_dtype(dtype), 1.0);
                let seed = g.apply_out(Arc::new(ScalarFromTensor), &[one])?;
                out.push((cost, seed));
                return Ok(out);
            }
            let dtype = g.var(cost).ty.expect_tensor("The cost")?.dtype;
            // `fill(cost, 1)` as PyTensor seeds it: the gradient graph keeps
            // the cost as an ancestor, so `grad(x, x)` still reads `x` (its
            // inputs are used) and the rewrites drop the fill.
            let one = build::scalar_constant(g, grad_dtype(dtype), 1.0);
            out.push((cost, build::fill(g, cost, one)?));
        }
    }
    Ok(out)
}

/// One known gradient, checked and brought to its variable's dtype. A 0-d
/// tensor gradient of a tensor with dimensions is filled to its shape (as
/// PyTensor's `grad_sources_inputs([(out, one)])` callers rely on); other
/// rank mismatches are an error.
fn known_seed(g: &mut Graph, v: VarId, gv: VarId) -> Result<VarId> {
    let given = g.try_var(gv)?.ty.clone();
    let continuous = match &given {
        Type::Null(_) | Type::Disconnected => return Ok(gv),
        Type::Tensor(t) => t.dtype.is_continuous(),
        Type::Scalar(d) => d.is_continuous(),
        _ => false,
    };
    if !continuous {
        return Err(Error::Type(format!(
            "Gradients must always be NullType, DisconnectedType, or continuous, but grad was given a known_grad of type {given}"
        )));
    }
    let (Some(want), Some(have)) = (g.var(v).ty.as_tensor().cloned(), given.as_tensor()) else {
        return Ok(gv);
    };
    let gv = match_dtype(g, gv, want.dtype)?;
    if have.ndim() == want.ndim() {
        return Ok(gv);
    }
    if have.ndim() == 0 {
        return build::fill(g, v, gv);
    }
    Err(Error::Value(format!(
        "known_grads gives {} a gradient with {} dimensions, but the variable has {}",
        g.describe_var(v),
        have.ndim(),
        want.ndim()
    )))
}

/// What a gradient variable stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Disconnected,
    Null,
    Value,
}

fn kind(g: &Graph, v: VarId) -> Kind {
    match g.var(v).ty {
        Type::Disconnected => Kind::Disconnected,
        Type::Null(_) => Kind::Null,
        _ => Kind::Value,
    }
}

fn is_discrete(g: &Graph, v: VarId) -> bool {
    let ty = &g.var(v).ty;
    let dtype = ty.as_tensor().map(|t| t.dtype).or_else(|| ty.as_scalar());
    dtype.is_some_and(|d| d.is_discrete())
}

/// A zero scalar constant of the float dtype a gradient of `d` takes.
fn scalar_float_zero(g: &mut Graph, d: crate::dtype::DType) -> VarId {
    let dtype = grad_dtype(d);
    let zero = crate::kernels::elemwise::cast::scalar_as(0.0, dtype);
    g.constant(
        Type::Scalar(dtype),
        crate::graph::Constant::tensor(zero),
        None,
    )
}

struct Driver<'h> {
    host: &'h mut dyn GradHost,
    patterns: HashMap<NodeId, Vec<Vec<bool>>>,
    terms: HashMap<VarId, Vec<VarId>>,
    totals: HashMap<VarId, VarId>,
    cost_name: Option<String>,
    add_names: bool,
}

impl<'h> Driver<'h> {
    fn new(host: &'h mut dyn GradHost, cost_name: Option<String>, add_names: bool) -> Self {
        Driver {
            host,
            patterns: HashMap::new(),
            terms: HashMap::new(),
            totals: HashMap::new(),
            cost_name,
            add_names,
        }
    }

    /// `connection_pattern[input][output]`, all true when the op has none;
    /// the flag says whether the op declared one.
    fn pattern(&mut self, g: &Graph, node: NodeId) -> Result<(Vec<Vec<bool>>, bool)> {
        if let Some(p) = self.patterns.get(&node) {
            return Ok((p.clone(), true));
        }
        let n = g.node(node);
        let (n_in, n_out) = (n.inputs.len(), n.outputs.len());
        match connection_pattern(g, node, self.host)? {
            Some(p) => {
                if p.len() != n_in || p.iter().any(|row| row.len() != n_out) {
                    return Err(Error::Value(format!(
                        "connection_pattern of {} must be a list of {n_in} lists of {n_out} booleans",
                        n.op
                    )));
                }
                self.patterns.insert(node, p.clone());
                Ok((p, true))
            }
            None => Ok((vec![vec![true; n_out]; n_in], false)),
        }
    }

    /// Variables through which the sources' gradients flow (connected edges
    /// of the nodes in `order`).
    fn active(&mut self, g: &Graph, order: &[NodeId], sources: &[VarId]) -> Result<HashSet<VarId>> {
        let mut active: HashSet<VarId> = sources.iter().copied().collect();
        for &node in order.iter().rev() {
            let n = g.node(node);
            let live: Vec<bool> = n.outputs.iter().map(|o| active.contains(o)).collect();
            if !live.contains(&true) {
                continue;
            }
            let (p, _) = self.pattern(g, node)?;
            let inputs = g.node(node).inputs.clone();
            for (i, x) in inputs.into_iter().enumerate() {
                let linked = live.iter().zip(&p[i]).any(|(l, c)| *l && *c);
                if linked {
                    active.insert(x);
                }
            }
        }
        Ok(active)
    }

    /// Active variables with some `wrt` entry as an ancestor (through
    /// connected edges).
    fn depends(
        &mut self,
        g: &Graph,
        order: &[NodeId],
        active: &HashSet<VarId>,
        wrt: &[VarId],
    ) -> Result<HashSet<VarId>> {
        let mut dep: HashSet<VarId> = wrt.iter().copied().collect();
        for &node in order {
            let (p, _) = self.pattern(g, node)?;
            let n = g.node(node);
            let feeding: Vec<usize> = (0..n.inputs.len())
                .filter(|&i| dep.contains(&n.inputs[i]) && active.contains(&n.inputs[i]))
                .collect();
            for (o, &out) in n.outputs.iter().enumerate() {
                if active.contains(&out) && feeding.iter().any(|&i| p[i][o]) {
                    dep.insert(out);
                }
            }
        }
        Ok(dep)
    }

    /// The sum of a variable's gradient terms: disconnected terms are
    /// skipped, an undefined one makes the sum undefined.
    fn total(&mut self, g: &mut Graph, v: VarId) -> Result<VarId> {
        if let Some(&t) = self.totals.get(&v) {
            return Ok(t);
        }
        let terms = self.terms.get(&v).cloned().unwrap_or_default();
        let mut null = None;
        let mut sum: Option<VarId> = None;
        for t in terms {
            match kind(g, t) {
                Kind::Disconnected => {}
                Kind::Null => {
                    null.get_or_insert(t);
                }
                Kind::Value => sum = Some(add_term(g, v, sum, t)?),
            }
        }
        let total = match (null, sum) {
            (Some(n), _) => n,
            (None, Some(s)) => s,
            (None, None) => disconnected(g),
        };
        self.name(g, v, total);
        self.totals.insert(v, total);
        Ok(total)
    }

    /// `(dcost/dx)` on a fresh gradient node of a named variable.
    fn name(&self, g: &mut Graph, v: VarId, total: VarId) {
        let (Some(cost), Some(var)) = (&self.cost_name, &g.var(v).name) else {
            return;
        };
        let fresh = g.var(total).name.is_none() && g.var(total).owner().is_some();
        if self.add_names && fresh && kind(g, total) == Kind::Value {
            let name = format!("(d{cost}/d{var})");
            g.set_name(total, Some(&name));
        }
    }

    /// One node's gradient terms, one per input, with the seeds' rules
    /// for disconnected, undefined and integer-valued gradients applied.
    fn node_terms(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        output_grads: &[VarId],
    ) -> Result<Vec<VarId>> {
        let (p, declared) = self.pattern(g, node)?;
        let outs = g.node(node).outputs.clone();
        let inputs = g.node(node).inputs.clone();
        let og_kind: Vec<Kind> = output_grads.iter().map(|&v| kind(g, v)).collect();
        let reaches =
            |i: usize, want: &dyn Fn(usize) -> bool| (0..outs.len()).any(|o| p[i][o] && want(o));
        let real = |o: usize| og_kind[o] == Kind::Value && !is_discrete(g, outs[o]);
        let int = |o: usize| og_kind[o] == Kind::Value && is_discrete(g, outs[o]);
        let null = |o: usize| og_kind[o] == Kind::Null;
        let via_real: Vec<bool> = (0..inputs.len()).map(|i| reaches(i, &real)).collect();
        let via_int: Vec<bool> = (0..inputs.len()).map(|i| reaches(i, &int)).collect();
        let first_null: Vec<Option<VarId>> = (0..inputs.len())
            .map(|i| {
                (0..outs.len())
                    .find(|&o| p[i][o] && null(o))
                    .map(|o| output_grads[o])
            })
            .collect();
        // Ops with only integer outputs are still asked: an input may be
        // undefined rather than zero (the seeds' argmax axis).
        let mut terms = if via_real.contains(&true) || via_int.contains(&true) {
            let ogs = self.prepare_output_grads(g, &outs, output_grads)?;
            let terms = self.call_pullback(g, node, &ogs)?;
            check_terms(g, node, &terms, &p, declared)?;
            terms
        } else {
            inputs.iter().map(|_| disconnected(g)).collect()
        };
        for (i, &x) in inputs.iter().enumerate() {
            if let Some(n) = first_null[i] {
                if kind(g, terms[i]) != Kind::Null {
                    terms[i] = n;
                }
            } else if !via_real[i] && via_int[i] {
                if kind(g, terms[i]) != Kind::Null {
                    terms[i] = float_zeros(g, x)?;
                }
            } else if !via_real[i] {
                terms[i] = disconnected(g);
            }
        }
        Ok(terms)
    }

    /// Output gradients as the op receives them: integer outputs get zeros
    /// (their elements do not change under small input changes), float
    /// outputs a gradient of their own dtype.
    fn prepare_output_grads(
        &self,
        g: &mut Graph,
        outs: &[VarId],
        ogs: &[VarId],
    ) -> Result<Vec<VarId>> {
        outs.iter()
            .zip(ogs)
            .map(|(&o, &og)| {
                if kind(g, og) != Kind::Value {
                    return Ok(og);
                }
                if let Some(d) = g.var(o).ty.as_scalar().filter(|d| d.is_discrete()) {
                    return Ok(scalar_float_zero(g, d));
                }
                match g.var(o).ty.as_tensor().map(|t| t.dtype) {
                    Some(d) if d.is_discrete() => build::zeros_like(g, o, grad_dtype(d)),
                    Some(d) => match_dtype(g, og, d),
                    None => Ok(og),
                }
            })
            .collect()
    }

    fn call_pullback(&mut self, g: &mut Graph, node: NodeId, ogs: &[VarId]) -> Result<Vec<VarId>> {
        let op = g.node(node).op.clone();
        let result = if op.is_host() {
            self.host.pullback(g, node, ogs)
        } else {
            op.pullback(g, node, ogs)
        };
        result.map_err(|e| e.at_node(g.describe_node(node)))
    }
}

/// `sum + t`, refusing terms of types the core cannot add.
fn add_term(g: &mut Graph, v: VarId, sum: Option<VarId>, t: VarId) -> Result<VarId> {
    let Some(s) = sum else { return Ok(t) };
    if g.var(t).ty.as_scalar().is_some() && g.var(s).ty.as_scalar().is_some() {
        // Terms of a scalar graph's variable add as scalars.
        let add = crate::scalar::ScalarOp::Kind(crate::scalar::ScalarKind::Add);
        return g.apply_out(Arc::new(add), &[s, t]);
    }
    if g.var(t).ty.as_tensor().is_none() || g.var(s).ty.as_tensor().is_none() {
        return Err(Error::OutOfScope(format!(
            "summing several gradient terms of {} (type {}) needs an addition for that type",
            g.describe_var(v),
            g.var(v).ty
        )));
    }
    build::add(g, s, t)
}

/// Zeros shaped like `x` in a float dtype (a zero scalar for a scalar,
/// disconnected for other non-tensors).
fn float_zeros(g: &mut Graph, x: VarId) -> Result<VarId> {
    if let Some(d) = g.var(x).ty.as_scalar() {
        return Ok(scalar_float_zero(g, d));
    }
    match g.var(x).ty.as_tensor().map(|t| t.dtype) {
        Some(d) => build::zeros_like(g, x, grad_dtype(d)),
        None => Ok(disconnected(g)),
    }
}

/// The contract's checks on what an op's gradient returned.
fn check_terms(
    g: &Graph,
    node: NodeId,
    terms: &[VarId],
    p: &[Vec<bool>],
    declared: bool,
) -> Result<()> {
    let n = g.node(node);
    let op = &n.op;
    if terms.len() != n.inputs.len() {
        return Err(Error::Value(format!(
            "{op}.grad returned the wrong number of gradient terms: {} for {} inputs (node {})",
            terms.len(),
            n.inputs.len(),
            g.describe_node(node)
        )));
    }
    for (i, (&t, &x)) in terms.iter().zip(&n.inputs).enumerate() {
        let Type::Tensor(tt) = &g.var(t).ty else {
            continue;
        };
        if tt.dtype.is_discrete() {
            return Err(Error::Type(format!(
                "{op}.grad illegally returned an integer-valued variable. (Input index {i}, dtype {})",
                tt.dtype
            )));
        }
        if let Type::Tensor(xt) = &g.var(x).ty {
            if xt.ndim() != tt.ndim() {
                return Err(Error::Value(format!(
                    "{op}.grad returned a term with {} dimensions for input {i}, but {} are required (the input is a {xt})",
                    tt.ndim(),
                    xt.ndim()
                )));
            }
        }
        if declared && !p[i].contains(&true) {
            return Err(Error::Type(format!(
                "{op}.grad returned {} of type {tt} for input {i}, but its connection_pattern says that input is disconnected from every output; it should return a DisconnectedType variable",
                g.describe_var(t)
            )));
        }
    }
    Ok(())
}

/// The per-`wrt` rules: undefined gradients raise (or are returned),
/// disconnected ones follow `disconnected_inputs` and `return_disconnected`,
/// the rest take the variable's dtype.
fn finish(
    g: &mut Graph,
    req: &GradRequest,
    w: VarId,
    total: VarId,
    warnings: &mut Vec<String>,
) -> Result<Option<VarId>> {
    match g.var(total).ty.clone() {
        Type::Null(_) if req.return_null => Ok(Some(total)),
        Type::Null(why) => Err(Error::NullGradient(format!(
            "`grad` encountered a NaN. {why}"
        ))),
        Type::Disconnected => {
            let msg = format!(
                "grad method was asked to compute the gradient with respect to a variable that is not part of the computational graph of the cost, or is used only by a non-differentiable operator: {}",
                g.describe_var(w)
            );
            req.disconnected_inputs.report(msg, warnings)?;
            match req.return_disconnected {
                ReturnDisconnected::Zero => float_zeros(g, w).map(Some),
                ReturnDisconnected::None => Ok(None),
                ReturnDisconnected::Disconnected => Ok(Some(total)),
            }
        }
        Type::Tensor(_) => match g.var(w).ty.as_tensor().map(|t| t.dtype) {
            Some(d) => match_dtype(g, total, d).map(Some),
            None => Ok(Some(total)),
        },
        Type::Scalar(_) | Type::Host(_) => Ok(Some(total)),
    }
}
