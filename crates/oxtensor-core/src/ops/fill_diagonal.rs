//! `FillDiagonal` and `FillDiagonalOffset`: a copy of a tensor with one
//! value on its main diagonal (any rank of at least 2), or on a diagonal
//! above or below it (matrices). NumPy's `fill_diagonal` without `wrap`.
//! Mirrors the ops of `pytensor/tensor/extra_ops.py`.

use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::index::{fill_positions, main_diagonal, offset_diagonal};
use crate::op_identity;
use crate::ops::known;
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::{Op, Outs, PerformCtx, Tangents};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// The checks both ops make on `x` (at least `min_ndim`-d) and the value
/// (a scalar that casts to `x`'s dtype without loss); the output is `x`'s type.
fn fill_types(op: &str, x: &Type, val: &Type, min_ndim: usize) -> Result<TensorType> {
    let x = x.expect_tensor(&format!("The input of {op}"))?;
    let v = val.expect_tensor(&format!("The value of {op}"))?;
    if x.ndim() < min_ndim {
        return Err(Error::Type(format!(
            "{op}: the first parameter must have at least {min_ndim} dimensions, got {x}"
        )));
    }
    if v.ndim() != 0 {
        return Err(Error::Type(format!(
            "{op}: the second parameter must be a scalar, got {v}"
        )));
    }
    if x.dtype.promote(v.dtype) != x.dtype {
        return Err(Error::Type(format!(
            "{op}: the type of the second parameter must be the same as (or cast without loss to) the first's, got {} for {}",
            v.dtype, x.dtype
        )));
    }
    Ok(x.clone())
}

/// The value's gradient, the sum of the output's gradient over the
/// diagonal: `gz - gx` is `gz` exactly there and exactly 0 elsewhere.
fn value_grad(g: &mut Graph, gz: VarId, gx: VarId, val: VarId) -> Result<VarId> {
    let on_diagonal = build::sub(g, gz, gx)?;
    let total = build::sum(g, on_diagonal, None)?;
    let dtype = tensor(g, val)?.dtype;
    match_dtype(g, total, dtype)
}

/// A zero of `like`'s gradient dtype, as a 0-d constant.
fn zero_of(g: &mut Graph, like: VarId) -> Result<VarId> {
    let dtype = tensor(g, like)?.dtype;
    Ok(build::scalar_constant(g, dtype, 0.0))
}

/// A fill's gradients: `x`'s is the output's with the diagonal zeroed (the
/// same fill of it with 0), the value's the sum over the diagonal; the
/// offset, when there is one, only picks positions (disconnected).
fn fill_pullback(g: &mut Graph, op: Arc<dyn Op>, node: NodeId, gz: VarId) -> Result<Vec<VarId>> {
    let inputs = g.node(node).inputs.clone();
    let zero = zero_of(g, gz)?;
    let mut args = vec![gz, zero];
    args.extend(inputs.get(2));
    let gx = g.apply_out(op, &args)?;
    let gv = value_grad(g, gz, gx, inputs[1])?;
    let mut out = vec![gx, gv];
    if inputs.len() == 3 {
        out.push(crate::ops::scalar_grad::disconnected(g));
    }
    Ok(out)
}

/// The tangent of a fill, linear in `x` and the value: the same fill of
/// their tangents (zeros for those without one).
fn fill_tangent(
    g: &mut Graph,
    op: Arc<dyn Op>,
    node: NodeId,
    tangents: &[Option<VarId>],
) -> Tangents {
    let inputs = g.node(node).inputs.clone();
    let (tx, tv) = (tangents[0], tangents.get(1).copied().flatten());
    if tx.is_none() && tv.is_none() {
        return Ok(Some(vec![None]));
    }
    let x_dtype = tensor(g, inputs[0])?.dtype;
    let tx = match tx {
        Some(t) => t,
        None => build::zeros_like(g, inputs[0], x_dtype)?,
    };
    let tv = match tv {
        Some(t) => t,
        None => zero_of(g, inputs[0])?,
    };
    let mut args = vec![tx, tv];
    args.extend(inputs.get(2));
    Ok(Some(vec![Some(g.apply_out(op, &args)?)]))
}

