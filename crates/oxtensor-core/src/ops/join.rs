//! `Join` (concatenation along an axis that may be symbolic) and
//! `Split{len_splits}` (its inverse, whose outputs are views). Mirrors the
//! ops of the same names in `pytensor/tensor/basic.py`; `concatenate`,
//! `stack` and the horizontal/vertical stacks are `Join`s.

use crate::build;
use crate::dtype::{upcast, DType};
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::alloc::output;
use crate::kernels::copy::{region, write_into};
use crate::kernels::elemwise::cast::cast;
use crate::op_identity;
use crate::ops::known::{self, expect_int_scalar, KnownInputs};
use crate::ops::make_vector::MakeVector;
use crate::ops::scalar_grad::{disconnected, match_dtype, tensor};
use crate::ops::shape::ShapeI;
use crate::ops::split::split;
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::tensor::{layout, Tensor};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `axis` (possibly negative) as an index into `ndim` axes.
pub fn normalize_axis(axis: i64, ndim: usize, op: &str) -> Result<usize> {
    let n = ndim as i64;
    if axis < -n || axis >= n {
        return Err(Error::Index(format!(
            "{op}: axis {axis} is out of bounds for a tensor of dimension {ndim}"
        )));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// The axis from a constant input, normalised.
fn known_axis(known: Option<&Tensor>, ndim: usize, op: &str) -> Result<Option<usize>> {
    known
        .map(|t| normalize_axis(known::int_scalar(t, "The axis")?, ndim, op))
        .transpose()
}

/// `Join`: inputs are the axis (an integer scalar) and the tensors.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Join;

impl KnownInputs for Join {
    fn known_output_types(&self, inputs: &[&Type], known: &[Option<&Tensor>]) -> Result<Vec<Type>> {
        let Some((axis, tensors)) = inputs.split_first() else {
            return Err(Error::Type("Join needs an axis".into()));
        };
        expect_int_scalar(axis, "The axis of Join")?;
        let tys: Vec<&TensorType> = tensors
            .iter()
            .map(|t| t.expect_tensor("An input of Join"))
            .collect::<Result<_>>()?;
        let Some(first) = tys.first() else {
            return Err(Error::Value("Cannot join an empty list of tensors".into()));
        };
        let ndim = first.ndim();
        let ndims: Vec<usize> = tys.iter().map(|t| t.ndim()).collect();
        if ndims.iter().any(|&n| n != ndim) {
            return Err(Error::Type(format!(
                "Only tensors with the same number of dimensions can be joined. Input ndims were: {ndims:?}"
            )));
        }
        if ndim == 0 {
            return Err(Error::Type(
                "Join cannot join scalars (0-d tensors); stack them instead".into(),
            ));
        }
        let dtype = upcast(&tys.iter().map(|t| t.dtype).collect::<Vec<_>>())?;
        let shape = match known_axis(known[0], ndim, "Join")? {
            Some(axis) => joined_shape(&tys, axis)?,
            None => vec![None; ndim],
        };
        Ok(vec![TensorType::new(dtype, shape)?.into()])
    }
}

/// The static shape of a join along `axis`: lengths summed along it, the
/// others merged (known beats unknown; two known must agree).
fn joined_shape(tys: &[&TensorType], axis: usize) -> Result<Vec<Option<u64>>> {
    let ndim = tys[0].ndim();
    (0..ndim)
        .map(|d| {
            let dims = tys.iter().map(|t| t.shape[d]);
            if d == axis {
                return joined_len(dims);
            }
            let known: Vec<u64> = dims.flatten().collect();
            if known.windows(2).any(|w| w[0] != w[1]) {
                return Err(Error::Value(format!(
                    "all input array dimensions other than the specified `axis` ({axis}) must match exactly, or be unknown (None), but along dimension {d}, the inputs shapes are incompatible: {known:?}"
                )));
            }
            Ok(known.first().copied())
        })
        .collect()
}

/// The static length along the join axis: unknown if any input's is,
/// else the sum, refused when it could not be an array's length.
fn joined_len(dims: impl Iterator<Item = Option<u64>>) -> Result<Option<u64>> {
    let Some(lens) = dims.collect::<Option<Vec<u64>>>() else {
        return Ok(None);
    };
    let lens = lens
        .into_iter()
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    Ok(Some(layout::sum(lens, "Join")? as u64))
}

impl Op for Join {
    op_identity!("Join");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        self.known_output_types(inputs, &vec![None; inputs.len()])
    }

    fn connection_pattern(&self, n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some((0..n_inputs).map(|i| vec![i != 0]).collect()))
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let dtype = ctx.output_dtype(0)?;
        let tensors: Vec<&Tensor> = inputs[1..]
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<_>>()?;
        let axis = known::int_scalar(inputs[0].tensor()?, "The axis of Join")?;
        let axis = normalize_axis(axis, tensors[0].ndim(), "Join")?;
        let shape = runtime_joined_shape(&tensors, axis)?;
        let out = output(Some(ctx.pool), dtype, &shape)?;
        let step = out.strides()[axis];
        let mut at = 0usize;
        for t in &tensors {
            // `at` is below the output's length along `axis`, so the offset
            // is inside its checked byte size.
            let piece = region(&out, t.shape(), out.strides(), at * step as usize)?;
            write_into(&cast(t, dtype)?, &piece)?;
            at += t.shape()[axis];
        }
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// The lengths along the axis summed, the others the first input's.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let axis = g.node(node).inputs[0];
        let shapes = &input_shapes[1..];
        let ndim = shapes[0].len();
        let known_axis = known::constant_axis(g, axis, ndim, "Join")?;
        let mut out = Vec::with_capacity(ndim);
        for d in 0..ndim {
            let first = shapes[0][d];
            if known_axis.is_some_and(|a| a != d) {
                out.push(first);
                continue;
            }
            let mut total = first;
            for s in &shapes[1..] {
                total = build::add(g, total, s[d])?;
            }
            out.push(match known_axis {
                Some(_) => total,
                None => known::pick_axis(g, axis, d, ndim, total, first)?,
            });
        }
        Ok(Some(vec![out]))
    }

    /// Each input gets its slice of the output gradient (a `Split`); the
    /// axis is disconnected.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let ndim = tensor(g, inputs[1])?.ndim();
        let axis = known::constant_axis(g, inputs[0], ndim, "Join")?;
        let mut lengths = Vec::new();
        for &x in &inputs[1..] {
            lengths.push(length_along(g, x, inputs[0], axis, ndim)?);
        }
        let sizes = known::apply_out(
            g,
            Arc::new(MakeVector {
                dtype: DType::Int64,
            }),
            &lengths,
        )?;
        let parts = split(g, output_grads[0], inputs[0], sizes, lengths.len())?;
        let mut grads = vec![disconnected(g)];
        for (&x, part) in inputs[1..].iter().zip(parts) {
            let dtype = tensor(g, x)?.dtype;
            grads.push(match_dtype(g, part, dtype)?);
        }
        Ok(grads)
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let inputs = g.node(node).inputs.clone();
        if tangents[1..].iter().all(Option::is_none) {
            return Ok(Some(vec![None]));
        }
        let mut args = vec![inputs[0]];
        for (&x, t) in inputs[1..].iter().zip(&tangents[1..]) {
            let dtype = crate::ops::scalar_grad::grad_dtype(tensor(g, x)?.dtype);
            args.push(match t {
                Some(t) => *t,
                None => build::zeros_like(g, x, dtype)?,
            });
        }
        Ok(Some(vec![Some(known::apply_out(
            g,
            Arc::new(Join),
            &args,
        )?)]))
    }
}

