//! Gradients of the indexing ops. Reading `x[idx]` pulls back to
//! `inc_subtensor(zeros_like(x)[idx], gz)`; writing pulls back to `gz` (with
//! the written part zeroed when setting) for `x` and `gz[idx]`, summed to
//! `y`'s shape, for `y`. Index inputs are disconnected, as in PyTensor.
//! All these ops are linear in their tensor inputs, so the pushforward
//! applies the op to the tangents.

use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::ops::advanced_inc_subtensor::{AdvancedIncSubtensor, AdvancedIncSubtensor1};
use crate::ops::advanced_subtensor::{AdvancedSubtensor, AdvancedSubtensor1};
use crate::ops::scalar_grad::{disconnected, grad_dtype, match_dtype, tensor};
use crate::ops::subtensor::{IncSubtensor, Subtensor};
use crate::ops::{Op, OpRef};
use crate::tensor::index::IdxEntry;
use std::sync::Arc;

/// The ops of one indexing family: read `x[idx]`, increment it, set it.
struct Family {
    read: OpRef,
    inc: OpRef,
    set: OpRef,
}

impl Family {
    /// The reading op and the writing op built for each mode.
    fn of<R: Op, W: Op>(read: R, write: impl Fn(bool) -> Result<W>) -> Result<Family> {
        Ok(Family {
            read: Arc::new(read),
            inc: Arc::new(write(false)?),
            set: Arc::new(write(true)?),
        })
    }
}

fn basic(idx_list: &[IdxEntry]) -> Result<Family> {
    let write = |set| IncSubtensor::new(idx_list.to_vec(), set);
    Family::of(Subtensor::new(idx_list.to_vec())?, write)
}

fn advanced(idx_list: &[IdxEntry]) -> Result<Family> {
    let write = |set| AdvancedIncSubtensor::new(idx_list.to_vec(), set);
    Family::of(AdvancedSubtensor::new(idx_list.to_vec())?, write)
}

fn rows() -> Result<Family> {
    Family::of(AdvancedSubtensor1, |set_instead_of_inc| {
        Ok(AdvancedIncSubtensor1 {
            set_instead_of_inc,
            inplace: false,
        })
    })
}

/// The family of an indexing op.
fn family(op: &dyn Op) -> Result<Family> {
    let any = op.as_any();
    if let Some(s) = any.downcast_ref::<Subtensor>() {
        return basic(&s.idx_list);
    }
    if let Some(s) = any.downcast_ref::<IncSubtensor>() {
        return basic(&s.idx_list);
    }
    if let Some(s) = any.downcast_ref::<AdvancedSubtensor>() {
        return advanced(&s.idx_list);
    }
    if let Some(s) = any.downcast_ref::<AdvancedIncSubtensor>() {
        return advanced(&s.idx_list);
    }
    if any.is::<AdvancedSubtensor1>() || any.is::<AdvancedIncSubtensor1>() {
        return rows();
    }
    Err(Error::Type(format!(
        "{} is not an indexing op",
        op.describe()
    )))
}

/// `x[idx]`: `inc_subtensor(zeros_like(x)[idx], gz)`; indices disconnected.
pub fn subtensor_pullback(g: &mut Graph, node: NodeId, gz: VarId) -> Result<Vec<VarId>> {
    let (op, inputs) = {
        let n = g.node(node);
        (n.op.clone(), n.inputs.clone())
    };
    let fam = family(op.as_ref())?;
    let x_ty = tensor(g, inputs[0])?;
    let dt = grad_dtype(x_ty.dtype);
    let zeros = build::zeros_like(g, inputs[0], dt)?;
    let gz = build::cast(g, gz, dt)?;
    let mut args = vec![zeros, gz];
    args.extend_from_slice(&inputs[1..]);
    let gx = g.apply_out(fam.inc, &args)?;
    let mut out = vec![match_dtype(g, gx, x_ty.dtype)?];
    out.extend((1..inputs.len()).map(|_| disconnected(g)));
    Ok(out)
}

