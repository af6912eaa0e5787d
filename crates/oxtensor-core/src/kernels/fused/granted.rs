//! A fused node that destroys an input (`Elemwise(Composite)` with an
//! inplace pattern) writing its one output into that input's buffer
//! (`kernels/alloc/granted.rs`). Block by block (outputs of more than a block),
//! each block's operands are read, and the block computed in scratch,
//! before the block is copied into the output: the input is read at each
//! position before that position is overwritten. In one pass (a block or
//! less), only when the output is the last instruction, so that every
//! other instruction has read the input already; the per-element path
//! (`kernels/fused/tiny.rs`) runs chains in place in its output and is not used.

use super::plan::FusedKernel;
use super::walk::{compact, BLOCK};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::kernels::elemwise::overwrites_in_one_pass;
use crate::tensor::Tensor;
use smallvec::SmallVec;

impl FusedKernel {
    /// Runs the program on `inputs` into `out` (C-contiguous, the buffer
    /// of an input the node destroys); whether it did (`false`: nothing
    /// was written, run [`FusedKernel::run`] instead).
    pub fn run_granted(&self, inputs: &[&Tensor], pool: &mut Pool, out: Tensor) -> Result<bool> {
        if self.sum.is_some() || self.outputs.len() != 1 || out.dtype() != self.dtype {
            return Ok(false);
        }
        let Some(shape) = self.out_shape(inputs) else {
            return Ok(false);
        };
        if shape.as_slice() != out.shape() {
            return Ok(false);
        }
        self.with_leaves(inputs, pool, |leaves, pool| {
            self.write_granted(leaves, &shape, pool, out)
        })?
    }

    fn write_granted(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
        out: Tensor,
    ) -> Result<bool> {
        if self.out_order(leaves, shape).is_some() {
            return Ok(false);
        }
        let total = shape.iter().product::<usize>();
        if total > BLOCK {
            let mut copies = SmallVec::new();
            let leaves = compact(leaves, shape, &mut copies)?;
            let mut outs = [out];
            match self.dtype {
                DType::Float32 => self.run_blocks::<f32>(&leaves, &mut outs)?,
                _ => self.run_blocks::<f64>(&leaves, &mut outs)?,
            }
            return Ok(true);
        }
        let last = self.instrs.len().checked_sub(1);
        let one_pass = self
            .instrs
            .last()
            .is_some_and(|ins| overwrites_in_one_pass(ins.kind));
        if last.is_none() || self.outputs.first().copied() != last || !one_pass {
            return Ok(false);
        }
        let mut scratch: Vec<Tensor> = (1..self.instrs.len())
            .map(|_| pool.take(self.dtype, shape))
            .collect::<Result<_>>()?;
        scratch.push(out);
        let done = self.run_into(leaves, &mut scratch);
        scratch.pop();
        scratch.into_iter().for_each(|t| pool.recycle(t));
        done.map(|()| true)
    }
}
