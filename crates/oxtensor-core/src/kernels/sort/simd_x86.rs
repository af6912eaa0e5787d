//! The registers of the vectorised quicksort (`kernels/sort/simd.rs`): a
//! [`Vector`] of `u64`, `u32` or `u16` keys, a zero-sized proof that the
//! CPU runs the AVX-512 subsets its instructions need (so its methods are
//! safe to call), and its entry points into the algorithms of
//! `kernels/sort/simd_net.rs`, compiled for those subsets.

use super::simd_net::{block, median, partition};
use crate::kernels::cpu;
use std::arch::x86_64::*;

/// One 512-bit register of keys.
pub type Lanes = __m512i;

/// A register of `N` unsigned keys. Values exist only once the CPU was
/// found to run the instructions, which is what makes the methods safe.
pub trait Vector: Copy + Send + Sync {
    /// `u64`, `u32` or `u16`.
    type Key: Copy + Ord + Send + Sync;
    /// Lanes per register.
    const N: usize;
    /// Ranges this short are sorted in registers (16 of them).
    const BLOCK: usize = 16 * Self::N;
    /// The largest key: the padding of partial registers.
    const MAX: Self::Key;
    /// The next larger key (`k < MAX`).
    fn succ(k: Self::Key) -> Self::Key;
    /// Every lane `k`.
    fn splat(self, k: Self::Key) -> Lanes;
    /// The first `min(keys.len(), N)` keys; [`Vector::MAX`] in other lanes.
    fn load(self, keys: &[Self::Key]) -> Lanes;
    /// Writes the first `min(keys.len(), N)` lanes.
    fn store(self, keys: &mut [Self::Key], v: Lanes);
    /// Lanewise minimum.
    fn min(self, a: Lanes, b: Lanes) -> Lanes;
    /// Lanewise maximum.
    fn max(self, a: Lanes, b: Lanes) -> Lanes;
    /// Lane `i` holds lane `i ^ j` of `v`.
    fn exchange(self, v: Lanes, j: usize) -> Lanes;
    /// The larger of `a` and `b` in the lanes set in `mask`, the smaller
    /// elsewhere.
    fn min_max(self, mask: u32, a: Lanes, b: Lanes) -> Lanes;
    /// The lanes where `a < b`.
    fn lt(self, a: Lanes, b: Lanes) -> u32;
    /// The lanes set in `mask`, moved to the front in order.
    fn compress(self, mask: u32, v: Lanes) -> Lanes;
    /// Writes the lanes set in `mask` to the front of `keys` (as many).
    fn compress_store(self, keys: &mut [Self::Key], mask: u32, v: Lanes);
    /// Writes all lanes to the front of `keys` (at least `N` long).
    fn store_all(self, keys: &mut [Self::Key], v: Lanes);
    /// The lanes in reverse order.
    fn reverse(self, v: Lanes) -> Lanes;
    /// The top `count` lanes of `v` moved to the bottom, [`Vector::MAX`]
    /// above them.
    fn tail(self, v: Lanes, count: usize) -> Lanes;
    /// Lanes `at..N` of `a` followed by lanes `0..at` of `b`.
    fn join(self, a: Lanes, b: Lanes, at: usize) -> Lanes;
    /// `N` keys taken at even steps through `keys` (at least `N`).
    fn sample(self, keys: &[Self::Key]) -> Lanes;
    /// Lane `i` of `v`.
    fn lane(self, v: Lanes, i: usize) -> Self::Key;

    /// Sorts at most [`Vector::BLOCK`] keys in registers, into `dst`
    /// (as long as `keys`), or in place if `dst` is `None`.
    fn sort_block(self, keys: &mut [Self::Key], dst: Option<&mut [Self::Key]>);
    /// The median of `N` keys spread evenly over `keys` (at least `N`).
    fn pivot(self, keys: &[Self::Key]) -> Self::Key;
    /// Copies `src` into `dst` (as long), the keys below `pivot` first (in
    /// any order) and the others after them; returns how many are below.
    fn partition(self, src: &[Self::Key], dst: &mut [Self::Key], pivot: Self::Key) -> usize;
}

