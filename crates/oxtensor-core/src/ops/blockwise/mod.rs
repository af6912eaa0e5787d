//! `Blockwise`: a core op applied over leading batch axes, as NumPy's
//! generalized ufuncs are (PyTensor's `tensor/blockwise.py`). The op's
//! signature names the core dims of each operand; every axis to their left
//! is a batch axis, broadcast across inputs (left-padded with length 1).
//! `vectorize_graph` (`build/vectorize/`) makes these for ops that have no
//! batched form of their own.

mod grad;
mod perform;
mod shape;
pub mod signature;
mod thunk;

pub use signature::Signature;

use crate::bail;
use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::elemwise::broadcast_shapes;
use crate::ops::{ops_equal, Dims, InferredShapes, Op, OpRef, Outs, PerformCtx};
use crate::types::{StaticShape, TensorType, Type};
use crate::value::Value;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

/// `Blockwise(core_op, signature)`.
#[derive(Clone, Debug)]
pub struct Blockwise {
    /// The op computed on each batch entry's core dims.
    pub core_op: OpRef,
    /// The core dims of each input and output.
    pub signature: Signature,
}

impl Blockwise {
    /// Wraps `core_op`, which must not be a `Blockwise` itself (a
    /// `Blockwise` already takes any number of batch axes).
    pub fn new(core_op: OpRef, signature: Signature) -> Result<Self> {
        if core_op.as_any().is::<Blockwise>() {
            bail!(Type: "Blockwise cannot wrap another Blockwise ({})", core_op.describe());
        }
        Ok(Blockwise { core_op, signature })
    }

    /// The batch rank of each input: its rank less its core rank. An input
    /// of too low a rank, or not a tensor, is a `TypeError` naming it.
    pub fn batch_ndims(&self, inputs: &[&Type]) -> Result<Vec<usize>> {
        let core = self.signature.input_ndims();
        if inputs.len() != core.len() {
            bail!(Type: "{} takes {} inputs, got {}", self.describe(), core.len(), inputs.len());
        }
        let mut out = Vec::with_capacity(inputs.len());
        for (i, (ty, &nd)) in inputs.iter().zip(&core).enumerate() {
            let ty = ty.expect_tensor(&format!("Input {i} of {}", self.describe()))?;
            if ty.ndim() < nd {
                bail!(Type: "Input {i} of {} has {} dims, fewer than its {nd} core dims \
                       (type {})", self.describe(), ty.ndim(), ty.repr());
            }
            out.push(ty.ndim() - nd);
        }
        Ok(out)
    }

    /// Each input's type with its batch axes dropped: what the core op sees.
    pub fn core_input_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let batch = self.batch_ndims(inputs)?;
        inputs
            .iter()
            .zip(batch)
            .map(|(ty, b)| {
                let t = ty.expect_tensor("A Blockwise input")?;
                Ok(TensorType::new(t.dtype, t.shape[b..].iter().copied())?.into())
            })
            .collect()
    }

    /// The core op's output types for these core input types, checked
    /// against the signature's ranks.
    pub fn core_output_types(&self, core_inputs: &[Type]) -> Result<Vec<TensorType>> {
        let refs: Vec<&Type> = core_inputs.iter().collect();
        let outs = self.core_op.output_types(&refs)?;
        let want = self.signature.output_ndims();
        if outs.len() != want.len() {
            bail!(Type: "{}: the core op gives {} outputs, the signature names {}",
                  self.describe(), outs.len(), want.len());
        }
        outs.iter()
            .zip(want)
            .map(|(ty, nd)| {
                let t = ty.expect_tensor("A Blockwise core output")?;
                if t.ndim() != nd {
                    bail!(Type: "{}: the core op's output {} has {} dims, the signature {nd}",
                          self.describe(), t.repr(), t.ndim());
                }
                Ok(t.clone())
            })
            .collect()
    }

    /// The static batch shape: every input's batch axes left-padded with
    /// length 1 to the longest and broadcast.
    pub fn batch_shape(&self, inputs: &[&Type]) -> Result<StaticShape> {
        let batch = self.batch_ndims(inputs)?;
        let nb = batch.iter().copied().max().unwrap_or(0);
        let padded: Vec<TensorType> = inputs
            .iter()
            .zip(&batch)
            .map(|(ty, &b)| {
                let t = ty.expect_tensor("A Blockwise input")?;
                let pad = std::iter::repeat_n(Some(1), nb - b);
                TensorType::new(t.dtype, pad.chain(t.shape[..b].iter().copied()))
            })
            .collect::<Result<_>>()?;
        let refs: Vec<&TensorType> = padded.iter().collect();
        broadcast_shapes(&refs).map_err(|_| {
            let shapes: Vec<String> = inputs
                .iter()
                .filter_map(|t| t.as_tensor().map(TensorType::repr_shape))
                .collect();
            Error::Value(format!(
                "Incompatible batch shapes for {}: {}",
                self.describe(),
                shapes.join(", ")
            ))
        })
    }

    /// Checks that core dims sharing a name have equal static lengths.
    fn check_core_dims(&self, core_inputs: &[Type]) -> Result<()> {
        let mut seen: Vec<(&str, u64, usize)> = Vec::new();
        for (i, (ty, names)) in core_inputs.iter().zip(&self.signature.inputs).enumerate() {
            let Some(t) = ty.as_tensor() else { continue };
            for (name, len) in names.iter().zip(&t.shape) {
                let Some(len) = *len else { continue };
                match seen.iter().find(|(n, _, _)| n == name) {
                    Some(&(_, l, j)) if l != len => bail!(Value:
                        "{}: core dim {name} is {l} in input {j} but {len} in input {i}",
                        self.describe()),
                    Some(_) => {}
                    None => seen.push((name, len, i)),
                }
            }
        }
        Ok(())
    }
}

