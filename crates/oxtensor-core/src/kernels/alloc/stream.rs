//! Stores that bypass the caches, for outputs far larger than them. A
//! plain store first reads the line it writes (to own it), so writing an
//! output that will not be read again soon moves its bytes over the memory
//! bus twice; a non-temporal store writes whole lines without reading them.
//! Only worth it when the output will not fit in the last-level cache
//! anyway: see [`worth_streaming`].
//!
//! # Where it is used
//!
//! Non-temporal stores for outputs of 16 MiB and more
//! (softmax), which skip reading the output's lines before writing them.

/// Outputs of at least this many bytes are streamed: half the L3 of the
/// machines we measure on (32 MiB), above which the output would have
/// evicted itself before anyone reads it.
const STREAM_MIN_BYTES: usize = 16 << 20;

/// Whether an output of `bytes` should be written with [`store_map`].
pub fn worth_streaming(bytes: usize) -> bool {
    bytes >= STREAM_MIN_BYTES && crate::kernels::cpu::has_avx2()
}

/// Elements per block handed to `f`: one 256-bit store.
const WIDTH: usize = 4;

/// `y[i] = f(x[i])`: non-temporal stores of aligned 32-byte blocks when
/// the CPU has AVX2, plain stores for the unaligned head and the tail (and
/// on other CPUs). The values are exactly `f`'s either way.
///
/// # Panics
/// If `y` and `x` differ in length (a caller bug).
pub fn store_map(y: &mut [f64], x: &[f64], f: impl Fn(f64) -> f64) {
    assert_eq!(y.len(), x.len(), "store_map: lengths differ");
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::cpu::has_avx2() {
        // SAFETY: the CPU has AVX2 (so AVX), checked just above.
        return unsafe { store_map_avx(y, x, &f) };
    }
    y.iter_mut().zip(x).for_each(|(o, &v)| *o = f(v));
}

/// [`store_map`] with `_mm256_stream_pd`.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn store_map_avx(y: &mut [f64], x: &[f64], f: &impl Fn(f64) -> f64) {
    use std::arch::x86_64::{_mm256_loadu_pd, _mm256_stream_pd, _mm_sfence};
    // Elements before the first 32-byte boundary of `y`.
    let head = y.as_ptr().align_offset(32).min(y.len());
    let (y_head, y_rest) = y.split_at_mut(head);
    let (x_head, x_rest) = x.split_at(head);
    y_head.iter_mut().zip(x_head).for_each(|(o, &v)| *o = f(v));
    let mut ys = y_rest.chunks_exact_mut(WIDTH);
    let mut xs = x_rest.chunks_exact(WIDTH);
    for (o, v) in (&mut ys).zip(&mut xs) {
        let block: [f64; WIDTH] = std::array::from_fn(|i| f(v[i]));
        // SAFETY: `o` holds WIDTH elements starting on a 32-byte boundary
        // (`head` aligned the first, and blocks are 32 bytes long).
        unsafe { _mm256_stream_pd(o.as_mut_ptr(), _mm256_loadu_pd(block.as_ptr())) };
    }
    let tail = ys.into_remainder();
    tail.iter_mut()
        .zip(xs.remainder())
        .for_each(|(o, &v)| *o = f(v));
    // Non-temporal stores are weakly ordered: fence them before anyone
    // (another thread, once this job is done) reads the output.
    _mm_sfence();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offset_and_length_gets_f_of_x() {
        let x: Vec<f64> = (0..70).map(|i| i as f64 * 0.5 - 3.0).collect();
        let mut backing = vec![f64::NAN; 80];
        for start in 0..5 {
            for n in [0, 1, 3, 4, 5, 9, 64, 65] {
                let y = &mut backing[start..start + n];
                store_map(y, &x[..n], |v| v * 3.0 - 1.0);
                for (i, &got) in y.iter().enumerate() {
                    assert_eq!(got, x[i] * 3.0 - 1.0, "start {start}, n {n}, i {i}");
                }
            }
        }
    }

    #[test]
    fn nan_and_infinities_pass_through_f() {
        let x = [f64::NAN, f64::INFINITY, -0.0, 1.0, f64::NEG_INFINITY, 2.0];
        let mut y = [0.0; 6];
        store_map(&mut y, &x, |v| -v);
        assert!(y[0].is_nan());
        assert_eq!(
            &y[1..],
            &[f64::NEG_INFINITY, 0.0, -1.0, f64::INFINITY, -2.0]
        );
        assert!(y[2].is_sign_positive());
    }
}
