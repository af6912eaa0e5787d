//! `vectorize_node`: one node rebuilt for batched inputs, by its op's rule
//! (PyTensor's `_vectorize_node` dispatch). Ops that broadcast or take axes
//! keep their class with the batch axes added (`Elemwise`, `DimShuffle`,
//! `CAReduce`, `Argmax`, `Softmax`, `Matmul`, `Blockwise`, `Shape_i`, `Subtensor` of a
//! batched tensor, `AdvancedSubtensor` of one with adjacent index arrays);
//! the shape ops have rules of their own (`shape_rules.rs`); a host op asks
//! the host first; every other op becomes a `Blockwise` of itself.

use super::VectorizeHost;
use crate::bail;
use crate::error::{Error, Result};
use crate::graph::{Graph, Node, NodeId, VarId};
use crate::ops::advanced_subtensor::{AdvancedSubtensor, AdvancedSubtensor1};
use crate::ops::argmax::Argmax;
use crate::ops::blockwise::{self, pad_left, Blockwise, Signature};
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::elemwise::Elemwise;
use crate::ops::matmul::Matmul;
use crate::ops::reduce::CAReduce;
use crate::ops::shape::ShapeI;
use crate::ops::softmax::Softmax;
use crate::ops::subtensor::Subtensor;
use crate::ops::OpRef;
use crate::tensor::index::IdxEntry;
use crate::types::Type;
use std::sync::Arc;

/// `node` rebuilt on `inputs` (each the batched form of the node's input
/// at the same position). Inputs that gained no axes give the same op on
/// the new inputs.
pub fn vectorize_node(
    g: &mut Graph,
    node: NodeId,
    inputs: &[VarId],
    host: Option<&mut (dyn VectorizeHost + '_)>,
) -> Result<Vec<VarId>> {
    let n = g.node(node).clone();
    let batch = batch_ndims(g, &n, inputs)?;
    let nb = batch.iter().copied().max().unwrap_or(0);
    if let Some(outs) = super::shape_rules::rule(g, &n, inputs, &batch)? {
        return Ok(outs);
    }
    if nb == 0 {
        return apply(g, n.op.clone(), inputs);
    }
    if n.op.is_host() {
        if let Some(outs) = host
            .map(|h| h.vectorize_node(g, node, inputs))
            .transpose()?
            .flatten()
        {
            return Ok(outs);
        }
        return fallback(g, &n, inputs);
    }
    if let Some(outs) = same_class(g, &n, inputs, &batch, nb)? {
        return Ok(outs);
    }
    fallback(g, &n, inputs)
}

/// How many leading axes each input gained (0 for non-tensors).
fn batch_ndims(g: &Graph, n: &Node, inputs: &[VarId]) -> Result<Vec<usize>> {
    if inputs.len() != n.inputs.len() {
        bail!(Value: "vectorize_node: {} has {} inputs, got {}",
              n.op.describe(), n.inputs.len(), inputs.len());
    }
    n.inputs
        .iter()
        .zip(inputs)
        .map(|(&old, &new)| {
            let (o, b) = (&g.try_var(old)?.ty, &g.try_var(new)?.ty);
            match (o.as_tensor(), b.as_tensor()) {
                (Some(o), Some(b)) if b.ndim() >= o.ndim() => Ok(b.ndim() - o.ndim()),
                (Some(o), Some(b)) => bail!(Value: "vectorize_node: the batched input of {} \
                    has {} dims, fewer than the original's {}", n.op.describe(), b.ndim(), o.ndim()),
                _ => Ok(0),
            }
        })
        .collect()
}

/// The rules that keep the op's class: the batch axes join in front.
fn same_class(
    g: &mut Graph,
    n: &Node,
    inputs: &[VarId],
    batch: &[usize],
    nb: usize,
) -> Result<Option<Vec<VarId>>> {
    let any = n.op.as_any();
    if any.is::<Elemwise>() || any.is::<Matmul>() {
        let padded = pad_all(g, inputs, batch, nb)?;
        return apply(g, n.op.clone(), &padded).map(Some);
    }
    if let Some(b) = any.downcast_ref::<Blockwise>() {
        return blockwise::apply(g, b.clone(), inputs).map(Some);
    }
    // A reduction's axes, past the batch axes.
    let shifted = |axes: Vec<usize>| axes.into_iter().map(|a| a + nb).collect();
    let op: OpRef = if let Some(d) = any.downcast_ref::<DimShuffle>() {
        let order = (0..nb)
            .map(Some)
            .chain(d.new_order.iter().map(|a| a.map(|i| i + nb)));
        Arc::new(DimShuffle::new(d.input_ndim + nb, order.collect())?)
    } else if let Some(r) = any.downcast_ref::<CAReduce>() {
        Arc::new(CAReduce {
            axis: Some(shifted(r.axes(old_ndim(g, n)?))),
            ..r.clone()
        })
    } else if let Some(a) = any.downcast_ref::<Argmax>() {
        let axis = Some(shifted(a.axes(old_ndim(g, n)?)));
        Arc::new(Argmax { axis })
    } else if let Some(s) = any
        .downcast_ref::<Subtensor>()
        .filter(|_| batch[1..].iter().all(|&b| b == 0))
    {
        // Only the indexed tensor is batched: full slices over the batch.
        let entries = std::iter::repeat_n(IdxEntry::FULL, nb).chain(s.idx_list.iter().copied());
        Arc::new(Subtensor::new(entries.collect())?)
    } else if let Some(entries) = advanced_entries(n, batch) {
        // Only the indexed tensor is batched and the index arrays are
        // adjacent: full slices over the batch keep NumPy's placement of
        // the arrays' axes (separated arrays would move to the front).
        let entries = std::iter::repeat_n(IdxEntry::FULL, nb).chain(entries);
        Arc::new(AdvancedSubtensor::new(entries.collect())?)
    } else if let Some(s) = any.downcast_ref::<ShapeI>() {
        // A core length is the same for every batch entry: one scalar.
        Arc::new(ShapeI { i: s.i + nb })
    } else if let Some(s) = any.downcast_ref::<Softmax>() {
        // `None` (all the core elements) becomes the core axes, as PyTensor's.
        let axes = match &s.axis {
            Some(axes) => axes.iter().map(|a| a + nb).collect(),
            None => (nb..nb + old_ndim(g, n)?).collect(),
        };
        Arc::new(Softmax {
            axis: Some(axes),
            ..s.clone()
        })
    } else {
        return Ok(None);
    };
    apply(g, op, inputs).map(Some)
}

/// The index entries of an advanced indexing node whose indices are not
/// batched and whose arrays are adjacent (`x[:, v, w]`, not `x[v, :, w]`).
fn advanced_entries(n: &Node, batch: &[usize]) -> Option<Vec<IdxEntry>> {
    if batch[1..].iter().any(|&b| b != 0) {
        return None;
    }
    let any = n.op.as_any();
    let entries = if any.is::<AdvancedSubtensor1>() {
        vec![IdxEntry::Index(0)]
    } else {
        any.downcast_ref::<AdvancedSubtensor>()?.idx_list.clone()
    };
    let arrays: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, IdxEntry::Index(_)))
        .map(|(k, _)| k)
        .collect();
    let adjacent = arrays.windows(2).all(|w| w[1] == w[0] + 1);
    adjacent.then_some(entries)
}

