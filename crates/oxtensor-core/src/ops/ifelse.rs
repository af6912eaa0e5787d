//! `IfElse`: a lazy choice between two branches. Inputs are the condition,
//! then the `n` outputs of the "then" branch, then the `n` of the "else"
//! branch; only the branch the condition picks is computed.
//! Mirrors `pytensor/ifelse.py`.

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::op_identity;
use crate::ops::grad_rules;
use crate::ops::Outs;
use crate::ops::Tangents;
use crate::ops::{Op, PerformCtx};
use crate::tensor::Scalar;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `IfElse(n_outs)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IfElse {
    /// Number of outputs (and of values per branch).
    pub n_outs: usize,
}

/// What a lazy op needs next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LazyStep {
    /// Compute these inputs, then ask again.
    Need(Vec<usize>),
    /// The outputs are set.
    Done,
}

/// Whether a condition value is true (any nonzero scalar).
fn truth(v: &Value) -> Result<bool> {
    let t = v.tensor()?;
    if t.len() != 1 {
        return Err(Error::Value(format!(
            "the condition of if{{}} must be a scalar, got shape {:?}",
            t.shape()
        )));
    }
    Ok(match t.get(0) {
        Scalar::Bool(b) => b,
        Scalar::Int(i) => i != 0,
        Scalar::UInt(u) => u != 0,
        Scalar::Float(f, _) => f != 0.0,
        Scalar::Complex(r, i, _) => r != 0.0 || i != 0.0,
    })
}

impl IfElse {
    /// Which branch inputs to read: the condition first, then one branch.
    pub fn step(
        &self,
        inputs: &[Option<&Value>],
        outputs: &mut [Option<Value>],
    ) -> Result<LazyStep> {
        let Some(cond) = inputs[0] else {
            return Ok(LazyStep::Need(vec![0]));
        };
        let first = if truth(cond)? { 1 } else { 1 + self.n_outs };
        let branch: Vec<usize> = (first..first + self.n_outs).collect();
        let missing: Vec<usize> = branch
            .iter()
            .copied()
            .filter(|&i| inputs[i].is_none())
            .collect();
        if !missing.is_empty() {
            return Ok(LazyStep::Need(missing));
        }
        for (out, &i) in outputs.iter_mut().zip(&branch) {
            *out = inputs[i].cloned();
        }
        Ok(LazyStep::Done)
    }
}

impl Op for IfElse {
    op_identity!("IfElse");

    fn describe(&self) -> String {
        "if{}".into()
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        if inputs.len() != 1 + 2 * self.n_outs {
            return Err(Error::Type(format!(
                "if{{}} with {} outputs takes {} inputs, got {}",
                self.n_outs,
                1 + 2 * self.n_outs,
                inputs.len()
            )));
        }
        let cond = inputs[0].expect_tensor("The condition of if{}")?;
        if cond.ndim() != 0 {
            return Err(Error::Type(format!(
                "The condition of if{{}} must be a scalar, got {cond}"
            )));
        }
        (0..self.n_outs)
            .map(|k| merge(inputs[1 + k], inputs[1 + self.n_outs + k]))
            .collect()
    }

    /// Used when every input is already computed (e.g. constant folding).
    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let all: Vec<Option<&Value>> = inputs.iter().copied().map(Some).collect();
        match self.step(&all, outputs)? {
            LazyStep::Done => Ok(()),
            LazyStep::Need(_) => Err(Error::Value("if{} was given too few inputs".into())),
        }
    }

    /// The condition is connected: it chooses which input each output is.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        grad_rules::ifelse_pullback(self, g, node, output_grads)
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        grad_rules::ifelse_pushforward(self, g, node, tangents).map(Some)
    }
}

/// The output type of a branch pair: same dtype and rank; static lengths
/// where both branches agree.
fn merge(then: &Type, other: &Type) -> Result<Type> {
    let (a, b) = (
        then.expect_tensor("An if{} branch")?,
        other.expect_tensor("An if{} branch")?,
    );
    if a.dtype != b.dtype || a.ndim() != b.ndim() {
        return Err(Error::Type(format!(
            "The two branches of if{{}} have different types: {a} and {b}"
        )));
    }
    let shape = a
        .shape
        .iter()
        .zip(&b.shape)
        .map(|(x, y)| if x == y { *x } else { None });
    Ok(TensorType::new(a.dtype, shape)?.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Tensor;

    #[test]
    fn asks_for_condition_then_one_branch() {
        let op = IfElse { n_outs: 1 };
        let (c, a, b) = (
            Value::from(Tensor::scalar(false)),
            Value::from(Tensor::scalar(1.0)),
            Value::from(Tensor::scalar(2.0)),
        );
        let mut out = vec![None];
        assert_eq!(
            op.step(&[None, None, None], &mut out).unwrap(),
            LazyStep::Need(vec![0])
        );
        assert_eq!(
            op.step(&[Some(&c), None, None], &mut out).unwrap(),
            LazyStep::Need(vec![2])
        );
        assert_eq!(
            op.step(&[Some(&c), Some(&a), Some(&b)], &mut out).unwrap(),
            LazyStep::Done
        );
        assert_eq!(
            out[0].as_ref().unwrap().tensor().unwrap().get(0),
            Scalar::Float(2.0, crate::dtype::DType::Float64)
        );
        let v = TensorType::with_ndim(crate::dtype::DType::Float64, 1);
        let m = TensorType::with_ndim(crate::dtype::DType::Float64, 2);
        assert!(op
            .output_types(&[
                &TensorType::scalar(crate::dtype::DType::Bool).into(),
                &v.clone().into(),
                &m.into()
            ])
            .is_err());
    }
}