/// The low `count` bits of a lane mask (`count <= 32`).
#[inline(always)]
pub(super) fn first(count: usize) -> u32 {
    u32::MAX.checked_shr(32 - count as u32).unwrap_or(0)
}

macro_rules! vector {
    ($name:ident, $key:ty, $n:literal, [$($feature:tt),*], $runs:path, $int:ty, $kmask:ty,
     $set1:ident,
     $iota:expr,
     $loadu:ident, $storeu:ident, $min:ident, $max:ident, $perm:ident, $mask_max:ident,
     $lt:ident, $compress:ident, $cstore:ident, $mperm:ident, $perm2:ident, $add:ident) => {
        /// The register type of these keys (see [`Vector`]).
        #[derive(Clone, Copy)]
        pub struct $name(());

        impl $name {
            /// The vector type, if `cpu` lets its instructions run.
            pub fn detect() -> Option<Self> {
                $runs().then_some($name(()))
            }
        }

        // SAFETY: (every block below) a value of this type exists only
        // after `detect` found that `cpu` lets the features run (never
        // more than the CPU has); the loads and stores touch the
        // first `min(len, N)` elements of the slice they are given only.
        impl Vector for $name {
            type Key = $key;
            const N: usize = $n;
            const MAX: $key = <$key>::MAX;
            #[inline(always)]
            fn succ(k: $key) -> $key {
                k + 1
            }
            #[inline(always)]
            fn splat(self, k: $key) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $set1(k as $int) }
            }
            #[inline(always)]
            fn load(self, keys: &[$key]) -> Lanes {
                if keys.len() >= $n {
                    // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                    return unsafe { _mm512_loadu_si512(keys.as_ptr().cast()) };
                }
                let mask = first(keys.len()) as $kmask;
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $loadu(self.splat(<$key>::MAX), mask, keys.as_ptr().cast()) }
            }
            #[inline(always)]
            fn store(self, keys: &mut [$key], v: Lanes) {
                if keys.len() >= $n {
                    // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                    return unsafe { _mm512_storeu_si512(keys.as_mut_ptr().cast(), v) };
                }
                let mask = first(keys.len().min($n)) as $kmask;
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $storeu(keys.as_mut_ptr().cast(), mask, v) }
            }
            #[inline(always)]
            fn min(self, a: Lanes, b: Lanes) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $min(a, b) }
            }
            #[inline(always)]
            fn max(self, a: Lanes, b: Lanes) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $max(a, b) }
            }
            #[inline(always)]
            fn exchange(self, v: Lanes, j: usize) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $perm(_mm512_xor_si512($iota, $set1(j as $int)), v) }
            }
            #[inline(always)]
            fn min_max(self, mask: u32, a: Lanes, b: Lanes) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $mask_max($min(a, b), mask as $kmask, a, b) }
            }
            #[inline(always)]
            fn lt(self, a: Lanes, b: Lanes) -> u32 {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { u32::from($lt(a, b)) }
            }
            #[inline(always)]
            fn compress_store(self, keys: &mut [$key], mask: u32, v: Lanes) {
                assert!(mask.count_ones() as usize <= keys.len());
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $cstore(keys.as_mut_ptr().cast(), mask as $kmask, v) }
            }
            #[inline(always)]
            fn store_all(self, keys: &mut [$key], v: Lanes) {
                assert!(keys.len() >= $n);
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { _mm512_storeu_si512(keys.as_mut_ptr().cast(), v) }
            }
            #[inline(always)]
            fn reverse(self, v: Lanes) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $perm(_mm512_xor_si512($iota, $set1($n - 1)), v) }
            }
            #[inline(always)]
            fn tail(self, v: Lanes, count: usize) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                let idx = unsafe { $add($iota, $set1(($n - count) as $int)) };
                let mask = first(count) as $kmask;
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $mperm(self.splat(<$key>::MAX), mask, idx, v) }
            }
            #[inline(always)]
            fn join(self, a: Lanes, b: Lanes, at: usize) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $perm2(a, $add($iota, $set1(at as $int)), b) }
            }
            #[inline(always)]
            fn compress(self, mask: u32, v: Lanes) -> Lanes {
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { $compress(mask as $kmask, v) }
            }
            #[inline(always)]
            fn sample(self, keys: &[$key]) -> Lanes {
                let step = keys.len() / $n;
                let picked: [$key; $n] = std::array::from_fn(|i| keys[i * step + step / 2]);
                self.load(&picked)
            }
            #[inline(always)]
            fn lane(self, v: Lanes, i: usize) -> $key {
                let mut lanes = [0; $n];
                self.store(&mut lanes, v);
                lanes[i]
            }
            fn sort_block(self, keys: &mut [$key], dst: Option<&mut [$key]>) {
                $(#[target_feature(enable = $feature)])*
                fn run(v: $name, keys: &mut [$key], dst: Option<&mut [$key]>) {
                    block(v, keys, dst)
                }
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { run(self, keys, dst) }
            }
            fn pivot(self, keys: &[$key]) -> $key {
                $(#[target_feature(enable = $feature)])*
                fn run(v: $name, keys: &[$key]) -> $key {
                    median(v, keys)
                }
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { run(self, keys) }
            }
            fn partition(self, src: &[$key], dst: &mut [$key], pivot: $key) -> usize {
                $(#[target_feature(enable = $feature)])*
                fn run(v: $name, src: &[$key], dst: &mut [$key], pivot: $key) -> usize {
                    partition(v, src, dst, pivot)
                }
                // SAFETY: features checked by `detect`; touches at most min(len, N) elements.
                unsafe { run(self, src, dst, pivot) }
            }
        }
    };
}

