//! Derivatives of the scalar ops, and `Elemwise`'s pullback and
//! pushforward built from them. Each scalar op gives the partial derivative
//! of its output with respect to each input as a graph; the pullback
//! multiplies by the output gradient (and sums over broadcast axes), the
//! pushforward multiplies by the input tangents and adds. One table serves
//! both directions.

use crate::build;
use crate::dtype::{floatx, DType};
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::scalar::{ScalarKind, ScalarOp};
use crate::types::{TensorType, Type};

/// `∂ output / ∂ input` for one input.
#[derive(Clone, Debug)]
pub enum Partial {
    /// The identity: the gradient passes through.
    One,
    /// Negation.
    MinusOne,
    /// Multiplication by a graph.
    Times(VarId),
    /// Zero almost everywhere (`floor`, `sign`, ...).
    Zero,
    /// The output's elements do not depend on this input (`second`'s first input).
    Disconnected,
    /// No derivative exists (`polygamma`'s integer order): a `NullType`
    /// gradient saying why.
    Undefined(String),
}

/// The float dtype a gradient of a variable of `dtype` has.
pub fn grad_dtype(dtype: DType) -> DType {
    if dtype.is_continuous() {
        dtype
    } else {
        floatx()
    }
}

/// The tensor type of a variable taking part in a gradient.
pub fn tensor(g: &Graph, v: VarId) -> Result<TensorType> {
    Ok(g.var(v).ty.expect_tensor("A gradient")?.clone())
}

