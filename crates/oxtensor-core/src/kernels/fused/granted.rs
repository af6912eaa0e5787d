//! A fused node that destroys inputs (`Elemwise(Composite)` with an
//! inplace pattern) writing its outputs into those inputs' buffers
//! (`kernels/alloc/granted.rs`), every output the program granted a
//! buffer to. Block by block (outputs of more than a block), each block's
//! operands are read, and the block computed in scratch, before the block
//! is copied into the outputs, the granted ones among them: each input is
//! read at each position before that position is overwritten. In one pass
//! (a block or less), a single output that is the last instruction is
//! written straight into its buffer, every other instruction having read
//! the input already; otherwise the program runs whole in pooled scratch,
//! which is then copied into the granted buffers. The per-element path
//! (`kernels/fused/tiny.rs`) runs chains in place in its output and is not
//! used.

use super::plan::FusedKernel;
use super::run::Outputs;
use super::walk::{compact, BLOCK};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::kernels::copy::copy_into;
use crate::kernels::elemwise::overwrites_in_one_pass;
use crate::tensor::Tensor;
use smallvec::SmallVec;

/// Outputs to write into granted buffers: `(output, buffer)` pairs.
pub(crate) type GrantedOutputs = SmallVec<[(usize, Tensor); 2]>;

impl FusedKernel {
    /// The outputs, each `(output, input)` pair of `pattern` written into
    /// its input's buffer where the program granted it, the others into
    /// fresh arrays; `None` when nothing was granted or the kernel cannot
    /// write there (run [`FusedKernel::run`] instead: no input was touched).
    pub fn run_destroying(
        &self,
        inputs: &[&Tensor],
        pool: &mut Pool,
        pattern: &[(usize, usize)],
    ) -> Result<Option<Outputs>> {
        let mut targets: GrantedOutputs = SmallVec::new();
        let mut writers: GrantedOutputs = SmallVec::new();
        for &(at, i) in pattern {
            let Some(granted) = inputs.get(i).and_then(|x| pool.take_grant(x)) else {
                continue;
            };
            let (target, writer) = granted.into_parts();
            targets.push((at, target));
            writers.push((at, writer));
        }
        if writers.is_empty() {
            return Ok(None);
        }
        let written = self.run_granted(inputs, pool, writers)?;
        Ok(written.map(|mut outs| {
            // Each writer (dropped here) and its target are one memory.
            for (at, t) in targets {
                outs[at] = t;
            }
            outs
        }))
    }

    /// Runs the program on `inputs`, each output of `granted` into its
    /// buffer (C-contiguous, the buffer of an input the node destroys) and
    /// the others into fresh arrays: all the outputs, or `None`, having
    /// written nothing, when the kernel cannot.
    pub(crate) fn run_granted(
        &self,
        inputs: &[&Tensor],
        pool: &mut Pool,
        granted: GrantedOutputs,
    ) -> Result<Option<Outputs>> {
        let Some(shape) = self.out_shape(inputs) else {
            return Ok(None);
        };
        let n = self.outputs.len();
        let fits = granted.iter().enumerate().all(|(k, (at, t))| {
            *at < n
                && t.dtype() == self.dtype
                && t.shape() == shape.as_slice()
                && granted[..k].iter().all(|(a, _)| a != at)
        });
        if self.sum.is_some() || !fits {
            return Ok(None);
        }
        self.with_leaves(inputs, pool, |leaves, pool| {
            self.write_granted(leaves, &shape, pool, granted)
        })?
    }

    fn write_granted(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
        granted: GrantedOutputs,
    ) -> Result<Option<Outputs>> {
        if self.out_order(leaves, shape).is_some() {
            return Ok(None);
        }
        let total = shape.iter().product::<usize>();
        if total > BLOCK {
            return self.write_blocks(leaves, shape, pool, granted).map(Some);
        }
        let one_pass = self.one_pass_output(&granted);
        if !one_pass && self.ungranted_share_an_instruction(&granted) {
            return Ok(None);
        }
        // Scratch for every instruction but the last, from the pool.
        let mut scratch: Vec<Tensor> = (1..self.instrs.len())
            .map(|_| pool.take(self.dtype, shape))
            .collect::<Result<_>>()?;
        if one_pass {
            scratch.extend(granted.into_iter().map(|(_, t)| t));
            return self.write_one_pass(leaves, pool, scratch);
        }
        scratch.push(pool.take(self.dtype, shape)?);
        self.write_copied(leaves, pool, scratch, granted).map(Some)
    }

