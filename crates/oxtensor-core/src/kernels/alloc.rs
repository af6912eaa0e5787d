//! Output allocation: fresh buffers, or buffers recycled from values that
//! died earlier (a pool keyed by size), so long chains do not allocate.

use crate::dtype::DType;
use crate::tensor::{Buffer, Tensor};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// Recycled buffers, by byte length.
#[derive(Default, Debug)]
pub struct Pool {
    free: HashMap<usize, Vec<Arc<Buffer>>, BuildHasherDefault<LenHasher>>,
}

/// Hashes a byte length by one multiplication: the pool is consulted for
/// every output of every call, where SipHash is a measurable part of the
/// cost of small calls, and lengths are not attacker-chosen keys.
#[derive(Default)]
struct LenHasher(u64);

impl Hasher for LenHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        // The product's high bits mix all of `n`; folding them down gives
        // the low bits (hashbrown's bucket index) that mix too, although
        // lengths are multiples of 8.
        let h = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
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
        self.free
            .get_mut(&len)
            .and_then(Vec::pop)
            .and_then(|buf| Tensor::contiguous_in(dtype, shape, buf))
            .unwrap_or_else(|| Tensor::zeros(dtype, shape))
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
