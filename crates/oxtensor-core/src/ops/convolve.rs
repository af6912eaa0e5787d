//! `Convolve1d` (`pytensor/tensor/signal/conv.py`): the 1-d convolution of
//! two vectors, full (NumPy's `convolve`) or valid (SciPy's, the longer
//! input under the shorter) as its third input, a boolean scalar, says.
//! Stacks of vectors go through `Blockwise` (signature `(n),(k),()->(o)`);
//! "same" is valid mode over a zero-padded first input (Python's
//! `convolve1d`). The gradients are convolutions with the reversed other
//! input, valid or full so each comes out at its input's length.

use crate::build;
use crate::dtype::{upcast, DType};
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::signal;
use crate::op_identity;
use crate::ops::shape::ShapeI;
use crate::ops::subtensor::Subtensor;
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::scalar::ScalarKind;
use crate::tensor::index::IdxEntry;
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `Convolve1d`: inputs `in1`, `in2` (vectors) and `full_mode` (a
/// boolean or integer scalar).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Convolve1d;

impl Op for Convolve1d {
    op_identity!("Convolve1d");

    fn gufunc_signature(&self) -> Option<&'static str> {
        Some("(n),(k),()->(o)")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [a, b, mode] = super::arity::exactly("Convolve1d", inputs)?;
        let (a, b) = (vector(a, "in1")?, vector(b, "in2")?);
        super::known::expect_int_scalar(mode, "Convolve1d's full_mode")?;
        let dtype = upcast(&[a.dtype, b.dtype])?;
        Ok(vec![TensorType::new(dtype, [None])?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let full = super::known::int_scalar(inputs[2].tensor()?, "Convolve1d's full_mode")? != 0;
        let out = signal::convolve1d(
            inputs[0].tensor()?,
            inputs[1].tensor()?,
            full,
            ctx.output_dtype(0)?,
        )?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// `n + k - 1` in full mode, `max(n, k) - min(n, k) + 1` in valid.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let (n, k) = (input_shapes[0][0], input_shapes[1][0]);
        let mode = g.node(node).inputs[2];
        let one = build::scalar_constant(g, DType::Int64, 1.0);
        let sum = build::elemwise(g, ScalarKind::Add, &[n, k])?;
        let full = build::elemwise(g, ScalarKind::Sub, &[sum, one])?;
        let hi = build::elemwise(g, ScalarKind::Maximum, &[n, k])?;
        let lo = build::elemwise(g, ScalarKind::Minimum, &[n, k])?;
        let diff = build::elemwise(g, ScalarKind::Sub, &[hi, lo])?;
        let valid = build::elemwise(g, ScalarKind::Add, &[diff, one])?;
        Ok(Some(vec![vec![build::switch(g, mode, full, valid)?]]))
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![true], vec![true], vec![false]]))
    }

    /// Each input's term convolves the output gradient with the other input
    /// reversed: valid mode when the output is at least as long as the term
    /// must be (a full convolution, or a valid one where this input is the
    /// longer), full mode otherwise.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let (a, b, mode) = (inputs[0], inputs[1], inputs[2]);
        let gz = output_grads[0];
        let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[a])?;
        let k = g.apply_out(Arc::new(ShapeI { i: 0 }), &[b])?;
        let full = build::cast(g, mode, DType::Bool)?;
        let not_full = build::elemwise(g, ScalarKind::Invert, &[full])?;
        let k_longer = build::elemwise(g, ScalarKind::Gt, &[k, n])?;
        let n_longer = build::elemwise(g, ScalarKind::Gt, &[n, k])?;
        let full_a = build::elemwise(g, ScalarKind::And, &[not_full, n_longer])?;
        let full_b = build::elemwise(g, ScalarKind::And, &[not_full, k_longer])?;
        let (rev_a, rev_b) = (reversed(g, a)?, reversed(g, b)?);
        let ga = g.apply_out(Arc::new(Convolve1d), &[gz, rev_b, full_a])?;
        let gb = g.apply_out(Arc::new(Convolve1d), &[gz, rev_a, full_b])?;
        Ok(vec![
            super::linalg::in_dtype_of(g, ga, a)?,
            super::linalg::in_dtype_of(g, gb, b)?,
            super::scalar_grad::disconnected(g),
        ])
    }
}

fn vector<'a>(ty: &'a Type, what: &str) -> Result<&'a TensorType> {
    let t = ty.expect_tensor(what)?;
    if t.ndim() != 1 {
        return Err(Error::Type(format!(
            "Convolve1d: {what} must be a vector, got {t}"
        )));
    }
    Ok(t)
}

/// `v[::-1]`.
fn reversed(g: &mut Graph, v: VarId) -> Result<VarId> {
    let minus_one = build::int_constant(g, -1)?;
    let op = Subtensor::new(vec![IdxEntry::Slice {
        start: None,
        stop: None,
        step: Some(0),
    }])?;
    g.apply_out(Arc::new(op), &[v, minus_one])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn types() {
        let v = Type::from(TensorType::new(DType::Float32, [None]).unwrap());
        let m = Type::from(TensorType::new(DType::Float64, [None, None]).unwrap());
        let flag = Type::from(TensorType::scalar(DType::Bool));
        let out = Convolve1d.output_types(&[&v, &v, &flag]).unwrap();
        assert_eq!(out[0].as_tensor().unwrap().dtype, DType::Float32);
        assert!(Convolve1d.output_types(&[&m, &v, &flag]).is_err());
        assert!(Convolve1d.output_types(&[&v, &v, &v]).is_err());
    }
}
