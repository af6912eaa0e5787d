//! `Alloc` (a value broadcast to a symbolic shape, as a fresh array) and
//! `AllocEmpty` (an uninitialised array). Mirrors the ops of the same names
//! in `pytensor/tensor/basic.py`; `zeros`, `ones`, `full` and
//! `broadcast_to` are `Alloc`s.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::alloc::{is_zero_bytes, output};
use crate::kernels::copy::write_into;
use crate::op_identity;
use crate::ops::known::{self, expect_int_scalar, known_len, KnownInputs};
use crate::ops::scalar_grad::{match_dtype, tensor};
use crate::ops::Outs;
use crate::ops::Tangents;
use crate::ops::{Op, PerformCtx};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// PyTensor's rule: a length 1 broadcasts only where the type says it may
/// (its gradient sums over the static broadcastable axes alone).
fn check_static_broadcast(
    value: &[usize],
    shape: &[usize],
    bcast: Option<&Vec<bool>>,
) -> Result<()> {
    let Some(bcast) = bcast else {
        return Ok(());
    };
    let pad = shape.len().saturating_sub(value.len());
    let stretched = value.iter().enumerate().any(|(i, &n)| {
        let target = shape.get(pad + i).copied().unwrap_or(n);
        n == 1 && target != 1 && !bcast.get(i).copied().unwrap_or(true)
    });
    if stretched {
        return Err(Error::Value(
            "Runtime broadcasting not allowed. The output of Alloc requires broadcasting a \
             dimension of the input value, which was not marked as broadcastable. If \
             broadcasting was intended, use `specify_broadcastable` on the relevant input."
                .into(),
        ));
    }
    Ok(())
}

/// The requested shape from the length inputs (NumPy's error for negatives).
fn runtime_shape(op: &str, lengths: &[&Value]) -> Result<Vec<usize>> {
    lengths
        .iter()
        .map(|v| {
            let n = known::int_scalar(v.tensor()?, &format!("A shape entry of {op}"))?;
            usize::try_from(n).map_err(|_| Error::Value("negative dimensions not allowed".into()))
        })
        .collect()
}

/// Static lengths from the constant length inputs.
fn static_shape(lengths: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Option<u64>>> {
    for l in lengths {
        expect_int_scalar(l, "Shapes must be scalar integers; a shape entry")?;
    }
    Ok(known.iter().map(|k| known_len(*k)).collect())
}

/// `Alloc`: inputs are the value and one integer scalar per output axis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Alloc;

impl KnownInputs for Alloc {
    fn known_output_types(&self, inputs: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Type>> {
        let Some((value, lengths)) = inputs.split_first() else {
            return Err(Error::Type("Alloc needs a value".into()));
        };
        let value = value.expect_tensor("The value of Alloc")?;
        let mut shape = static_shape(lengths, &known[1..])?;
        if value.ndim() > shape.len() {
            return Err(Error::Type(format!(
                "The Alloc value to use has more dimensions ({}) than the specified shape ({})",
                value.ndim(),
                shape.len()
            )));
        }
        let pad = shape.len() - value.ndim();
        for (i, v) in value.shape.iter().enumerate() {
            match (*v, shape[pad + i]) {
                (Some(v), Some(s)) if v != 1 && v != s => {
                    return Err(Error::Value(format!(
                        "Alloc static input type and target shape are incompatible: {value} vs {}",
                        crate::types::fmt_tuple(
                            shape
                                .iter()
                                .map(|d| d.map_or("None".into(), |d| d.to_string()))
                        )
                    )))
                }
                (Some(v), None) if v != 1 => shape[pad + i] = Some(v),
                _ => {}
            }
        }
        Ok(vec![TensorType::new(value.dtype, shape)?.into()])
    }
}

impl Op for Alloc {
    op_identity!("Alloc");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        self.known_output_types(inputs, &vec![None; inputs.len()])
    }

    fn connection_pattern(&self, n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some((0..n_inputs).map(|i| vec![i == 0]).collect()))
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let value = inputs[0].tensor()?;
        let shape = runtime_shape("Alloc", &inputs[1..])?;
        let pad = shape.len().checked_sub(value.ndim());
        let fits = pad.is_some_and(|pad| {
            (0..value.ndim()).all(|i| value.shape()[i] == 1 || value.shape()[i] == shape[pad + i])
        });
        if !fits {
            return Err(Error::Shape(format!(
                "Alloc: cannot broadcast a value of shape {:?} to shape {shape:?}",
                value.shape()
            )));
        }
        check_static_broadcast(value.shape(), &shape, ctx.input_bcast.first())?;
        // Zeros need no writing: a fresh calloc'd buffer is zero, and its
        // pages cost nothing until touched (as NumPy's `zeros`).
        if is_zero_bytes(value) {
            outputs[0] = Some(Tensor::zeros(value.dtype(), &shape)?.into());
            return Ok(());
        }
        let out = output(Some(ctx.pool), value.dtype(), &shape)?;
        write_into(value, &out)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    super::shape_rules::shape_from_lengths!(1..);

    /// The value's gradient sums the output gradient over the axes it was
    /// broadcast along; the lengths are disconnected.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let value_ty = tensor(g, inputs[0])?;
        let gz = output_grads[0];
        let pad = tensor(g, gz)?.ndim() - value_ty.ndim();
        let lead: Vec<i64> = (0..pad as i64).collect();
        let trimmed = if lead.is_empty() {
            gz
        } else {
            build::sum(g, gz, Some(&lead))?
        };
        let summed = build::sum_to(g, trimmed, &value_ty)?;
        let gv = match_dtype(g, summed, value_ty.dtype)?;
        Ok(super::grad_rules::value_grad_only(g, node, gv))
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        super::grad_rules::value_pushforward(g, node, tangents)
    }
}

