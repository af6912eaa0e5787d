//! Thunks: what the VM calls for one node.

use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::ops::ifelse::{IfElse, LazyStep};
use crate::ops::{OpRef, PerformCtx};
use crate::types::Type;
use crate::value::Value;

/// One node's computation. `outputs[i]` may hold the value of an earlier
/// call (for reuse); every output must be set on success.
pub trait Thunk: Send + Sync {
    /// Runs the node. Inputs are borrowed from wherever they live (the
    /// caller's arguments, constants, storage), so a call clones no value.
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()>;

    /// What the thunk would derive from constant input `input` on every
    /// call, computed once at link time; the program then passes that in
    /// the constant's place. `None`: pass the constant itself.
    fn prepare_constant(&self, input: usize, value: &Value) -> Option<Value> {
        let _ = (input, value);
        None
    }

    /// The input whose value the thunk may write its output into, when the
    /// program lends it (`vm/donation.rs`).
    fn overwritable_input(&self) -> Option<usize> {
        None
    }

    /// Whether the thunk reads bool input `input` as bytes, any nonzero
    /// byte meaning true, so the caller may pass host memory holding bytes
    /// other than 0 and 1 without converting it (`kernels/bool_ops.rs`).
    fn reads_bool_bytes(&self, input: usize) -> bool {
        let _ = input;
        false
    }

    /// Whether this thunk runs host code (e.g. Python) rather than native code.
    fn is_host(&self) -> bool {
        false
    }

    /// Whether the thunk is lazy: it may run before all its inputs exist,
    /// saying which ones it needs (see [`Thunk::run_lazy`]).
    fn is_lazy(&self) -> bool {
        false
    }

    /// A lazy thunk's step: given the inputs computed so far, set the
    /// outputs, or name the inputs to compute first.
    fn run_lazy(
        &self,
        inputs: &[Option<&Value>],
        outputs: &mut [Option<Value>],
        pool: &mut Pool,
    ) -> Result<LazyStep> {
        strict_step(self, inputs, outputs, pool)
    }
}

/// A strict thunk in a lazy run: it needs every input, then runs.
fn strict_step<T: Thunk + ?Sized>(
    thunk: &T,
    inputs: &[Option<&Value>],
    outputs: &mut [Option<Value>],
    pool: &mut Pool,
) -> Result<LazyStep> {
    let missing: Vec<usize> = inputs
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_none())
        .map(|(i, _)| i)
        .collect();
    if !missing.is_empty() {
        return Ok(LazyStep::Need(missing));
    }
    let values: Vec<&Value> = inputs.iter().flatten().copied().collect();
    thunk.run(&values, outputs, pool).map(|()| LazyStep::Done)
}

/// A node's types as a thunk keeps them, for the [`PerformCtx`] of each
/// call (the broadcastable flags computed once, at link time).
pub(crate) struct NodeTypes {
    pub(crate) input_types: Vec<Type>,
    pub(crate) output_types: Vec<Type>,
    input_bcast: Vec<Vec<bool>>,
}

impl NodeTypes {
    pub(crate) fn new(input_types: Vec<Type>, output_types: Vec<Type>) -> Self {
        let input_bcast = PerformCtx::broadcastable(&input_types);
        NodeTypes {
            input_types,
            output_types,
            input_bcast,
        }
    }

    /// The context of one call, allocating from `pool`.
    pub(crate) fn ctx<'a>(&'a self, pool: &'a mut Pool) -> PerformCtx<'a> {
        PerformCtx {
            input_types: &self.input_types,
            output_types: &self.output_types,
            input_bcast: &self.input_bcast,
            pool,
        }
    }
}

/// The thunk of a built-in op: its `perform`.
pub struct OpThunk {
    op: OpRef,
    types: NodeTypes,
}

impl OpThunk {
    /// A thunk for a node with these input and output types.
    pub fn new(op: OpRef, input_types: Vec<Type>, output_types: Vec<Type>) -> Self {
        let types = NodeTypes::new(input_types, output_types);
        OpThunk { op, types }
    }
}

impl Thunk for OpThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        self.op.perform(&mut self.types.ctx(pool), inputs, outputs)
    }

    fn prepare_constant(&self, input: usize, value: &Value) -> Option<Value> {
        self.op.prepare_constant(
            input,
            value,
            &self.types.input_types,
            &self.types.output_types,
        )
    }

    fn is_lazy(&self) -> bool {
        self.op.as_any().is::<IfElse>()
    }

    fn overwritable_input(&self) -> Option<usize> {
        self.op.overwritable_input()
    }

    fn reads_bool_bytes(&self, input: usize) -> bool {
        self.op
            .reads_bool_bytes(input, &self.types.input_types, &self.types.output_types)
    }

    fn run_lazy(
        &self,
        inputs: &[Option<&Value>],
        outputs: &mut [Option<Value>],
        pool: &mut Pool,
    ) -> Result<LazyStep> {
        if let Some(op) = self.op.as_any().downcast_ref::<IfElse>() {
            return op.step(inputs, outputs);
        }
        strict_step(self, inputs, outputs, pool)
    }
}