/// The partial derivatives of `op` applied to `x` with output `z`.
pub fn partials(g: &mut Graph, op: &ScalarOp, x: &[VarId], z: VarId) -> Result<Vec<Partial>> {
    use Partial::*;
    let kind = match op {
        ScalarOp::Cast(_) => return Ok(vec![One]),
        ScalarOp::Kind(k) => *k,
        // `Elemwise` differentiates a composite through its inner graph.
        ScalarOp::Composite(c) => {
            return Err(crate::error::Error::NotImplemented(format!(
                "the partials of {c} are its inner graph's"
            )))
        }
        // As in PyTensor, where a ScalarLoop defines no `grad`.
        ScalarOp::Loop(l) => {
            return Err(crate::error::Error::NotImplemented(format!(
                "{l} has no gradient"
            )))
        }
    };
    let dt = grad_dtype(tensor(g, z)?.dtype);
    let c = |g: &mut Graph, v: f64| build::scalar_constant(g, dt, v);
    let t = |v: VarId| Times(v);
    use ScalarKind as K;
    Ok(match kind {
        K::Add => vec![One; x.len()],
        K::Sub => vec![One, MinusOne],
        K::Mul => (0..x.len())
            .map(|i| {
                let others: Vec<VarId> = (0..x.len()).filter(|&j| j != i).map(|j| x[j]).collect();
                match others.as_slice() {
                    [one] => Ok(t(*one)),
                    _ => build::elemwise(g, K::Mul, &others).map(t),
                }
            })
            .collect::<Result<_>>()?,
        K::TrueDiv => {
            let one = c(g, 1.0);
            let dx = build::true_div(g, one, x[1])?;
            let zy = build::true_div(g, z, x[1])?;
            vec![t(dx), t(build::neg(g, zy)?)]
        }
        K::IntDiv => vec![Zero, Zero],
        K::Mod => {
            let q = build::int_div(g, x[0], x[1])?;
            vec![One, t(build::neg(g, q)?)]
        }
        K::Pow => {
            let one = c(g, 1.0);
            let y1 = build::sub(g, x[1], one)?;
            let p = build::pow(g, x[0], y1)?;
            let dx = build::mul(g, x[1], p)?;
            let lx = build::log(g, x[0])?;
            vec![t(dx), t(build::mul(g, z, lx)?)]
        }
        // At a tie the first input takes the gradient (PyTensor's rule).
        K::Maximum | K::Minimum => {
            let a = build::eq(g, z, x[0])?;
            let b = build::neq(g, z, x[0])?;
            vec![t(a), t(b)]
        }
        K::Neg => vec![MinusOne],
        K::Abs if tensor(g, x[0])?.dtype.is_complex() => {
            return Err(Error::NotImplemented(
                "the gradient of abs of a complex input is not implemented".into(),
            ))
        }
        K::Abs => vec![t(build::sign(g, x[0])?)],
        K::Sign | K::Floor | K::Ceil => vec![Zero],
        K::Sqr => {
            let two = c(g, 2.0);
            vec![t(build::mul(g, two, x[0])?)]
        }
        K::Sqrt => {
            let half = c(g, 0.5);
            vec![t(build::true_div(g, half, z)?)]
        }
        K::Exp => vec![t(z)],
        K::Log => {
            let one = c(g, 1.0);
            vec![t(build::true_div(g, one, x[0])?)]
        }
        K::Log1p => {
            let one = c(g, 1.0);
            let d = build::add(g, one, x[0])?;
            vec![t(build::true_div(g, one, d)?)]
        }
        K::Expm1 => vec![t(build::exp(g, x[0])?)],
        K::Sin => vec![t(build::cos(g, x[0])?)],
        K::Cos => {
            let s = build::sin(g, x[0])?;
            vec![t(build::neg(g, s)?)]
        }
        K::Tan => {
            let one = c(g, 1.0);
            let z2 = build::sqr(g, z)?;
            vec![t(build::add(g, one, z2)?)]
        }
        K::Tanh => {
            let one = c(g, 1.0);
            let z2 = build::sqr(g, z)?;
            vec![t(build::sub(g, one, z2)?)]
        }
        K::Sigmoid => {
            let one = c(g, 1.0);
            let rest = build::sub(g, one, z)?;
            vec![t(build::mul(g, z, rest)?)]
        }
        K::Softplus => vec![t(build::sigmoid(g, x[0])?)],
        K::Reciprocal => {
            let z2 = build::sqr(g, z)?;
            vec![t(build::neg(g, z2)?)]
        }
        K::Identity => vec![One],
        K::Second => vec![Disconnected, One],
        K::Switch => {
            let (taken, other) = branch_masks(g, x[0])?;
            vec![Zero, t(taken), t(other)]
        }
        K::Lt
        | K::Gt
        | K::Le
        | K::Ge
        | K::Eq
        | K::Neq
        | K::IsNan
        | K::IsInf
        | K::And
        | K::Or
        | K::Xor
        | K::Invert => vec![Zero; x.len()],
        other => super::scalar_grad_math::partials(g, other, x, z, dt)?,
    })
}

/// Boolean masks of where `switch` takes its second and its third input.
fn branch_masks(g: &mut Graph, cond: VarId) -> Result<(VarId, VarId)> {
    let cond_ty = tensor(g, cond)?;
    if cond_ty.dtype == DType::Bool {
        return Ok((cond, build::invert(g, cond)?));
    }
    let zero = build::scalar_constant(g, cond_ty.dtype, 0.0);
    Ok((build::neq(g, cond, zero)?, build::eq(g, cond, zero)?))
}

/// Casts `v` to `dtype` when the dtypes differ and `dtype` is continuous
/// (so float32 graphs keep float32 gradients); integer targets keep the
/// float gradient.
pub fn match_dtype(g: &mut Graph, v: VarId, dtype: DType) -> Result<VarId> {
    if dtype.is_continuous() && tensor(g, v)?.dtype != dtype {
        build::cast(g, v, dtype)
    } else {
        Ok(v)
    }
}

/// A disconnected-gradient marker.
pub fn disconnected(g: &mut Graph) -> VarId {
    g.input(Type::Disconnected, None)
}