impl PartialEq for Blockwise {
    fn eq(&self, other: &Self) -> bool {
        self.signature == other.signature && ops_equal(&self.core_op, &other.core_op)
    }
}

impl Op for Blockwise {
    fn name(&self) -> &str {
        "Blockwise"
    }

    /// PyTensor's `Blockwise{Dot, (m,n),(n)->(m)}`.
    fn describe(&self) -> String {
        format!(
            "Blockwise{{{}, {}}}",
            self.core_op.describe(),
            self.signature
        )
    }

    fn op_eq(&self, other: &dyn Op) -> bool {
        other
            .as_any()
            .downcast_ref::<Blockwise>()
            .is_some_and(|o| o == self)
    }

    fn op_hash(&self) -> u64 {
        let mut h = DefaultHasher::new();
        "Blockwise".hash(&mut h);
        self.core_op.op_hash().hash(&mut h);
        self.signature.hash(&mut h);
        h.finish()
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let batch = self.batch_shape(inputs)?;
        let core_inputs = self.core_input_types(inputs)?;
        self.check_core_dims(&core_inputs)?;
        self.core_output_types(&core_inputs)?
            .into_iter()
            .map(|t| {
                let shape = batch.iter().chain(&t.shape).copied();
                Ok(TensorType::new(t.dtype, shape)?.into())
            })
            .collect()
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        perform::perform(self, ctx, inputs, outputs, perform::Runner::Perform)
    }

    fn make_thunk(
        &self,
        input_types: &[Type],
        output_types: &[Type],
    ) -> Option<Box<dyn crate::vm::Thunk>> {
        thunk::make_thunk(self, input_types, output_types)
    }

    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        shape::infer_shape(self, g, node, input_shapes)
    }

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        grad::pullback(self, g, node, output_grads)
    }

    fn do_constant_folding(&self) -> Result<bool> {
        self.core_op.do_constant_folding()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A `Blockwise(op, signature)` node on `inputs`, each left-padded with
/// broadcastable axes to the longest batch rank (as PyTensor's `make_node`
/// does); returns all outputs.
pub fn apply(g: &mut Graph, op: Blockwise, inputs: &[VarId]) -> Result<Vec<VarId>> {
    let types: Vec<Type> = inputs
        .iter()
        .map(|&v| Ok(g.try_var(v)?.ty.clone()))
        .collect::<Result<_>>()?;
    let refs: Vec<&Type> = types.iter().collect();
    let batch = op.batch_ndims(&refs)?;
    let nb = batch.iter().copied().max().unwrap_or(0);
    let mut padded = Vec::with_capacity(inputs.len());
    for ((&v, ty), b) in inputs.iter().zip(&refs).zip(batch) {
        padded.push(pad_left(
            g,
            v,
            ty.expect_tensor("A Blockwise input")?.ndim(),
            nb - b,
        )?);
    }
    let node = g.apply(Arc::new(op), &padded)?;
    Ok(g.node(node).outputs.clone())
}

/// `v` (of rank `ndim`) with `n` new leading broadcastable axes.
pub fn pad_left(g: &mut Graph, v: VarId, ndim: usize, n: usize) -> Result<VarId> {
    if n == 0 {
        return Ok(v);
    }
    let order = DimShuffle::expand_left(ndim, ndim + n).new_order;
    build::dimshuffle(g, v, order)
}

#[cfg(test)]
mod tests;
