//! Signal processing loops: 1-d convolution (`convolve.rs`, direct sums)
//! and real FFTs over all but the first axis (`fft.rs`, through `realfft`
//! and `rustfft`). Inputs are cast to the float type they compute in
//! (float32 stays float32, everything else float64) and made contiguous.

mod convolve;
mod fft;

pub use convolve::convolve1d;
pub use fft::{irfftn, rfftn};

use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast::cast;
use crate::tensor::Tensor;

/// The float type a signal kernel computes in for output dtype `out`.
fn compute_dtype(out: DType) -> DType {
    if out == DType::Float32 {
        DType::Float32
    } else {
        DType::Float64
    }
}

/// `t` cast to `dtype`, C-contiguous.
fn contiguous_as(t: &Tensor, dtype: DType) -> Result<Tensor> {
    to_contiguous(&cast(t, dtype)?)
}