/// `AllocEmpty{dtype}`: an array of the given shape whose contents are unspecified.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AllocEmpty {
    /// The output dtype.
    pub dtype: DType,
}

impl KnownInputs for AllocEmpty {
    fn known_output_types(&self, inputs: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Type>> {
        let shape = static_shape(inputs, known)?;
        Ok(vec![TensorType::new(self.dtype, shape)?.into()])
    }
}

impl Op for AllocEmpty {
    op_identity!("AllocEmpty", self => "dtype='{}'", self.dtype);

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        self.known_output_types(inputs, &vec![None; inputs.len()])
    }

    fn connection_pattern(&self, n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![false]; n_inputs]))
    }

    /// Never folded into a constant: the contents are meaningless.
    fn do_constant_folding(&self) -> Result<bool> {
        Ok(false)
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let shape = runtime_shape("AllocEmpty", inputs)?;
        outputs[0] = Some(ctx.pool.take_defined(self.dtype, &shape)?.into());
        Ok(())
    }

    super::shape_rules::shape_from_lengths!(..);

    super::constant_grads::disconnected_grads!();
}

/// `alloc(value, *shape)` from Rust: `shape` holds integer scalar variables.
pub fn alloc(g: &mut Graph, value: VarId, shape: &[VarId]) -> Result<VarId> {
    let mut inputs = vec![value];
    inputs.extend_from_slice(shape);
    known::apply_out(g, Arc::new(Alloc), &inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_static_shapes() {
        let v: Type = TensorType::new(DType::Float64, [Some(3)]).unwrap().into();
        let i: Type = TensorType::scalar(DType::Int64).into();
        let two = Tensor::scalar(2i64);
        let out = Alloc
            .known_output_types(&[&v, &i, &i], &[None, Some(&two), None])
            .unwrap();
        assert_eq!(out[0].to_string(), "Matrix(float64, shape=(2, 3))");
        let err = Alloc
            .known_output_types(&[&v, &i], &[None, Some(&two)])
            .unwrap_err();
        assert!(err.to_string().contains("incompatible"), "{err}");
        let f: Type = TensorType::scalar(DType::Float64).into();
        assert!(Alloc.output_types(&[&v, &f]).is_err(), "float lengths");
        assert_eq!(
            AllocEmpty {
                dtype: DType::Int32
            }
            .describe(),
            "AllocEmpty{dtype='int32'}"
        );
    }

    #[test]
    fn runtime_broadcast_only_along_static_ones() {
        let dynamic = vec![false, false];
        assert!(check_static_broadcast(&[3, 1], &[2, 3, 4], Some(&dynamic)).is_err());
        assert!(check_static_broadcast(&[3, 4], &[2, 3, 4], Some(&dynamic)).is_ok());
        // A length 1 into a length 1 stretches nothing.
        assert!(check_static_broadcast(&[3, 1], &[3, 1], Some(&dynamic)).is_ok());
        let static_one = vec![false, true];
        assert!(check_static_broadcast(&[3, 1], &[2, 3, 4], Some(&static_one)).is_ok());
    }
}