/// `infer_shape` (the output is shaped like `x`), `pullback` and
/// `pushforward` of the fill op `$op` ([`fill_pullback`], [`fill_tangent`]).
macro_rules! fill_shape_and_grads {
    ($op:ident) => {
        super::shape_rules::shape_of_input!(0);

        fn pullback(&self, g: &mut Graph, node: NodeId, grads: &[VarId]) -> Result<Vec<VarId>> {
            fill_pullback(g, Arc::new($op), node, grads[0])
        }

        fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
            fill_tangent(g, Arc::new($op), node, tangents)
        }
    };
}

/// `FillDiagonal`: inputs are `x` (at least 2-d) and a scalar; the output
/// is `x` with the scalar at every `(i, i, ..., i)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FillDiagonal;

impl Op for FillDiagonal {
    op_identity!("FillDiagonal");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, val] = super::arity::exactly("FillDiagonal", inputs)?;
        Ok(vec![fill_types("fill_diagonal", x, val, 2)?.into()])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let positions = main_diagonal(x.shape());
        outputs[0] = Some(fill_positions(x, inputs[1].tensor()?, &positions)?.into());
        Ok(())
    }

    fill_shape_and_grads!(FillDiagonal);
}

/// `FillDiagonalOffset`: inputs are a matrix, a scalar and an integer
/// offset; the output is the matrix with the scalar on the diagonal
/// `offset` places right of the main one (left when negative).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FillDiagonalOffset;

impl Op for FillDiagonalOffset {
    op_identity!("FillDiagonalOffset");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, val, offset] = super::arity::exactly("FillDiagonalOffset", inputs)?;
        let out = fill_types("fill_diagonal_offset", x, val, 2)?;
        if out.ndim() != 2 {
            return Err(Error::Type(format!(
                "fill_diagonal_offset: the first parameter must be a matrix, got {out}"
            )));
        }
        known::expect_int_scalar(offset, "The offset of fill_diagonal_offset")?;
        Ok(vec![out.into()])
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![true], vec![true], vec![false]]))
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let offset = known::int_scalar(inputs[2].tensor()?, "The offset of fill_diagonal_offset")?;
        let positions = offset_diagonal(x.shape()[0], x.shape()[1], offset);
        outputs[0] = Some(fill_positions(x, inputs[1].tensor()?, &positions)?.into());
        Ok(())
    }

    fill_shape_and_grads!(FillDiagonalOffset);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::ops::test_support::{perform_first, ty};
    use crate::tensor::Tensor;

    #[test]
    fn type_rules() {
        let m = ty(DType::Float64, 2);
        let s = ty(DType::Float32, 0);
        let i = ty(DType::Int32, 0);
        assert!(FillDiagonal.output_types(&[&m, &s]).is_ok());
        assert!(FillDiagonal
            .output_types(&[&ty(DType::Float64, 1), &s])
            .is_err());
        assert!(FillDiagonal.output_types(&[&m, &m]).is_err());
        assert!(FillDiagonal
            .output_types(&[&ty(DType::Int8, 2), &s])
            .is_err());
        assert!(FillDiagonalOffset.output_types(&[&m, &s, &i]).is_ok());
        assert!(FillDiagonalOffset.output_types(&[&m, &s, &s]).is_err());
        assert!(FillDiagonalOffset
            .output_types(&[&ty(DType::Float64, 3), &s, &i])
            .is_err());
    }

    #[test]
    fn perform_fills_the_offset_diagonal() {
        let x: Value = Tensor::from_vec(vec![2, 3], vec![0.0f64; 6])
            .unwrap()
            .into();
        let v: Value = Tensor::scalar(5.0f64).into();
        let k: Value = Tensor::scalar(-1i32).into();
        let got = perform_first(&FillDiagonalOffset, &[&x, &v, &k]).unwrap();
        let want = Tensor::from_vec(vec![2, 3], vec![0.0f64, 0.0, 0.0, 5.0, 0.0, 0.0]).unwrap();
        assert!(got.same_values(&want));
        let got = perform_first(&FillDiagonal, &[&x, &v]).unwrap();
        let want = Tensor::from_vec(vec![2, 3], vec![5.0f64, 0.0, 0.0, 0.0, 5.0, 0.0]).unwrap();
        assert!(got.same_values(&want));
    }
}
