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
    /// The output and the input it destroys (the first pair of the
    /// inplace pattern): the output goes into the input's buffer when the
    /// program grants it (`kernels/alloc/granted.rs`).
    destroys: Option<(usize, usize)>,
}

impl FusedThunk {
    /// The thunk running `kernel`.
    pub fn new(kernel: FusedKernel) -> FusedThunk {
        FusedThunk {
            kernel,
            destroys: None,
        }
    }

    /// The thunk of a node whose output `pair.0` overwrites input `pair.1`.
    pub fn destroying(mut self, pair: Option<(usize, usize)>) -> FusedThunk {
        self.destroys = pair;
        self
    }

    /// The outputs, the destroying one written into the destroyed input's
    /// granted buffer, if the program granted it and the kernel could.
    fn run_destroying(
        &self,
        tensors: &[&Tensor],
        pool: &mut Pool,
    ) -> Result<Option<SmallVec<[Tensor; 2]>>> {
        let Some((at, x)) = self
            .destroys
            .and_then(|(at, i)| Some((at, tensors.get(i)?)))
        else {
            return Ok(None);
        };
        let Some(granted) = pool.take_grant(x) else {
            return Ok(None);
        };
        let (target, writer) = granted.into_parts();
        let written = self.kernel.run_granted(tensors, pool, writer, at)?;
        Ok(written.map(|mut outs| {
            // The writer (dropped here) and the target are one memory.
            outs[at] = target;
            outs
        }))
    }
}

impl Thunk for FusedThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        let tensors = inputs
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<SmallVec<[&Tensor; 4]>>>()?;
        let outs = match self.run_destroying(&tensors, pool)? {
            Some(outs) => outs,
            None => self.kernel.run(&tensors, pool)?,
        };
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
