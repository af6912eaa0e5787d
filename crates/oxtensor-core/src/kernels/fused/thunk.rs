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
    /// The `(output, input)` pairs of the node's inplace pattern: each
    /// output goes into its input's buffer when the program grants it
    /// (`kernels/alloc/granted.rs`).
    destroys: Vec<(usize, usize)>,
}

impl FusedThunk {
    /// The thunk running `kernel`.
    pub fn new(kernel: FusedKernel) -> FusedThunk {
        FusedThunk {
            kernel,
            destroys: Vec::new(),
        }
    }

    /// The thunk of a node whose outputs overwrite inputs (`(output,
    /// input)` pairs, its inplace pattern).
    pub fn destroying(mut self, pattern: &[(usize, usize)]) -> FusedThunk {
        self.destroys = pattern.to_vec();
        self
    }
}

impl Thunk for FusedThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        let tensors = inputs
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<SmallVec<[&Tensor; 4]>>>()?;
        let outs = match self.kernel.run_destroying(&tensors, pool, &self.destroys)? {
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
