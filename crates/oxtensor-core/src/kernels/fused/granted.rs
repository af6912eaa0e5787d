//! A fused node that destroys an input (`Elemwise(Composite)` with an
//! inplace pattern) writing one of its outputs into that input's buffer
//! (`kernels/alloc/granted.rs`). Block by block (outputs of more than a block),
//! each block's operands are read, and the block computed in scratch,
//! before the block is copied into the outputs, the granted one among them:
//! the input is read at each position before that position is overwritten.
//! In one pass (a block or less), only for a single output that is the
//! last instruction, so that every other instruction has read the input
//! already; the per-element path (`kernels/fused/tiny.rs`) runs chains in
//! place in its output and is not used.

use super::plan::FusedKernel;
use super::walk::{compact, BLOCK};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::kernels::elemwise::overwrites_in_one_pass;
use crate::tensor::Tensor;
use smallvec::SmallVec;

impl FusedKernel {
    /// Runs the program on `inputs`, output `at` into `out` (C-contiguous,
    /// the buffer of an input the node destroys) and the others into fresh
    /// arrays: all the outputs, `out` at `at`, or `None` when nothing was
    /// written (run [`FusedKernel::run`] instead).
    pub fn run_granted(
        &self,
        inputs: &[&Tensor],
        pool: &mut Pool,
        out: Tensor,
        at: usize,
    ) -> Result<Option<SmallVec<[Tensor; 2]>>> {
        if self.sum.is_some() || at >= self.outputs.len() || out.dtype() != self.dtype {
            return Ok(None);
        }
        let Some(shape) = self.out_shape(inputs) else {
            return Ok(None);
        };
        if shape.as_slice() != out.shape() {
            return Ok(None);
        }
        self.with_leaves(inputs, pool, |leaves, pool| {
            self.write_granted(leaves, &shape, pool, out, at)
        })?
    }

    fn write_granted(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
        out: Tensor,
        at: usize,
    ) -> Result<Option<SmallVec<[Tensor; 2]>>> {
        if self.out_order(leaves, shape).is_some() {
            return Ok(None);
        }
        let total = shape.iter().product::<usize>();
        if total > BLOCK {
            let mut copies = SmallVec::new();
            let leaves = compact(leaves, shape, &mut copies)?;
            let mut granted = Some(out);
            let mut outs = (0..self.outputs.len())
                .map(|j| match granted.take_if(|_| j == at) {
                    Some(t) => Ok(t),
                    None => pool.take(self.dtype, shape),
                })
                .collect::<Result<SmallVec<[Tensor; 2]>>>()?;
            match self.dtype {
                DType::Float32 => self.run_blocks::<f32>(&leaves, &mut outs)?,
                _ => self.run_blocks::<f64>(&leaves, &mut outs)?,
            }
            return Ok(Some(outs));
        }
        if self.outputs.len() != 1 {
            return Ok(None);
        }
        let last = self.instrs.len().checked_sub(1);
        let one_pass = self
            .instrs
            .last()
            .is_some_and(|ins| overwrites_in_one_pass(ins.kind));
        if last.is_none() || self.outputs.first().copied() != last || !one_pass {
            return Ok(None);
        }
        let mut scratch: Vec<Tensor> = (1..self.instrs.len())
            .map(|_| pool.take(self.dtype, shape))
            .collect::<Result<_>>()?;
        scratch.push(out);
        let done = self.run_into(leaves, &mut scratch);
        let out = scratch.pop();
        scratch.into_iter().for_each(|t| pool.recycle(t));
        done.map(|()| out.map(|t| smallvec::smallvec![t]))
    }
}