/// The length of `x` along the join axis: `Shape_i` for a constant axis;
/// for a symbolic one, the length whose index matches it (a switch per axis).
fn length_along(
    g: &mut Graph,
    x: VarId,
    axis: VarId,
    known: Option<usize>,
    ndim: usize,
) -> Result<VarId> {
    if let Some(a) = known {
        return g.apply_out(Arc::new(ShapeI { i: a }), &[x]);
    }
    let mut len = build::scalar_constant(g, DType::Int64, 0.0);
    for d in 0..ndim {
        let dim = g.apply_out(Arc::new(ShapeI { i: d }), &[x])?;
        len = known::pick_axis(g, axis, d, ndim, dim, len)?;
    }
    Ok(len)
}

/// The runtime output shape of a join, or NumPy's error.
fn runtime_joined_shape(tensors: &[&Tensor], axis: usize) -> Result<Vec<usize>> {
    let first = tensors[0].shape();
    let mut shape = first.to_vec();
    for t in tensors {
        let same_rank = t.ndim() == first.len();
        if !same_rank || (0..first.len()).any(|d| d != axis && t.shape()[d] != first[d]) {
            let shapes: Vec<&[usize]> = tensors.iter().map(|t| t.shape()).collect();
            return Err(Error::Shape(format!(
                "Join: all the input array dimensions except for the concatenation axis ({axis}) must match exactly, got shapes {shapes:?}"
            )));
        }
    }
    shape[axis] = layout::sum(tensors.iter().map(|t| t.shape()[axis]), "Join")?;
    Ok(shape)
}

/// `join(axis, *tensors)` from Rust.
pub fn join(g: &mut Graph, axis: VarId, tensors: &[VarId]) -> Result<VarId> {
    let mut inputs = vec![axis];
    inputs.extend_from_slice(tensors);
    known::apply_out(g, Arc::new(Join), &inputs)
}
