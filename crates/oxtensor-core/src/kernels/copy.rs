//! Copying tensors into C-contiguous memory, whatever their strides.

use super::iter::Nest;
use crate::tensor::{c_strides, Tensor};

/// `t` itself when already C-contiguous, else a C-contiguous copy.
pub fn to_contiguous(t: &Tensor) -> Tensor {
    if t.is_c_contiguous() {
        return t.clone();
    }
    copy_contiguous(t)
}

/// A C-contiguous copy of `t` (always a new buffer).
pub fn copy_contiguous(t: &Tensor) -> Tensor {
    let mut out = Tensor::zeros(t.dtype(), t.shape());
    copy_into(t, &mut out);
    out
}

/// Copies `src` into `dst` (same shape; `dst` C-contiguous and unique).
pub fn copy_into(src: &Tensor, dst: &mut Tensor) {
    let size = src.dtype().itemsize();
    let shape = src.shape().to_vec();
    let nest = Nest::new(
        &shape,
        [src.strides().into(), c_strides(src.dtype(), &shape)],
    );
    let ps = src.as_ptr();
    let pd = dst
        .buffer()
        .as_mut_ptr()
        .expect("copy destinations are fresh Rust buffers");
    nest.for_each_run(|[os, od], n, [ss, sd]| {
        for i in 0..n as isize {
            // SAFETY: offsets come from the nest over both checked layouts;
            // element ranges of `size` bytes never overlap (distinct buffers).
            unsafe {
                std::ptr::copy_nonoverlapping(ps.offset(os + i * ss), pd.offset(od + i * sd), size)
            };
        }
    });
}
