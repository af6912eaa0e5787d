//! `_core._alloc_stats`: the core's count of tensor buffers made
//! (`oxtensor_core::tensor::alloc_stats`), for benchmarks that print the
//! memory a call takes.

use oxtensor_core::tensor::alloc_stats::{alloc_stats, reset_largest};
use pyo3::prelude::*;

/// `(buffers, bytes, fresh_bytes, largest)` made since the process
/// started (`largest` since the last reset); `reset_largest` starts that
/// watermark again after reading it.
#[pyfunction]
#[pyo3(signature = (reset_largest = false))]
pub fn _alloc_stats(reset_largest: bool) -> (u64, u64, u64, u64) {
    let s = alloc_stats();
    if reset_largest {
        self::reset_largest();
    }
    (s.buffers, s.bytes, s.fresh_bytes, s.largest)
}
