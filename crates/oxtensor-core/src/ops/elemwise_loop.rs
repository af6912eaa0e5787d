//! `Elemwise(ScalarLoop)` writing into the inputs it destroys: the loop
//! kernel (`kernels/fused/scalar_loop.rs`) computes fresh outputs, copied
//! into granted input buffers afterwards.

use crate::error::Result;
use crate::kernels::fused::interpret;
use crate::ops::elemwise::Elemwise;
use crate::ops::PerformCtx;

impl Elemwise {
    /// A loop's outputs, each one of `inplace_pattern` copied into the
    /// input it destroys when the program granted that buffer: the loop
    /// kernel reads its inputs into its own packed arrays first, so the
    /// inputs may be overwritten once it is done.
    pub(super) fn loop_into_granted(
        &self,
        ctx: &mut PerformCtx<'_>,
        tensors: &[&crate::tensor::Tensor],
    ) -> Result<Option<smallvec::SmallVec<[crate::tensor::Tensor; 2]>>> {
        if self.inplace_pattern.is_empty() {
            return Ok(None);
        }
        let mut outs =
            interpret::evaluate(&self.scalar_op, tensors, ctx.input_bcast, &[], ctx.pool)?;
        for &(o, i) in &self.inplace_pattern {
            let (Some(out), Some(x)) = (outs.get(o), tensors.get(i)) else {
                continue;
            };
            if out.shape() != x.shape() || out.dtype() != x.dtype() {
                continue;
            }
            let copy = |w: &mut crate::tensor::Tensor| crate::kernels::copy::copy_into(out, w);
            if let Some(written) = ctx.pool.overwrite_granted(x, copy)? {
                outs[o] = written;
            }
        }
        Ok(Some(outs))
    }
}
