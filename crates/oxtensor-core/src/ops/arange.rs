//! `ARange{dtype}` (evenly spaced values) and `Eye{dtype}` (ones on a
//! diagonal). Mirrors the ops of the same names in `pytensor/tensor/basic.py`.

use crate::build;
use crate::build::sign::{proven_sign, Sign};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::alloc::{fill_chunks, output, zeros_written};
use crate::kernels::copy::{region, scalar_of, write_into};
use crate::kernels::elemwise::cast::cast_into;
use crate::op_identity;
use crate::ops::known::{self, expect_int_scalar, known_len, KnownInputs};
use crate::ops::scalar_grad::{disconnected, grad_dtype, tensor};
use crate::ops::shape::ShapeI;
use crate::ops::subtensor_shape::constant_of;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::tensor::{layout, Scalar, Tensor};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// A 0-d input's value as `f64` (for `ARange`'s arithmetic).
fn real_scalar(t: &Tensor, what: &str) -> Result<f64> {
    if t.ndim() != 0 {
        return Err(Error::Type(format!(
            "{what} must be a scalar, got shape {:?}",
            t.shape()
        )));
    }
    match t.get(0) {
        Scalar::Bool(b) => Ok(b as u8 as f64),
        Scalar::Int(v) => Ok(v as f64),
        Scalar::UInt(v) => Ok(v as f64),
        Scalar::Float(v, _) => Ok(v),
        Scalar::Complex(..) => Err(Error::Type(format!("{what} cannot be complex"))),
    }
}

/// NumPy's `arange` length: `ceil((stop - start) / step)`, at least 0.
pub fn arange_len(start: f64, stop: f64, step: f64) -> Result<usize> {
    if step == 0.0 {
        return Err(Error::Value("ARange: step cannot be 0".into()));
    }
    let n = ((stop - start) / step).ceil();
    Ok(if n.is_finite() && n > 0.0 {
        n as usize
    } else {
        0
    })
}

/// [`arange_len`] of three scalar tensors. With integer inputs the span
/// `stop - start` is taken exactly (in `i128`) before it is divided, as
/// NumPy does with Python integers: `stop - start` in `f64` rounds each
/// end first (`arange(-1, 2**63 - 1, 2**63 - 1)` has one element).
fn len_of(start: &Tensor, stop: &Tensor, step: &Tensor) -> Result<usize> {
    let ints = [start, stop, step].iter().all(|t| t.dtype().is_discrete());
    let step_f = real_scalar(step, "step")?;
    if !ints || step_f == 0.0 {
        return arange_len(
            real_scalar(start, "start")?,
            real_scalar(stop, "stop")?,
            step_f,
        );
    }
    let int = |t: &Tensor, what: &str| -> Result<i128> {
        Ok(match t.get(0) {
            Scalar::UInt(v) => v as i128,
            _ => known::int_scalar(t, what)? as i128,
        })
    };
    let span = int(stop, "stop")? - int(start, "start")?;
    arange_len(0.0, span as f64, step_f)
}

/// `ARange{dtype}`: inputs are `start`, `stop` and `step` scalars.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ARange {
    /// The output dtype.
    pub dtype: DType,
}

impl ARange {
    /// PyTensor's default dtype: the inputs' upcast, with integers widened
    /// to int64 (unsigned to uint64).
    pub fn default_dtype(inputs: &[DType]) -> Result<DType> {
        let up = crate::dtype::upcast(inputs)?;
        Ok(match up {
            DType::Bool | DType::Int8 | DType::Int16 | DType::Int32 => DType::Int64,
            DType::UInt8 | DType::UInt16 | DType::UInt32 => DType::Int64,
            other => other,
        })
    }
}

