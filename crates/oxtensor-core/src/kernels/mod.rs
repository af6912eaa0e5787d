//! The numeric loops ops call: strided broadcasting iteration, copies and
//! casts, elementwise math for every dtype, reductions, and matrix products
//! (through faer, or a host BLAS when one is installed).
//!
//! # Rayon only where it pays
//!
//! Elementwise loops say what they cost
//! (`kernels::Work`): vmath's functions (`Heavy`) split across threads from
//! `PARALLEL_MIN` = 2^16 elements; arithmetic, comparisons, casts and bool ops
//! (`Light`, memory-bound) from `PARALLEL_BYTES` = 12 MiB read and written,
//! because waking the pool and waiting for it costs 10–20 µs per call on these
//! VMs (futex handoffs) and varies: one thread was faster for every such op up
//! to about 4 MiB (bool ops on 10^6 elements went from 0.35x to 0.6–0.7x NumPy;
//! `x + 1` on 10^5 from 0.85x to 1.0x), and from 8 to 12 MiB two threads gave
//! 0.7–1.9x from run to run where one gave a steady 1.0–1.2x; chunks of 2^15
//! elements. On a one-thread pool (`RAYON_NUM_THREADS=1`) `Work::splits`,
//! `for_each_lane` and `copy_strided` stay on the calling thread
//! (`kernels::threaded`): handing work to the pool's one thread and waiting
//! cost about 0.05 ms a call. Matrix products go parallel from 2^18
//! multiply-adds; reductions split as `reduce`'s docs say.

pub mod alloc;
pub(crate) mod argmax;
pub mod copy;
pub mod cpu;
pub mod elemwise;
use elemwise::{complex_ops, float_extremes, float_vec, lane_group};
pub mod fused;
pub(crate) mod index;
pub(crate) mod iter;
pub mod linalg;
pub(crate) mod reduce;
pub(crate) mod signal;
pub mod softmax;
pub(crate) mod sort;
pub mod vmath;

/// `$f::<T>(args)` with `T` the unsigned integer as wide as an element of
/// `$size` bytes: the byte-moving loops are generic over the width and
/// monomorphised for each. `by_width!(size, f::<_>(..))` takes `u128` for
/// any size past 8; `by_width!(size, f::<_>(..), else e)` runs `e` for a
/// size that is none of 1, 2, 4, 8 and 16.
macro_rules! by_width {
    ($size:expr, $f:ident::<_>($($arg:expr),* $(,)?)) => {
        match $size {
            1 => $f::<u8>($($arg),*),
            2 => $f::<u16>($($arg),*),
            4 => $f::<u32>($($arg),*),
            8 => $f::<u64>($($arg),*),
            _ => $f::<u128>($($arg),*),
        }
    };
    ($size:expr, $f:ident::<_>($($arg:expr),* $(,)?), else $other:expr) => {
        match $size {
            1 => $f::<u8>($($arg),*),
            2 => $f::<u16>($($arg),*),
            4 => $f::<u32>($($arg),*),
            8 => $f::<u64>($($arg),*),
            16 => $f::<u128>($($arg),*),
            _ => $other,
        }
    };
}
pub(crate) use by_width;

/// A `match` on the dtype `$dtype`: an arm for each integer dtype, which
/// runs `$body` with `$T` naming its element type (one generic body serves
/// all eight), then the arms `$rest` for the other dtypes.
/// `match_ints!(d, |T| sum::<T>(x), Float32 => .., other => ..)`.
macro_rules! match_ints {
    ($dtype:expr, |$T:ident| $body:expr, $($rest:tt)*) => {
        $crate::kernels::match_ints!(
            @arms $dtype, $T, $body,
            [Int8 i8, Int16 i16, Int32 i32, Int64 i64, UInt8 u8, UInt16 u16, UInt32 u32, UInt64 u64],
            $($rest)*
        )
    };
    (@arms $dtype:expr, $T:ident, $body:expr, [$($d:ident $t:ty),*], $($rest:tt)*) => {
        match $dtype {
            $($crate::dtype::DType::$d => {
                type $T = $t;
                $body
            })*
            $($rest)*
        }
    };
}
pub(crate) use match_ints;

