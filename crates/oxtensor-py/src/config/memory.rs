//! `_core._alloc_stats`: the core's count of tensor buffers made
//! (`oxtensor_core::tensor::alloc_stats`), for benchmarks that print the
//! memory a call takes.

use oxtensor_core::tensor::alloc_stats::{alloc_stats, live_bytes, reset_largest, reset_peak};
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

/// `(live, peak)`: bytes of the core's tensor buffers alive now, and the
/// most alive at once since the last reset (`reset_peak` starts that
/// watermark again from what is alive, after reading it).
#[pyfunction]
#[pyo3(signature = (reset_peak = false))]
pub fn _live_bytes(reset_peak: bool) -> (u64, u64) {
    let now = live_bytes();
    if reset_peak {
        self::reset_peak();
    }
    now
}
