//! A process-wide count of the buffers Rust makes for tensors (every
//! [`super::Buffer::zeroed`] / [`super::Buffer::uninit`]), so a benchmark
//! or a test can tell how much memory a call of a compiled function takes
//! beyond what its pool recycles: the buffers made, their bytes, the bytes
//! that came fresh from the allocator (not from `spare.rs`'s kept
//! allocations) and the largest buffer made since the last reset. Also
//! the bytes of Rust-owned buffers alive now and their high-water mark
//! since the last reset: what a call needs at once, pools included (an
//! inplace chain's intermediates share one array; without inplace the
//! chain holds two). Relaxed atomics: a few nanoseconds beside an
//! allocation, and the totals are read between calls.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static BUFFERS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static FRESH_BYTES: AtomicU64 = AtomicU64::new(0);
static LARGEST: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

/// The totals since the process started (`largest`: since the last
/// [`reset_largest`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// Buffers made.
    pub buffers: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The bytes the system allocator gave (the rest were kept allocations).
    pub fresh_bytes: u64,
    /// The largest buffer made, in bytes.
    pub largest: u64,
}

/// Counts a buffer of `len` bytes; `fresh` when the allocator gave it.
pub(super) fn record(len: usize, fresh: bool) {
    let len = len as u64;
    BUFFERS.fetch_add(1, Relaxed);
    BYTES.fetch_add(len, Relaxed);
    if fresh {
        FRESH_BYTES.fetch_add(len, Relaxed);
    }
    LARGEST.fetch_max(len, Relaxed);
    let live = LIVE.fetch_add(len, Relaxed) + len;
    PEAK.fetch_max(live, Relaxed);
}

/// Counts a Rust-owned buffer of `len` bytes gone (dropped, whether its
/// allocation is freed or kept for reuse).
pub(super) fn release(len: usize) {
    LIVE.fetch_sub(len as u64, Relaxed);
}

/// `(live, peak)`: bytes of Rust-owned tensor buffers alive now, and the
/// most alive at once since the last [`reset_peak`].
pub fn live_bytes() -> (u64, u64) {
    (LIVE.load(Relaxed), PEAK.load(Relaxed))
}

/// Starts the high-water mark again from what is alive now.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

/// The totals now.
pub fn alloc_stats() -> AllocStats {
    AllocStats {
        buffers: BUFFERS.load(Relaxed),
        bytes: BYTES.load(Relaxed),
        fresh_bytes: FRESH_BYTES.load(Relaxed),
        largest: LARGEST.load(Relaxed),
    }
}

/// Starts the largest-buffer watermark again from zero.
pub fn reset_largest() {
    LARGEST.store(0, Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Buffer;

    #[test]
    fn buffers_made_are_counted() {
        let before = alloc_stats();
        let b = Buffer::uninit(1000).unwrap();
        let z = Buffer::zeroed(24).unwrap();
        let after = alloc_stats();
        // Other tests allocate concurrently: at least ours are counted.
        assert!(after.buffers >= before.buffers + 2);
        assert!(after.bytes >= before.bytes + 1024);
        assert!(after.largest >= 1000);
        drop((b, z));
    }

    #[test]
    fn live_bytes_fall_when_buffers_go() {
        // Other tests allocate concurrently, so only bounds hold: a
        // 1 MiB buffer is in the peak while it lives.
        reset_peak();
        let b = Buffer::uninit(1 << 20).unwrap();
        let (live, peak) = live_bytes();
        assert!(live >= 1 << 20 && peak >= live);
        drop(b);
        assert!(live_bytes().1 >= 1 << 20);
    }
}