vector!(
    U64x8,
    u64,
    8,
    ["avx512f", "popcnt"],
    cpu::has_avx512_popcnt,
    i64,
    __mmask8,
    _mm512_set1_epi64,
    _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
    _mm512_mask_loadu_epi64,
    _mm512_mask_storeu_epi64,
    _mm512_min_epu64,
    _mm512_max_epu64,
    _mm512_permutexvar_epi64,
    _mm512_mask_max_epu64,
    _mm512_cmplt_epu64_mask,
    _mm512_maskz_compress_epi64,
    _mm512_mask_compressstoreu_epi64,
    _mm512_mask_permutexvar_epi64,
    _mm512_permutex2var_epi64,
    _mm512_add_epi64
);
vector!(
    U32x16,
    u32,
    16,
    ["avx512f", "popcnt"],
    cpu::has_avx512_popcnt,
    i32,
    __mmask16,
    _mm512_set1_epi32,
    _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
    _mm512_mask_loadu_epi32,
    _mm512_mask_storeu_epi32,
    _mm512_min_epu32,
    _mm512_max_epu32,
    _mm512_permutexvar_epi32,
    _mm512_mask_max_epu32,
    _mm512_cmplt_epu32_mask,
    _mm512_maskz_compress_epi32,
    _mm512_mask_compressstoreu_epi32,
    _mm512_mask_permutexvar_epi32,
    _mm512_permutex2var_epi32,
    _mm512_add_epi32
);
vector!(
    U16x32,
    u16,
    32,
    ["avx512f", "avx512bw", "avx512vbmi2", "popcnt"],
    cpu::has_avx512_words,
    i16,
    __mmask32,
    _mm512_set1_epi16,
    _mm512_set_epi16(
        31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,
        8, 7, 6, 5, 4, 3, 2, 1, 0
    ),
    _mm512_mask_loadu_epi16,
    _mm512_mask_storeu_epi16,
    _mm512_min_epu16,
    _mm512_max_epu16,
    _mm512_permutexvar_epi16,
    _mm512_mask_max_epu16,
    _mm512_cmplt_epu16_mask,
    _mm512_maskz_compress_epi16,
    _mm512_mask_compressstoreu_epi16,
    _mm512_mask_permutexvar_epi16,
    _mm512_permutex2var_epi16,
    _mm512_add_epi16
);