impl KnownInputs for ARange {
    fn known_output_types(&self, inputs: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Type>> {
        for ty in super::arity::exactly::<3>("ARange", inputs)? {
            let t = ty.expect_tensor("An input of ARange")?;
            if t.ndim() != 0 || t.dtype.is_complex() {
                return Err(Error::Type(format!(
                    "ARange's inputs must be real scalars, got {t}"
                )));
            }
        }
        let len = match (known[0], known[1], known[2]) {
            (Some(a), Some(b), Some(c)) => Some(len_of(a, b, c)? as u64),
            _ => None,
        };
        Ok(vec![TensorType::new(self.dtype, [len])?.into()])
    }
}

impl Op for ARange {
    op_identity!("ARange", self => "dtype='{}'", self.dtype);

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        self.known_output_types(inputs, &[None, None, None])
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![true], vec![false], vec![true]]))
    }

    /// Integers are computed exactly in `i64`, floats in `f64` (as NumPy,
    /// `start + i * step`), then converted to the output dtype.
    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let [a, b, c] = [0, 1, 2].map(|i| inputs[i].tensor());
        let (a, b, c) = (a?, b?, c?);
        let (start, step) = (real_scalar(a, "start")?, real_scalar(c, "step")?);
        let n = len_of(a, b, c)?;
        let exact = self.dtype.is_discrete() && [a, b, c].iter().all(|t| t.dtype().is_discrete());
        let wide = if exact { DType::Int64 } else { DType::Float64 };
        let mut values = output(Some(ctx.pool), wide, &[n])?;
        if exact {
            let (s, d) = (
                known::int_scalar(a, "start")?,
                known::int_scalar(c, "step")?,
            );
            // A running value, not `s + i * d` per element: x86-64 has no
            // 64-bit vector multiply before AVX-512, so that form stayed
            // scalar (0.74x NumPy on one thread).
            fill_chunks(&mut values, |first, xs: &mut [i64]| {
                let mut v = s.wrapping_add((first as i64).wrapping_mul(d));
                for x in xs {
                    *x = v;
                    v = v.wrapping_add(d);
                }
            });
        } else {
            // `first + j` in f64 is exact (n < 2^53), so this is `start +
            // i * step`; an i32 `j` (chunks are short) converts in SIMD
            // lanes, where a running f64 counter would chain the adds.
            fill_chunks(&mut values, |first, xs: &mut [f64]| {
                let base = first as f64;
                for (j, x) in xs.iter_mut().enumerate() {
                    *x = start + (base + f64::from(j as i32)) * step;
                }
            });
        }
        // Written once when the output dtype is the one computed in.
        let out = if self.dtype == wide {
            values
        } else {
            let mut out = output(Some(ctx.pool), self.dtype, &[n])?;
            cast_into(&values, &mut out);
            ctx.pool.recycle(values);
            out
        };
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// `max(ceil((stop - start) / step), 0)`, or the static length.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let _ = input_shapes;
        let n = g.node(node).clone();
        if let Some(dims) = known::static_dims(g, n.outputs[0])? {
            return Ok(Some(vec![dims]));
        }
        let (start, stop, step) = (n.inputs[0], n.inputs[1], n.inputs[2]);
        if let Some(len) = unit_step_len(g, start, stop, step)? {
            return Ok(Some(vec![vec![len]]));
        }
        let span = build::sub(g, stop, start)?;
        let steps = build::true_div(g, span, step)?;
        let up = build::elemwise(g, crate::scalar::ScalarKind::Ceil, &[steps])?;
        let zero = build::scalar_constant(g, DType::Float64, 0.0);
        let len = build::elemwise(g, crate::scalar::ScalarKind::Maximum, &[up, zero])?;
        Ok(Some(vec![vec![build::cast(g, len, DType::Int64)?]]))
    }

    /// As PyTensor: `start` gets `sum(gz)`, `step` gets `sum(gz * arange(n))`,
    /// `stop` is disconnected; integer ranges give zero gradients.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let gz = output_grads[0];
        if self.dtype.is_discrete() {
            let zs = build::scalar_constant(g, grad_dtype(tensor(g, inputs[0])?.dtype), 0.0);
            let zt = build::scalar_constant(g, grad_dtype(tensor(g, inputs[2])?.dtype), 0.0);
            return Ok(vec![zs, disconnected(g), zt]);
        }
        let g_start = build::sum(g, gz, None)?;
        let len = g.apply_out(Arc::new(ShapeI { i: 0 }), &[gz])?;
        let zero = build::scalar_constant(g, DType::Int64, 0.0);
        let one = build::scalar_constant(g, DType::Int64, 1.0);
        let idx = arange(g, zero, len, one, self.dtype)?;
        let weighted = build::mul(g, gz, idx)?;
        let g_step = build::sum(g, weighted, None)?;
        Ok(vec![g_start, disconnected(g), g_step])
    }
}

/// The length of an integer range with step 1, as PyTensor infers it:
/// `max(stop - start, 0)` in int64 with no float round trip, the `max`
/// left out where the graph proves the span non-negative (`arange(n)` of a
/// shape is then that shape). `None` for any other range.
fn unit_step_len(g: &mut Graph, start: VarId, stop: VarId, step: VarId) -> Result<Option<VarId>> {
    let integral = |g: &Graph, v: VarId| tensor(g, v).is_ok_and(|t| t.dtype.is_discrete());
    if constant_of(g, step) != Some(1) || !integral(g, start) || !integral(g, stop) {
        return Ok(None);
    }
    let span = match constant_of(g, start) {
        Some(0) => stop,
        _ => build::sub(g, stop, start)?,
    };
    let span = match tensor(g, span)?.dtype {
        DType::Int64 => span,
        _ => build::cast(g, span, DType::Int64)?,
    };
    if proven_sign(g, span) >= Sign::NonNegative {
        return Ok(Some(span));
    }
    let zero = build::scalar_constant(g, DType::Int64, 0.0);
    build::elemwise(g, crate::scalar::ScalarKind::Maximum, &[span, zero]).map(Some)
}