/// Below this many elements a loop runs on one thread: splitting costs more
/// than it saves (measured: ~20 µs of rayon overhead vs ~10 ns per element).
pub const PARALLEL_MIN: usize = 1 << 16;

/// Below this many bytes read and written, a loop of a few instructions
/// per element (memory-bound) runs on one thread. Waking the pool and
/// waiting for it costs 10–20 µs per call on these machines (futex
/// handoffs), and varies: measured on 2 cores, one thread was faster for
/// every such op up to about 4 MiB (`x + 1`, `maximum`, casts, comparisons
/// on 10^5 elements; bool ops on 10^6); from 8 to 12 MiB two threads gave
/// 0.7–1.9x NumPy from run to run and one thread a steady 1.0–1.2x; from
/// 16 MiB two threads won (`x + 1` on 10^6 float64: 1.6–1.9x).
pub const PARALLEL_BYTES: usize = 12 << 20;

/// What a contiguous loop costs per element, which decides when it is
/// split across threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// A few instructions per element (arithmetic, comparisons, casts):
    /// split from [`PARALLEL_BYTES`] moved.
    Light,
    /// Tens of instructions per element (vmath's functions): split from
    /// [`PARALLEL_MIN`] elements.
    Heavy,
}

impl Work {
    /// Whether a loop over `n` elements, each moving `bytes` bytes
    /// (operands and result), runs on several threads.
    pub fn splits(self, n: usize, bytes: usize) -> bool {
        threaded()
            && match self {
                Work::Light => n.saturating_mul(bytes) >= PARALLEL_BYTES,
                Work::Heavy => n >= PARALLEL_MIN,
            }
    }
}

/// Whether the pool has more than one thread. On one thread
/// (`RAYON_NUM_THREADS=1`) a parallel loop still hands its work to the
/// pool's thread and waits for it: about 0.05 ms a call on `max()` of
/// 2000x2000 float32, for nothing.
pub fn threaded() -> bool {
    rayon::current_num_threads() > 1
}

/// Pseudo-random values in [0, 1) from `seed` (xorshift), for tests that
/// need many varied values without a crate.
#[cfg(test)]
pub(crate) fn pseudo_random(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// A bool tensor of `shape` whose elements are set with probability
/// `density` (from [`pseudo_random`]), for the mask kernels' tests.
#[cfg(test)]
pub(crate) fn random_mask(shape: &[usize], density: f64, seed: u64) -> crate::tensor::Tensor {
    let n = shape.iter().product();
    let flags = pseudo_random(n, seed).into_iter().map(|u| u < density);
    crate::tensor::Tensor::from_vec(shape.to_vec(), flags.collect())
        .expect("n flags fill the shape")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn light_loops_split_by_bytes_and_heavy_ones_by_elements() {
        // A bool loop of 10^6 elements (2 MB) stays on one thread; a
        // float64 sum of two arrays of 10^6 (24 MB) splits.
        // On a one-thread pool nothing splits.
        let t = threaded();
        assert!(!Work::Light.splits(1_000_000, 2));
        assert_eq!(Work::Light.splits(1_000_000, 24), t);
        assert_eq!(Work::Light.splits(PARALLEL_BYTES, 1), t);
        assert!(!Work::Light.splits(PARALLEL_BYTES - 1, 1));
        assert_eq!(Work::Light.splits(usize::MAX, 16), t, "no overflow");
        assert_eq!(Work::Heavy.splits(PARALLEL_MIN, 1), t);
        assert!(!Work::Heavy.splits(PARALLEL_MIN - 1, 64));
    }

    #[test]
    fn a_one_thread_pool_splits_nothing() {
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a pool of one thread");
        one.install(|| {
            assert!(!threaded());
            assert!(!Work::Light.splits(usize::MAX, 16));
            assert!(!Work::Heavy.splits(usize::MAX, 1));
        });
    }
}