/// Writing `y` into `x[idx]`: `gz` for `x` (zero where set), `gz[idx]`
/// summed to `y`'s shape for `y`; indices disconnected.
pub fn inc_pullback(g: &mut Graph, node: NodeId, gz: VarId, set: bool) -> Result<Vec<VarId>> {
    let (op, inputs) = {
        let n = g.node(node);
        (n.op.clone(), n.inputs.clone())
    };
    let fam = family(op.as_ref())?;
    let (x_ty, y_ty) = (tensor(g, inputs[0])?, tensor(g, inputs[1])?);
    let idx = &inputs[2..];
    let gx = if set {
        let zero = build::scalar_constant(g, tensor(g, gz)?.dtype, 0.0);
        let mut args = vec![gz, zero];
        args.extend_from_slice(idx);
        g.apply_out(fam.set, &args)?
    } else {
        gz
    };
    let mut args = vec![gz];
    args.extend_from_slice(idx);
    let gy = g.apply_out(fam.read, &args)?;
    let gy = sum_to_value(g, gy, &y_ty)?;
    let mut out = vec![
        match_dtype(g, gx, x_ty.dtype)?,
        match_dtype(g, gy, y_ty.dtype)?,
    ];
    out.extend(idx.iter().map(|_| disconnected(g)));
    Ok(out)
}

/// Sums `gy` (shaped like `x[idx]`) to the shape of the value `y` that was
/// broadcast into it: leading axes, then `y`'s broadcastable axes.
fn sum_to_value(g: &mut Graph, gy: VarId, y_ty: &crate::types::TensorType) -> Result<VarId> {
    let lead = tensor(g, gy)?.ndim().saturating_sub(y_ty.ndim());
    let gy = if lead > 0 {
        let axes: Vec<i64> = (0..lead as i64).collect();
        build::sum(g, gy, Some(&axes))?
    } else {
        gy
    };
    build::sum_to(g, gy, y_ty)
}

/// The op applied to the tangents of its first `n_values` inputs (zeros
/// for missing ones), with the same index inputs.
pub fn linear_pushforward(
    g: &mut Graph,
    node: NodeId,
    tangents: &[Option<VarId>],
    n_values: usize,
) -> Result<Option<Vec<Option<VarId>>>> {
    if tangents[..n_values].iter().all(Option::is_none) {
        return Ok(Some(vec![None]));
    }
    let (op, inputs) = {
        let n = g.node(node);
        (n.op.clone(), n.inputs.clone())
    };
    let mut args = Vec::with_capacity(inputs.len());
    for (k, &input) in inputs.iter().enumerate() {
        args.push(match tangents.get(k).copied().flatten() {
            Some(t) if k < n_values => t,
            None if k < n_values => {
                let dt = grad_dtype(tensor(g, input)?.dtype);
                build::zeros_like(g, input, dt)?
            }
            _ => input,
        });
    }
    Ok(Some(vec![Some(g.apply_out(op, &args)?)]))
}

/// Writes the gradient methods of an indexing op whose first `$n_values`
/// inputs are values (connected, and linear: the pushforward applies the
/// op to their tangents) and whose other inputs are indices; `$pullback`
/// sees the graph, the node and the output gradient under the names given.
macro_rules! index_grads {
    ($self:ident, $n_values:expr, $g:ident, $node:ident, $gz:ident => $pullback:expr) => {
        fn connection_pattern(
            &$self,
            n_inputs: usize,
        ) -> $crate::error::Result<Option<Vec<Vec<bool>>>> {
            Ok(Some((0..n_inputs).map(|i| vec![i < $n_values]).collect()))
        }

        fn pullback(
            &$self,
            $g: &mut $crate::graph::Graph,
            $node: $crate::graph::NodeId,
            output_grads: &[$crate::graph::VarId],
        ) -> $crate::error::Result<Vec<$crate::graph::VarId>> {
            let $gz = output_grads[0];
            $pullback
        }

        fn pushforward(
            &$self,
            g: &mut $crate::graph::Graph,
            node: $crate::graph::NodeId,
            tangents: &[Option<$crate::graph::VarId>],
        ) -> $crate::error::Result<Option<Vec<Option<$crate::graph::VarId>>>> {
            $crate::ops::subtensor_grad::linear_pushforward(g, node, tangents, $n_values)
        }
    };
}
pub(crate) use index_grads;

/// The gradient methods of a reading op (`x[idx]`): only `x` is connected.
macro_rules! read_grads {
    () => {
        $crate::ops::subtensor_grad::index_grads!(self, 1, g, node, gz => {
            $crate::ops::subtensor_grad::subtensor_pullback(g, node, gz)
        });
    };
}
pub(crate) use read_grads;

/// The gradient methods of a writing op (`set_subtensor`/`inc_subtensor`
/// with a `set_instead_of_inc` field): `x` and `y` are connected.
macro_rules! write_grads {
    () => {
        $crate::ops::subtensor_grad::index_grads!(self, 2, g, node, gz => {
            let set = self.set_instead_of_inc;
            $crate::ops::subtensor_grad::inc_pullback(g, node, gz, set)
        });
    };
}
pub(crate) use write_grads;
