//! Thunks: what the VM calls for one node.

use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::ops::{OpRef, PerformCtx};
use crate::types::Type;
use crate::value::Value;

/// One node's computation. `outputs[i]` may hold the value of an earlier
/// call (for reuse); every output must be set on success.
pub trait Thunk: Send + Sync {
    /// Runs the node.
    fn run(&self, inputs: &[Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()>;

    /// Whether this thunk runs host code (e.g. Python) rather than native code.
    fn is_host(&self) -> bool {
        false
    }
}

/// The thunk of a built-in op: its `perform`.
pub struct OpThunk {
    op: OpRef,
    input_types: Vec<Type>,
    output_types: Vec<Type>,
    input_bcast: Vec<Vec<bool>>,
}

impl OpThunk {
    /// A thunk for a node with these input and output types.
    pub fn new(op: OpRef, input_types: Vec<Type>, output_types: Vec<Type>) -> Self {
        let input_bcast = PerformCtx::broadcastable(&input_types);
        OpThunk {
            op,
            input_types,
            output_types,
            input_bcast,
        }
    }
}

impl Thunk for OpThunk {
    fn run(&self, inputs: &[Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        let mut ctx = PerformCtx {
            input_types: &self.input_types,
            output_types: &self.output_types,
            input_bcast: &self.input_bcast,
            pool,
        };
        self.op.perform(&mut ctx, inputs, outputs)
    }
}