    /// The outputs block by block, the granted ones into their buffers.
    fn write_blocks(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
        granted: GrantedOutputs,
    ) -> Result<Outputs> {
        let mut copies = SmallVec::new();
        let leaves = compact(leaves, shape, &mut copies)?;
        let mut granted: SmallVec<[Option<(usize, Tensor)>; 2]> =
            granted.into_iter().map(Some).collect();
        let mut outs = (0..self.outputs.len())
            .map(|j| {
                let mine = granted
                    .iter_mut()
                    .find(|g| g.as_ref().is_some_and(|g| g.0 == j));
                match mine.and_then(Option::take) {
                    Some((_, t)) => Ok(t),
                    None => pool.take(self.dtype, shape),
                }
            })
            .collect::<Result<Outputs>>()?;
        match self.dtype {
            DType::Float32 => self.run_blocks::<f32>(&leaves, &mut outs)?,
            _ => self.run_blocks::<f64>(&leaves, &mut outs)?,
        }
        Ok(outs)
    }

    /// Whether the program's single output, granted, is its last
    /// instruction, of a kind that reads each position before writing it.
    fn one_pass_output(&self, granted: &GrantedOutputs) -> bool {
        let last = self.instrs.len().checked_sub(1);
        let one_pass = self
            .instrs
            .last()
            .is_some_and(|ins| overwrites_in_one_pass(ins.kind));
        granted.len() == 1
            && self.outputs.len() == 1
            && self.outputs.first().copied() == last
            && last.is_some()
            && one_pass
    }

    /// Whether two outputs without a granted buffer are computed by one
    /// instruction (one scratch tensor cannot be both).
    fn ungranted_share_an_instruction(&self, granted: &GrantedOutputs) -> bool {
        let ungranted: SmallVec<[usize; 2]> = (0..self.outputs.len())
            .filter(|&j| granted.iter().all(|(at, _)| *at != j))
            .map(|j| self.outputs[j])
            .collect();
        (1..ungranted.len()).any(|k| ungranted[..k].contains(&ungranted[k]))
    }

    /// The single output in one pass, its last instruction writing
    /// straight into the granted buffer (the last of `scratch`).
    fn write_one_pass(
        &self,
        leaves: &[&Tensor],
        pool: &mut Pool,
        mut scratch: Vec<Tensor>,
    ) -> Result<Option<Outputs>> {
        let done = self.run_into(leaves, &mut scratch);
        let out = scratch.pop();
        scratch.into_iter().for_each(|t| pool.recycle(t));
        done.map(|()| out.map(|t| smallvec::smallvec![t]))
    }

    /// The outputs in one pass into pooled `scratch`, every read done,
    /// then the granted outputs copied into their buffers; the other
    /// outputs are their scratch.
    fn write_copied(
        &self,
        leaves: &[&Tensor],
        pool: &mut Pool,
        mut scratch: Vec<Tensor>,
        granted: GrantedOutputs,
    ) -> Result<Outputs> {
        self.run_into(leaves, &mut scratch)?;
        let mut written: SmallVec<[Option<Tensor>; 2]> =
            (0..self.outputs.len()).map(|_| None).collect();
        for (at, mut t) in granted {
            copy_into(&scratch[self.outputs[at]], &mut t)?;
            written[at] = Some(t);
        }
        let mut taken: Vec<Option<Tensor>> = scratch.into_iter().map(Some).collect();
        let outs = written
            .into_iter()
            .enumerate()
            .filter_map(|(j, w)| w.or_else(|| taken[self.outputs[j]].take()))
            .collect();
        taken.into_iter().flatten().for_each(|t| pool.recycle(t));
        Ok(outs)
    }
}
