//! `Blockwise.perform`: the batch loop. Each entry of the broadcast batch
//! shape (in C order) gives the core op views of its inputs' core dims; the
//! core outputs are stacked, and must agree in shape across entries.

use super::Blockwise;
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::{Op, Outs, PerformCtx};
use crate::tensor::{layout, Tensor};
use crate::types::Type;
use crate::value::Value;
use crate::vm::Thunk;

/// How each batch entry runs the core op: its `perform`, or the thunk it
/// made for the core types at link time (a host op's, say).
#[derive(Clone, Copy)]
pub(super) enum Runner<'a> {
    /// `core_op.perform`.
    Perform,
    /// The core op's own thunk.
    Thunk(&'a dyn Thunk),
}

/// What the core op sees on every entry: its types and flags.
struct Core {
    inputs: Vec<Type>,
    outputs: Vec<Type>,
    bcast: Vec<Vec<bool>>,
}

/// One output's entries so far, as C-order bytes.
struct Stack {
    dtype: DType,
    core_shape: Option<Vec<usize>>,
    bytes: Vec<u8>,
}

/// Runs the core op once per batch entry and stacks the results.
pub(super) fn perform(
    op: &Blockwise,
    ctx: &mut PerformCtx,
    inputs: &[&Value],
    outputs: &mut Outs,
    runner: Runner,
) -> Result<()> {
    let types: Vec<&Type> = ctx.input_types.iter().collect();
    let batch_nd = op.batch_ndims(&types)?;
    let core_inputs = op.core_input_types(&types)?;
    let core = Core {
        outputs: op
            .core_output_types(&core_inputs)?
            .into_iter()
            .map(Into::into)
            .collect(),
        bcast: PerformCtx::broadcastable(&core_inputs),
        inputs: core_inputs,
    };
    let tensors: Vec<&Tensor> = inputs.iter().map(|v| v.tensor()).collect::<Result<_>>()?;
    let shape = batch_shape(op, ctx, &tensors, &batch_nd)?;
    let mut stacks = core
        .outputs
        .iter()
        .map(|t| {
            let dtype = t.expect_tensor("A Blockwise output")?.dtype;
            Ok(Stack {
                dtype,
                core_shape: None,
                bytes: Vec::new(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut index = vec![0usize; shape.len()];
    for _ in 0..layout::size(&shape)? {
        let views = views_at(&tensors, &batch_nd, &index)?;
        let outs = run_core(op, ctx, &core, &views, runner)?;
        for (stack, out) in stacks.iter_mut().zip(outs) {
            push(op, stack, &out)?;
        }
        advance(&mut index, &shape);
    }
    if stacks.iter().any(|s| s.core_shape.is_none()) {
        learn_core_shapes(op, ctx, &core, (&tensors, &batch_nd), &mut stacks, runner)?;
    }
    for (slot, stack) in outputs.iter_mut().zip(stacks) {
        let mut full = shape.clone();
        full.extend(stack.core_shape.unwrap_or_default());
        *slot = Some(Tensor::from_bytes(stack.dtype, full, stack.bytes)?.into());
    }
    Ok(())
}

/// The runtime batch shape: each input's batch axes aligned on the right.
/// Only axes the static type marks as length 1 broadcast (PyTensor refuses
/// broadcasting that only the runtime lengths allow); any other
/// disagreement is a `ValueError` naming the shapes.
fn batch_shape(
    op: &Blockwise,
    ctx: &PerformCtx,
    tensors: &[&Tensor],
    batch_nd: &[usize],
) -> Result<Vec<usize>> {
    let nb = batch_nd.iter().copied().max().unwrap_or(0);
    let mut shape: Vec<Option<usize>> = vec![None; nb];
    for (j, (t, &b)) in tensors.iter().zip(batch_nd).enumerate() {
        let bcast = ctx.input_bcast.get(j).map_or(&[][..], Vec::as_slice);
        for (k, &len) in t.shape()[..b].iter().enumerate() {
            if bcast.get(k).copied().unwrap_or(false) {
                continue;
            }
            let axis = nb - b + k;
            match shape[axis] {
                Some(l) if l != len => {
                    let shapes: Vec<String> = tensors
                        .iter()
                        .map(|t| layout::fmt_shape(t.shape()))
                        .collect();
                    bail!(Value: "{}: batch dims of the inputs do not match (only dims of static \
                           length 1 broadcast): shapes {}", op.describe(), shapes.join(", "));
                }
                _ => shape[axis] = Some(len),
            }
        }
    }
    Ok(shape.into_iter().map(|l| l.unwrap_or(1)).collect())
}

/// Each input's core dims at batch entry `index` (length-1 batch axes
/// broadcast, missing leading ones implied).
fn views_at(tensors: &[&Tensor], batch_nd: &[usize], index: &[usize]) -> Result<Vec<Value>> {
    let nb = index.len();
    tensors
        .iter()
        .zip(batch_nd)
        .map(|(t, &b)| {
            let mut offset = t.offset() as isize;
            for k in 0..b {
                let i = if t.shape()[k] == 1 {
                    0
                } else {
                    index[nb - b + k]
                };
                offset += i as isize * t.strides()[k];
            }
            let offset = usize::try_from(offset).unwrap_or(0);
            Ok(t.view(&t.shape()[b..], &t.strides()[b..], offset)?.into())
        })
        .collect()
}

/// The core op on one entry's views.
fn run_core(
    op: &Blockwise,
    ctx: &mut PerformCtx,
    core: &Core,
    views: &[Value],
    runner: Runner,
) -> Result<Vec<Tensor>> {
    let mut sub = PerformCtx {
        input_types: &core.inputs,
        output_types: &core.outputs,
        input_bcast: &core.bcast,
        pool: ctx.pool,
    };
    let refs: Vec<&Value> = views.iter().collect();
    let mut outs: Vec<Option<Value>> = vec![None; core.outputs.len()];
    match runner {
        Runner::Perform => op.core_op.perform(&mut sub, &refs, &mut outs),
        Runner::Thunk(t) => t.run(&refs, &mut outs, sub.pool),
    }
    .map_err(|e| e.at_node(op.describe()))?;
    outs.into_iter()
        .enumerate()
        .map(|(i, o)| match o {
            Some(Value::Tensor(t)) => Ok(t),
            _ => bail!(Value: "{}: the core op left output {i} without a tensor", op.describe()),
        })
        .collect()
}

/// Appends one entry's output, which must have the shape of the first.
fn push(op: &Blockwise, stack: &mut Stack, out: &Tensor) -> Result<()> {
    match &stack.core_shape {
        None => stack.core_shape = Some(out.shape().to_vec()),
        Some(s) if s.as_slice() != out.shape() => bail!(Value:
            "{}: the core op gave outputs of shape {} and then {} for different batch \
             entries; Blockwise needs one core shape", op.describe(),
            layout::fmt_shape(s), layout::fmt_shape(out.shape())),
        Some(_) => {}
    }
    if out.dtype() != stack.dtype {
        bail!(Value: "{}: the core op gave {} where {} was expected", op.describe(),
              out.dtype(), stack.dtype);
    }
    stack.bytes.extend(out.to_c_bytes()?);
    Ok(())
}

/// An empty batch gives no entry to run: the core op runs once on zeros of
/// the inputs' core shapes, for the shape of its outputs only.
fn learn_core_shapes(
    op: &Blockwise,
    ctx: &mut PerformCtx,
    core: &Core,
    (tensors, batch_nd): (&[&Tensor], &[usize]),
    stacks: &mut [Stack],
    runner: Runner,
) -> Result<()> {
    let zeros = tensors
        .iter()
        .zip(batch_nd)
        .map(|(t, &b)| Ok(Tensor::zeros(t.dtype(), &t.shape()[b..])?.into()))
        .collect::<Result<Vec<Value>>>()?;
    for (stack, out) in stacks
        .iter_mut()
        .zip(run_core(op, ctx, core, &zeros, runner)?)
    {
        stack.core_shape = Some(out.shape().to_vec());
    }
    Ok(())
}

/// The next batch entry in C order.
fn advance(index: &mut [usize], shape: &[usize]) {
    for (i, &n) in index.iter_mut().zip(shape).rev() {
        *i += 1;
        if *i < n {
            return;
        }
        *i = 0;
    }
}
