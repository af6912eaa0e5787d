//! `jacobian` and `hessian` (PyTensor's `gradient.jacobian`/`hessian`):
//! the Jacobian of a non-scalar expression is a [`Jacobian`] node whose
//! inner graph gives one row, `pullback(y.ravel(), wrt, u)`, and which runs
//! it for each unit vector `u`; a scalar's is its gradient; a Hessian is
//! the Jacobian of a gradient. The node compiles its inner graph with the
//! core compiler, so this module sits above `compile`.

mod inner;
mod op;
#[cfg(test)]
mod tests;

pub use inner::{Inner, Parts};
pub use op::Jacobian;

use super::reverse::grad_with;
use super::{with_host, GradHost, GradRequest, GradResult, OnDisconnected};
use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, VarId};
use crate::tensor::Tensor;
use crate::types::TensorType;
use std::sync::Arc;

/// PyTensor's `jacobian`/`hessian` arguments.
#[derive(Clone, Debug)]
pub struct JacobianRequest {
    /// The expression (the cost, for a Hessian).
    pub y: VarId,
    /// The variables to differentiate with respect to.
    pub wrt: Vec<VarId>,
    /// Variables gradients do not flow through.
    pub consider_constant: Vec<VarId>,
    /// What a `wrt` entry that `y` does not depend on gives.
    pub disconnected_inputs: OnDisconnected,
}

impl JacobianRequest {
    /// `jacobian(y, wrt)` with PyTensor's defaults.
    pub fn new(y: VarId, wrt: &[VarId]) -> Self {
        JacobianRequest {
            y,
            wrt: wrt.to_vec(),
            consider_constant: Vec::new(),
            disconnected_inputs: OnDisconnected::Raise,
        }
    }
}

/// `∂y/∂wrt` for each `wrt` entry, shaped `y.shape + wrt.shape`; a float
/// `wrt` keeps its dtype, an integer one gives float64.
pub fn jacobian(
    g: &mut Graph,
    req: &JacobianRequest,
    host: Option<&mut dyn GradHost>,
) -> Result<GradResult> {
    with_host(host, |h| jacobian_with(g, req, h))
}

/// The matrix of second derivatives of the scalar `req.y` for each `wrt`
/// entry: the Jacobian of its gradient.
pub fn hessian(
    g: &mut Graph,
    req: &JacobianRequest,
    host: Option<&mut dyn GradHost>,
) -> Result<GradResult> {
    with_host(host, |h| {
        let mut out = GradResult::default();
        for &w in &req.wrt {
            let mut grad = grad_with(g, &grad_request(req, &[w]), h)?;
            out.warnings.append(&mut grad.warnings);
            let Some(Some(gw)) = grad.grads.first().copied() else {
                out.grads.push(None);
                continue;
            };
            let of_grad = JacobianRequest {
                y: gw,
                wrt: vec![w],
                consider_constant: Vec::new(),
                disconnected_inputs: req.disconnected_inputs,
            };
            let mut jac = jacobian_with(g, &of_grad, h)?;
            out.warnings.append(&mut jac.warnings);
            out.grads.append(&mut jac.grads);
        }
        Ok(out)
    })
}

/// `grad(y, wrt)` with the request's options and PyTensor's defaults.
fn grad_request(req: &JacobianRequest, wrt: &[VarId]) -> GradRequest {
    GradRequest {
        consider_constant: req.consider_constant.clone(),
        disconnected_inputs: req.disconnected_inputs,
        ..GradRequest::new(req.y, wrt)
    }
}

fn jacobian_with(
    g: &mut Graph,
    req: &JacobianRequest,
    host: &mut dyn GradHost,
) -> Result<GradResult> {
    let y_type = g
        .try_var(req.y)?
        .ty
        .expect_tensor("The expression of a Jacobian")?
        .clone();
    if y_type.ndim() == 0 {
        return grad_with(g, &grad_request(req, &req.wrt), host);
    }
    let minus_one = g.tensor_constant(Tensor::from_vec(vec![1], vec![-1i64])?);
    let y_flat = build::reshape(g, req.y, minus_one)?;
    let u_type = TensorType::new(grad_dtype(y_type.dtype), [None])?;
    let u = g.input(u_type, Some("u"));
    let pull = GradRequest {
        wrt: req.wrt.clone(),
        known_grads: vec![(y_flat, u)],
        consider_constant: req.consider_constant.clone(),
        disconnected_inputs: req.disconnected_inputs,
        ..GradRequest::default()
    };
    let pulled = grad_with(g, &pull, host)?;
    let mut rows = Vec::with_capacity(req.wrt.len());
    for (&w, row) in req.wrt.iter().zip(&pulled.grads) {
        let dtype = g.try_var(w)?.ty.expect_tensor("A Jacobian's wrt")?.dtype;
        let row = row.expect("return_disconnected='zero' gives every gradient");
        rows.push(build::cast(g, row, grad_dtype(dtype))?);
    }
    let (inner, outer) = Inner::extract(g, req.y, &req.wrt, u, &rows)?;
    let node = g.apply(Arc::new(Jacobian::new(inner)?), &outer)?;
    Ok(GradResult {
        grads: g.node(node).outputs.iter().map(|&o| Some(o)).collect(),
        warnings: pulled.warnings,
    })
}

/// The dtype of a derivative: a float or complex dtype keeps its own,
/// anything else gives float64.
fn grad_dtype(dtype: DType) -> DType {
    if dtype.is_float() || dtype.is_complex() {
        dtype
    } else {
        DType::Float64
    }
}
