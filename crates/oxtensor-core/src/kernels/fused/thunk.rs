//! The fused kernel as the VM runs it: the thunk an `Elemwise(Composite)`
//! node (or a `CAReduce` with a composite pre-map) makes at link time, its
//! program planned once for the node's types.

use super::plan::FusedKernel;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::kernels::cast::cast;
use crate::tensor::Tensor;
use crate::value::Value;
use crate::vm::Thunk;
use smallvec::SmallVec;

/// A node's fused kernel.
pub struct FusedThunk {
    kernel: FusedKernel,
}

impl FusedThunk {
    /// The thunk running `kernel`.
    pub fn new(kernel: FusedKernel) -> FusedThunk {
        FusedThunk { kernel }
    }
}

impl Thunk for FusedThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        let tensors = inputs
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<SmallVec<[&Tensor; 4]>>>()?;
        let outs = self.kernel.run(&tensors, pool)?;
        for (slot, t) in outputs.iter_mut().zip(outs) {
            *slot = Some(t.into());
        }
        Ok(())
    }

    /// A constant input of another real dtype, converted once (the kernel
    /// would convert it to its dtype on every call, the same way).
    fn prepare_constant(&self, input: usize, value: &Value) -> Option<Value> {
        let _ = input;
        let t = value.tensor().ok()?;
        let dtype = self.kernel.dtype;
        if t.dtype() == dtype || t.dtype().is_complex() {
            return None;
        }
        cast(t, dtype).ok().map(Value::from)
    }
}
