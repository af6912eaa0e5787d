//! The fused kernel as the VM runs it: the thunk an `Elemwise(Composite)`
//! node (or a `CAReduce` with a composite pre-map) makes at link time, its
//! program planned once for the node's types.

use super::plan::FusedKernel;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::kernels::elemwise::cast::cast;
use crate::tensor::Tensor;
use crate::value::Value;
use crate::vm::Thunk;
use smallvec::SmallVec;

/// A node's fused kernel.
pub struct FusedThunk {
    kernel: FusedKernel,
    /// The input the node destroys (its inplace pattern), whose buffer the
    /// output goes into when the program grants it (`kernels/alloc/granted.rs`).
    destroys: Option<usize>,
}

impl FusedThunk {
    /// The thunk running `kernel`.
    pub fn new(kernel: FusedKernel) -> FusedThunk {
        FusedThunk {
            kernel,
            destroys: None,
        }
    }

    /// The thunk of a node whose output overwrites input `i`.
    pub fn destroying(mut self, i: Option<usize>) -> FusedThunk {
        self.destroys = i;
        self
    }

    /// The output written into the destroyed input's granted buffer, if
    /// the program granted it and the kernel could.
    fn run_destroying(&self, tensors: &[&Tensor], pool: &mut Pool) -> Result<Option<Tensor>> {
        let Some(x) = self.destroys.and_then(|i| tensors.get(i)) else {
            return Ok(None);
        };
        let Some(granted) = pool.take_grant(x) else {
            return Ok(None);
        };
        let (target, writer) = granted.into_parts();
        let written = self.kernel.run_granted(tensors, pool, writer)?;
        Ok(written.then_some(target))
    }
}

impl Thunk for FusedThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        let tensors = inputs
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<SmallVec<[&Tensor; 4]>>>()?;
        if let Some(t) = self.run_destroying(&tensors, pool)? {
            outputs[0] = Some(t.into());
            return Ok(());
        }
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
