//! Output allocation: fresh buffers, or buffers recycled from values that
//! died earlier (a pool keyed by size), so long chains do not allocate.

use crate::dtype::DType;
use crate::tensor::{c_strides, Buffer, Tensor};
use std::collections::HashMap;
use std::sync::Arc;

/// Recycled buffers, by byte length.
#[derive(Default, Debug)]
pub struct Pool {
    free: HashMap<usize, Vec<Arc<Buffer>>>,
}

impl Pool {
    /// Keeps a dead value's buffer if nobody else can see it.
    pub fn recycle(&mut self, t: Tensor) {
        let buf = t.buffer().clone();
        drop(t);
        if Arc::strong_count(&buf) == 1 && buf.is_rust_owned() && buf.as_mut_ptr().is_some() {
            self.free.entry(buf.len()).or_default().push(buf);
        }
    }

    /// A C-contiguous tensor whose contents are unspecified.
    pub fn take(&mut self, dtype: DType, shape: &[usize]) -> Tensor {
        let len = shape.iter().product::<usize>() * dtype.itemsize();
        match self.free.get_mut(&len).and_then(Vec::pop) {
            Some(buf) => Tensor::from_parts(dtype, shape.into(), c_strides(dtype, shape), 0, buf)
                .expect("a pooled buffer of the right length fits a C-contiguous view"),
            None => Tensor::zeros(dtype, shape),
        }
    }

    /// Number of pooled buffers (for tests).
    pub fn len(&self) -> usize {
        self.free.values().map(Vec::len).sum()
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A fresh output, taken from `pool` when one is given.
pub fn output(pool: Option<&mut Pool>, dtype: DType, shape: &[usize]) -> Tensor {
    match pool {
        Some(p) => p.take(dtype, shape),
        None => Tensor::zeros(dtype, shape),
    }
}