/// `Elemwise`'s pullback: `gz * ∂z/∂x_i`, summed over the axes input `i`
/// was broadcast along, in the input's dtype.
pub fn elemwise_pullback(
    g: &mut Graph,
    op: &ScalarOp,
    node: NodeId,
    output_grads: &[VarId],
) -> Result<Vec<VarId>> {
    let (inputs, z) = {
        let n = g.node(node);
        (n.inputs.clone(), n.outputs[0])
    };
    let gz = output_grads[0];
    if matches!(g.var(gz).ty, Type::Disconnected) {
        return Ok(inputs.iter().map(|_| disconnected(g)).collect());
    }
    let parts = partials(g, op, &inputs, z)?;
    let mut terms = Vec::with_capacity(inputs.len());
    for (&x, part) in inputs.iter().zip(parts) {
        let x_ty = tensor(g, x)?;
        let term = match part {
            Partial::Disconnected => {
                terms.push(disconnected(g));
                continue;
            }
            Partial::Undefined(why) => {
                terms.push(g.input(Type::Null(why.into()), None));
                continue;
            }
            Partial::Zero => build::zeros_like(g, x, grad_dtype(x_ty.dtype))?,
            Partial::One => gz,
            Partial::MinusOne => build::neg(g, gz)?,
            Partial::Times(d) => build::mul(g, gz, d)?,
        };
        let term = build::sum_to(g, term, &x_ty)?;
        terms.push(match_dtype(g, term, x_ty.dtype)?);
    }
    Ok(terms)
}

/// `Elemwise`'s pushforward: `Σ_i ∂z/∂x_i · v_i`, broadcast to the output.
pub fn elemwise_pushforward(
    g: &mut Graph,
    op: &ScalarOp,
    node: NodeId,
    tangents: &[Option<VarId>],
) -> Result<Vec<Option<VarId>>> {
    let (inputs, z) = {
        let n = g.node(node);
        (n.inputs.clone(), n.outputs[0])
    };
    let z_ty = tensor(g, z)?;
    if !z_ty.dtype.is_continuous() {
        return Ok(vec![None]);
    }
    let parts = partials(g, op, &inputs, z)?;
    let mut total: Option<VarId> = None;
    for (v, part) in tangents.iter().zip(parts) {
        let Some(v) = *v else { continue };
        let term = match part {
            Partial::Zero | Partial::Disconnected => continue,
            Partial::Undefined(why) => return Err(Error::NullGradient(why)),
            Partial::One => v,
            Partial::MinusOne => build::neg(g, v)?,
            Partial::Times(d) => build::mul(g, v, d)?,
        };
        total = Some(match total {
            None => term,
            Some(t) => build::add(g, t, term)?,
        });
    }
    let Some(total) = total else {
        return Ok(vec![None]);
    };
    // A tangent that only came from broadcast inputs has their shape.
    let total = if tensor(g, total)?.broadcastable() != z_ty.broadcastable() {
        build::fill(g, z, total)?
    } else {
        total
    };
    Ok(vec![Some(match_dtype(g, total, z_ty.dtype)?)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::ScalarKind as K;

    /// Every kind of the scalar table has partials here or in
    /// `scalar_grad_math.rs` (zero for the piecewise-constant ones): a new
    /// kind fails this test until its gradient is written.
    #[test]
    fn every_kind_has_a_gradient() {
        for &k in K::ALL {
            let mut g = Graph::new();
            let n = k.nin().unwrap_or(3);
            // `polygamma`'s order is an integer.
            let dtype = |i: usize| match (k, i) {
                (K::Polygamma, 0) => DType::Int64,
                _ => DType::Float64,
            };
            let x: Vec<VarId> = (0..n)
                .map(|i| g.input(TensorType::scalar(dtype(i)), None))
                .collect();
            let z = g.input(TensorType::scalar(DType::Float64), None);
            let got = partials(&mut g, &ScalarOp::Kind(k), &x, z);
            let count = got.map(|p| p.len()).map_err(|e| e.to_string());
            assert_eq!(count, Ok(n), "{k:?}: add its partials to scalar_grad*.rs");
        }
    }
}