/// `arange(start, stop, step)` from Rust, with an explicit dtype.
pub fn arange(
    g: &mut Graph,
    start: VarId,
    stop: VarId,
    step: VarId,
    dtype: DType,
) -> Result<VarId> {
    known::apply_out(g, Arc::new(ARange { dtype }), &[start, stop, step])
}

/// `Eye{dtype}`: inputs are `n`, `m` and the diagonal `k`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Eye {
    /// The output dtype.
    pub dtype: DType,
}

impl KnownInputs for Eye {
    fn known_output_types(&self, inputs: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Type>> {
        for ty in super::arity::exactly::<3>("Eye", inputs)? {
            expect_int_scalar(ty, "An input of Eye")?;
        }
        Ok(vec![TensorType::new(
            self.dtype,
            [known_len(known[0]), known_len(known[1])],
        )?
        .into()])
    }
}

impl Op for Eye {
    op_identity!("Eye", self => "dtype='{}'", self.dtype);

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        self.known_output_types(inputs, &[None, None, None])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let dims: Vec<i64> = (0..3)
            .map(|i| known::int_scalar(inputs[i].tensor()?, "An input of Eye"))
            .collect::<Result<_>>()?;
        let (n, m, k) = (layout::dim(dims[0])?, layout::dim(dims[1])?, dims[2]);
        // The diagonal touches every huge page of a large output, so zeros
        // written on all threads beat calloc's page-by-page faults.
        let out = zeros_written(self.dtype, &[n, m])?;
        // The diagonal starts at (max(-k, 0), max(k, 0)) (`unsigned_abs`:
        // `-k` overflows for `i64::MIN`).
        let (row, col) = if k < 0 {
            (k.unsigned_abs() as usize, 0)
        } else {
            (0, k as usize)
        };
        let len = n.saturating_sub(row).min(m.saturating_sub(col));
        if len > 0 {
            // `row < n` and `col < m`, so the offset is an element of the
            // output, whose byte size `zeros_written` checked.
            let size = self.dtype.itemsize();
            let offset = (row * m + col) * size;
            let diag = region(&out, &[len], &[((m + 1) * size) as isize], offset)?;
            write_into(&scalar_of(self.dtype, 1.0), &diag)?;
        }
        outputs[0] = Some(out.into());
        Ok(())
    }

    // `(n, m)`: the first two inputs.
    super::shape_rules::shape_from_lengths!(..2);

    /// PyTensor leaves all three gradients undefined.
    fn pullback(
        &self,
        g: &mut Graph,
        _node: NodeId,
        _output_grads: &[VarId],
    ) -> Result<Vec<VarId>> {
        Ok((0..3)
            .map(|i| {
                g.input(
                    Type::Null(
                        format!(
                            "This variable is Null because the grad method for input {i} of the Eye op is undefined"
                        )
                        .into(),
                    ),
                    None,
                )
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_dtypes() {
        assert_eq!(arange_len(0.0, 10.0, 1.0).unwrap(), 10);
        assert_eq!(arange_len(10.0, 0.0, -3.0).unwrap(), 4);
        assert_eq!(arange_len(1.5, 10.0, 2.0).unwrap(), 5);
        assert_eq!(arange_len(5.0, 0.0, 1.0).unwrap(), 0);
        assert!(arange_len(0.0, 1.0, 0.0).is_err());
        // The span of integers is exact: in f64, -1 and 2**63 - 1 are 2**63
        // apart, one step of 2**63 - 1 rounded up to 2**63.
        let i = |v: i64| Tensor::scalar(v);
        assert_eq!(len_of(&i(-1), &i(i64::MAX), &i(i64::MAX)).unwrap(), 1);
        assert_eq!(len_of(&i(i64::MIN), &i(i64::MAX), &i(1 << 62)).unwrap(), 4);
        use DType::*;
        assert_eq!(ARange::default_dtype(&[Int8, Int32]).unwrap(), Int64);
        assert_eq!(ARange::default_dtype(&[Int8, Float32]).unwrap(), Float32);
        assert_eq!(Eye { dtype: Float64 }.describe(), "Eye{dtype='float64'}");
    }
}
