//! A vectorised quicksort of 16-, 32- and 64-bit unsigned keys with
//! AVX-512: each partition compresses a vector's lanes to the two sides,
//! and ranges of at most 16 vectors are sorted in registers by a bitonic
//! network (`kernels/sort/simd_net.rs` over `kernels/sort/simd_x86.rs`).
//! NumPy sorts such dtypes the same way on these CPUs (x86-simd-sort).
//! `kernels/sort/radix.rs` calls it for `sort` and keeps its radix passes where
//! the CPU lacks the instructions.

use super::simd_x86::{U16x32, U32x16, U64x8, Vector};
use rayon::join;

/// Ranges at least this long sort their two sides on two threads.
const JOIN_MIN: usize = 1 << 16;

/// Sorts the keys in `data` into `out` (as long; `data` is left in some
/// order) if `cpu` lets AVX-512F run; `false`, both untouched, if not.
pub fn sort_u64(data: &mut [u64], out: &mut [u64]) -> bool {
    U64x8::detect().map(|v| sort_with(v, data, out)).is_some()
}

/// [`sort_u64`] for 32-bit keys.
pub fn sort_u32(data: &mut [u32], out: &mut [u32]) -> bool {
    U32x16::detect().map(|v| sort_with(v, data, out)).is_some()
}

/// [`sort_u64`] for 16-bit keys (AVX-512BW and VBMI2 as well).
pub fn sort_u16(data: &mut [u16], out: &mut [u16]) -> bool {
    U16x32::detect().map(|v| sort_with(v, data, out)).is_some()
}

/// Runs `f` compiled for AVX-512F where `cpu` lets it run, else as it is.
/// The key maps vectorise there (the baseline build has no 64-bit
/// arithmetic shift, so it ran them one element at a time).
pub fn with_avx512<R>(f: impl FnOnce() -> R) -> R {
    match U64x8::detect() {
        // SAFETY: `cpu` let AVX-512F (and POPCNT) run just now.
        Some(_) => unsafe { call_avx512(f) },
        None => f(),
    }
}

#[target_feature(enable = "avx512f,popcnt")]
fn call_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

fn sort_with<V: Vector>(v: V, data: &mut [V::Key], out: &mut [V::Key]) {
    let depth = 2 * (usize::BITS - data.len().leading_zeros());
    quicksort(v, data, out, false, depth);
}

/// Quicksort over the vector kernels. The keys are in `data`; each
/// partition moves them to `other` (same length), so the two swap roles
/// level by level; the sorted keys must end in `data` if `home` is set,
/// else in `other`. `depth` bounds the recursion, past which the standard
/// library's sort (O(n log n) always) takes over.
fn quicksort<V: Vector>(v: V, data: &mut [V::Key], other: &mut [V::Key], home: bool, depth: u32) {
    let n = data.len();
    if n <= V::BLOCK {
        v.sort_block(data, (!home).then_some(other));
        return;
    }
    if depth == 0 {
        let out = if home {
            data
        } else {
            other.copy_from_slice(data);
            other
        };
        out.sort_unstable();
        return;
    }
    let pivot = v.pivot(data);
    let mid = v.partition(data, other, pivot);
    if mid == 0 {
        // The pivot is the minimum. The keys equal to it are in their
        // place once moved first: sort the rest. (Progress: the pivot is
        // one of the keys, and none is above the largest key.)
        let equal = if pivot == V::MAX {
            n
        } else {
            v.partition(other, data, V::succ(pivot))
        };
        if !home {
            other[..equal].copy_from_slice(&data[..equal]);
        }
        quicksort(v, &mut data[equal..], &mut other[equal..], home, depth - 1);
        return;
    }
    let (lo, hi) = other.split_at_mut(mid);
    let (lo_tmp, hi_tmp) = data.split_at_mut(mid);
    if n >= JOIN_MIN {
        join(
            || quicksort(v, lo, lo_tmp, !home, depth - 1),
            || quicksort(v, hi, hi_tmp, !home, depth - 1),
        );
    } else {
        quicksort(v, lo, lo_tmp, !home, depth - 1);
        quicksort(v, hi, hi_tmp, !home, depth - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::vmath::test_support::Rng;

    const LENGTHS: [usize; 23] = [
        0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 513, 1000,
        70_000,
    ];

    /// Random keys, a few distinct values, mostly the minimum, sorted,
    /// reversed, and the largest key throughout with a few others.
    fn inputs(rng: &mut Rng, n: usize) -> Vec<Vec<u64>> {
        let random: Vec<u64> = (0..n).map(|_| rng.next()).collect();
        let mut sorted = random.clone();
        sorted.sort_unstable();
        vec![
            random.iter().map(|r| r % 3).collect(),
            random
                .iter()
                .map(|r| if r % 10 == 0 { *r } else { 0 })
                .collect(),
            random
                .iter()
                .map(|r| if r % 50 == 0 { r % 9 } else { u64::MAX })
                .collect(),
            sorted.iter().rev().copied().collect(),
            sorted,
            random,
        ]
    }

    fn check<K: Copy + Ord + std::fmt::Debug>(
        keys: &[K],
        sort: fn(&mut [K], &mut [K]) -> bool,
        has_avx512: bool,
    ) {
        let (mut data, mut got) = (keys.to_vec(), keys.to_vec());
        assert_eq!(sort(&mut data, &mut got), has_avx512);
        let mut want = keys.to_vec();
        if has_avx512 {
            want.sort_unstable();
        }
        assert!(got == want, "{} keys sorted wrongly", keys.len());
    }

    #[test]
    fn sorts_like_the_standard_library() {
        let has_avx512 = U64x8::detect().is_some();
        assert_eq!(U32x16::detect().is_some(), has_avx512);
        let mut rng = Rng(3);
        for n in LENGTHS {
            for keys in inputs(&mut rng, n) {
                check(&keys, sort_u64, has_avx512);
                // The high bits keep the u32 keys' orders and ties varied.
                let keys32: Vec<u32> = keys.iter().map(|&k| (k >> 32) as u32 ^ k as u32).collect();
                check(&keys32, sort_u32, has_avx512);
                let keys16: Vec<u16> = keys32
                    .iter()
                    .map(|&k| (k >> 16) as u16 ^ k as u16)
                    .collect();
                check(&keys16, sort_u16, U16x32::detect().is_some());
            }
        }
    }

    #[test]
    fn depth_limit_hands_over_to_the_standard_sort() {
        let Some(v) = U64x8::detect() else { return };
        let mut rng = Rng(5);
        let keys: Vec<u64> = (0..1000).map(|_| rng.next() % 100).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        for home in [true, false] {
            let (mut data, mut other) = (keys.clone(), vec![0; keys.len()]);
            quicksort(v, &mut data, &mut other, home, 1);
            assert!((if home { &data } else { &other }) == &want, "home {home}");
        }
    }
}
