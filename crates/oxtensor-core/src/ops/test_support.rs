//! Test-only helpers for op unit tests: running `perform` outside a graph.

use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::ops::{Op, PerformCtx};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// A tensor type of `dtype` with `ndim` axes of unknown length.
pub fn ty(dtype: DType, ndim: usize) -> Type {
    TensorType::new(dtype, vec![None; ndim]).unwrap().into()
}

/// `op.perform` on `inputs` with an empty context; the first output.
pub fn perform_first(op: &dyn Op, inputs: &[&Value]) -> Result<Tensor> {
    let mut pool = Pool::default();
    let (it, ot, bcast) = (vec![], vec![], vec![]);
    let mut ctx = PerformCtx {
        input_types: &it,
        output_types: &ot,
        input_bcast: &bcast,
        pool: &mut pool,
    };
    let mut out = vec![None];
    op.perform(&mut ctx, inputs, &mut out)?;
    Ok(out[0]
        .take()
        .expect("perform sets every output")
        .tensor()?
        .clone())
}

/// [`perform_first`] of a one-input `op` on `[[0, 1, 2], [3, 4, 5]]`
/// (float64) transposed, a (3, 2) view that is not C-contiguous: that
/// input and the output.
pub fn perform_on_transposed(op: &dyn Op) -> (Value, Tensor) {
    let t = Tensor::from_vec(vec![2, 3], (0..6).map(f64::from).collect()).unwrap();
    let tr: Value = t.view(&[3, 2], &[8, 24], 0).unwrap().into();
    let out = perform_first(op, &[&tr]).unwrap();
    (tr, out)
}