/// The rank of a one-input node's input.
fn old_ndim(g: &Graph, n: &Node) -> Result<usize> {
    let ty = &g.try_var(n.inputs[0])?.ty;
    Ok(ty.expect_tensor("The input")?.ndim())
}

/// Each input left-padded to the full batch rank.
fn pad_all(g: &mut Graph, inputs: &[VarId], batch: &[usize], nb: usize) -> Result<Vec<VarId>> {
    inputs
        .iter()
        .zip(batch)
        .map(|(&v, &b)| {
            let nd = g.try_var(v)?.ty.as_tensor().map_or(0, |t| t.ndim());
            pad_left(g, v, nd, nb - b)
        })
        .collect()
}

/// `Blockwise(op, signature)` on the batched inputs: the op's own
/// signature when it states one that fits the node, else one from the
/// node's ranks.
fn fallback(g: &mut Graph, n: &Node, inputs: &[VarId]) -> Result<Vec<VarId>> {
    let ranks = |vars: &[VarId]| -> Result<Vec<usize>> {
        vars.iter()
            .map(|&v| match &g.try_var(v)?.ty {
                Type::Tensor(t) => Ok(t.ndim()),
                other => Err(Error::NotImplemented(format!(
                    "Cannot vectorize node {} with input {} of type {other:?}: Blockwise \
                     takes tensors only",
                    n.op.describe(),
                    g.describe_var(v)
                ))),
            })
            .collect()
    };
    let (ins, outs) = (ranks(&n.inputs)?, ranks(&n.outputs)?);
    let stated = n.op.gufunc_signature().map(Signature::parse).transpose()?;
    let signature = stated
        .filter(|s| s.input_ndims() == ins && s.output_ndims() == outs)
        .unwrap_or_else(|| Signature::from_ndims(&ins, &outs));
    blockwise::apply(g, Blockwise::new(n.op.clone(), signature)?, inputs)
}

/// `op` applied to `inputs`, all its outputs.
fn apply(g: &mut Graph, op: OpRef, inputs: &[VarId]) -> Result<Vec<VarId>> {
    let node = g.apply(op, inputs)?;
    Ok(g.node(node).outputs.clone())
}
