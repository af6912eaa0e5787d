//! The AVX-512 pieces of the vectorised quicksort (`kernels/simd_sort.rs`):
//! a [`Vector`] of `u64` or `u32` keys, a zero-sized proof that the CPU
//! runs AVX-512F (so its methods are safe to call); the bitonic network
//! over up to 16 registers; the pivot; and the partition.

use std::arch::x86_64::*;

/// One 512-bit register of keys.
pub type Lanes = __m512i;

/// `UPPER[b]`: the lanes `i` with bit `b` set, the upper element of each
/// pair a network step at distance `1 << b` compares (16 lanes; the low 8
/// bits serve 8 lanes).
const UPPER: [u32; 5] = [0xAAAA, 0xCCCC, 0xF0F0, 0xFF00, 0];

/// A register of `N` unsigned keys. Values exist only once AVX-512F was
/// detected, which is what makes the methods safe.
pub trait Vector: Copy + Send + Sync {
    /// `u64` or `u32`.
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

    /// Sorts at most [`Vector::BLOCK`] keys in registers, into `dst`
    /// (as long as `keys`), or in place if `dst` is `None`.
    fn sort_block(self, keys: &mut [Self::Key], dst: Option<&mut [Self::Key]>) {
        // SAFETY: `self` exists only where the CPU runs AVX-512F.
        unsafe { block(self, keys, dst) }
    }

    /// The median of `N` keys spread evenly over `keys` (at least `N`).
    fn pivot(self, keys: &[Self::Key]) -> Self::Key {
        // SAFETY: as in `sort_block`.
        unsafe { median(self, keys) }
    }

    /// Copies `src` into `dst` (as long), the keys below `pivot` first (in
    /// any order) and the others after them; returns how many are below.
    fn partition(self, src: &[Self::Key], dst: &mut [Self::Key], pivot: Self::Key) -> usize {
        // SAFETY: as in `sort_block`.
        unsafe { partition(self, src, dst, pivot) }
    }
}

/// The low `count` bits of a lane mask (`count <= 16`).
#[inline(always)]
fn first(count: usize) -> u32 {
    (1u32 << count) - 1
}

macro_rules! vector {
    ($name:ident, $key:ty, $n:literal, $int:ty, $kmask:ty, $set1:ident, $iota:expr,
     $loadu:ident, $storeu:ident, $min:ident, $max:ident, $perm:ident, $mask_max:ident,
     $lt:ident, $compress:ident, $cstore:ident, $mperm:ident, $perm2:ident, $add:ident) => {
        /// The register type of these keys (see [`Vector`]).
        #[derive(Clone, Copy)]
        pub struct $name(());

        impl $name {
            /// The vector type, if the CPU runs AVX-512F.
            pub fn detect() -> Option<Self> {
                let ok = std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("popcnt");
                ok.then_some($name(()))
            }
        }

        // SAFETY (every block below): a value of this type exists only
        // after `detect` found AVX-512F; the loads and stores touch the
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
                unsafe { $set1(k as $int) }
            }
            #[inline(always)]
            fn load(self, keys: &[$key]) -> Lanes {
                if keys.len() >= $n {
                    return unsafe { _mm512_loadu_si512(keys.as_ptr().cast()) };
                }
                let mask = first(keys.len()) as $kmask;
                unsafe { $loadu(self.splat(<$key>::MAX), mask, keys.as_ptr().cast()) }
            }
            #[inline(always)]
            fn store(self, keys: &mut [$key], v: Lanes) {
                if keys.len() >= $n {
                    return unsafe { _mm512_storeu_si512(keys.as_mut_ptr().cast(), v) };
                }
                let mask = first(keys.len().min($n)) as $kmask;
                unsafe { $storeu(keys.as_mut_ptr().cast(), mask, v) }
            }
            #[inline(always)]
            fn min(self, a: Lanes, b: Lanes) -> Lanes {
                unsafe { $min(a, b) }
            }
            #[inline(always)]
            fn max(self, a: Lanes, b: Lanes) -> Lanes {
                unsafe { $max(a, b) }
            }
            #[inline(always)]
            fn exchange(self, v: Lanes, j: usize) -> Lanes {
                unsafe { $perm(_mm512_xor_si512($iota, $set1(j as $int)), v) }
            }
            #[inline(always)]
            fn min_max(self, mask: u32, a: Lanes, b: Lanes) -> Lanes {
                unsafe { $mask_max($min(a, b), mask as $kmask, a, b) }
            }
            #[inline(always)]
            fn lt(self, a: Lanes, b: Lanes) -> u32 {
                unsafe { u32::from($lt(a, b)) }
            }
            #[inline(always)]
            fn compress_store(self, keys: &mut [$key], mask: u32, v: Lanes) {
                assert!(mask.count_ones() as usize <= keys.len());
                unsafe { $cstore(keys.as_mut_ptr().cast(), mask as $kmask, v) }
            }
            #[inline(always)]
            fn store_all(self, keys: &mut [$key], v: Lanes) {
                assert!(keys.len() >= $n);
                unsafe { _mm512_storeu_si512(keys.as_mut_ptr().cast(), v) }
            }
            #[inline(always)]
            fn reverse(self, v: Lanes) -> Lanes {
                unsafe { $perm(_mm512_xor_si512($iota, $set1($n - 1)), v) }
            }
            #[inline(always)]
            fn tail(self, v: Lanes, count: usize) -> Lanes {
                let idx = unsafe { $add($iota, $set1(($n - count) as $int)) };
                let mask = first(count) as $kmask;
                unsafe { $mperm(self.splat(<$key>::MAX), mask, idx, v) }
            }
            #[inline(always)]
            fn join(self, a: Lanes, b: Lanes, at: usize) -> Lanes {
                unsafe { $perm2(a, $add($iota, $set1(at as $int)), b) }
            }
            #[inline(always)]
            fn compress(self, mask: u32, v: Lanes) -> Lanes {
                unsafe { $compress(mask as $kmask, v) }
            }
        }
    };
}

vector!(U64x8, u64, 8, i64, __mmask8, _mm512_set1_epi64,
    _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
    _mm512_mask_loadu_epi64, _mm512_mask_storeu_epi64, _mm512_min_epu64, _mm512_max_epu64,
    _mm512_permutexvar_epi64, _mm512_mask_max_epu64, _mm512_cmplt_epu64_mask,
    _mm512_maskz_compress_epi64, _mm512_mask_compressstoreu_epi64,
    _mm512_mask_permutexvar_epi64, _mm512_permutex2var_epi64, _mm512_add_epi64);
vector!(U32x16, u32, 16, i32, __mmask16, _mm512_set1_epi32,
    _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
    _mm512_mask_loadu_epi32, _mm512_mask_storeu_epi32, _mm512_min_epu32, _mm512_max_epu32,
    _mm512_permutexvar_epi32, _mm512_mask_max_epu32, _mm512_cmplt_epu32_mask,
    _mm512_maskz_compress_epi32, _mm512_mask_compressstoreu_epi32,
    _mm512_mask_permutexvar_epi32, _mm512_permutex2var_epi32, _mm512_add_epi32);

/// Sorts up to 16 registers of keys with the smallest network that holds
/// them (1, 2, 4, 8 or 16 registers).
#[target_feature(enable = "avx512f,popcnt")]
fn block<V: Vector>(v: V, keys: &mut [V::Key], dst: Option<&mut [V::Key]>) {
    match keys.len().div_ceil(V::N) {
        0 => {}
        1 => sort_regs::<V, 1>(v, keys, dst),
        2 => sort_regs::<V, 2>(v, keys, dst),
        3 | 4 => sort_regs::<V, 4>(v, keys, dst),
        5..=8 => sort_regs::<V, 8>(v, keys, dst),
        _ => sort_regs::<V, 16>(v, keys, dst),
    }
}

/// Loads `keys` into `R` registers, padded with the largest key, sorts
/// them and stores the first `keys.len()` into `dst` (or `keys`).
#[target_feature(enable = "avx512f,popcnt")]
fn sort_regs<V: Vector, const R: usize>(
    v: V,
    keys: &mut [V::Key],
    dst: Option<&mut [V::Key]>,
) {
    let (n, w) = (keys.len(), V::N);
    let mut regs = [v.splat(V::MAX); R];
    if n < w {
        regs[0] = v.load(keys);
    }
    let (full, rest) = (n / w, n % w);
    for (r, reg) in regs.iter_mut().enumerate() {
        if r < full {
            *reg = v.load(&keys[r * w..]);
        } else if r == full && rest > 0 && n >= w {
            *reg = v.tail(v.load(&keys[n - w..]), rest);
        }
    }
    network(v, &mut regs);
    let dst = dst.unwrap_or(keys);
    if n < w {
        v.store(dst, regs[0]);
        return;
    }
    for (r, reg) in regs.iter().enumerate() {
        if r < full {
            v.store(&mut dst[r * w..], *reg);
        } else if r == full && rest > 0 {
            v.store(&mut dst[n - w..], v.join(regs[r - 1], *reg, rest));
        }
    }
}

/// Bitonic sort of the `R * N` keys in `regs` (`R` a power of two), read
/// in order register by register: stage `kb` merges runs of `2^kb` keys
/// in steps `jb = kb - 1, ..., 0`, each comparing keys `g` and `g ^ 2^jb`,
/// ascending where bit `kb` of `g` is clear. The stages are spelled out
/// (up to 256 keys) so that every step's registers, lanes and masks are
/// constants and the network compiles to straight-line code in registers.
#[target_feature(enable = "avx512f,popcnt")]
fn network<V: Vector, const R: usize>(v: V, regs: &mut [Lanes; R]) {
    let log = (R * V::N).trailing_zeros();
    macro_rules! stages {
        ($($kb:literal: [$($jb:literal)*])*) => {$(
            if $kb <= log {
                $(step(v, regs, $kb, $jb);)*
            }
        )*};
    }
    stages!(
        1: [0]
        2: [1 0]
        3: [2 1 0]
        4: [3 2 1 0]
        5: [4 3 2 1 0]
        6: [5 4 3 2 1 0]
        7: [6 5 4 3 2 1 0]
        8: [7 6 5 4 3 2 1 0]
    );
}

/// One network step, across registers or within each.
#[inline(always)]
fn step<V: Vector, const R: usize>(v: V, regs: &mut [Lanes; R], kb: u32, jb: u32) {
    let lane_bits = V::N.trailing_zeros();
    if jb >= lane_bits {
        across(v, regs, kb, 1 << (jb - lane_bits));
    } else {
        within(v, regs, kb, jb);
    }
}

/// A network step between registers `r` and `r ^ jr`, lane by lane.
#[inline(always)]
fn across<V: Vector, const R: usize>(v: V, regs: &mut [Lanes; R], kb: u32, jr: usize) {
    for r in (0..R).filter(|r| r & jr == 0) {
        let (a, b) = (regs[r], regs[r | jr]);
        let (lo, hi) = (v.min(a, b), v.max(a, b));
        let descending = (r * V::N) >> kb & 1 == 1;
        (regs[r], regs[r | jr]) = if descending { (hi, lo) } else { (lo, hi) };
    }
}

/// A network step between lanes `i` and `i ^ (1 << jb)` of each register.
#[inline(always)]
fn within<V: Vector, const R: usize>(v: V, regs: &mut [Lanes; R], kb: u32, jb: u32) {
    let all = first(V::N);
    for (r, reg) in regs.iter_mut().enumerate() {
        let descending = if 1 << kb < V::N {
            UPPER[kb as usize]
        } else if (r * V::N) >> kb & 1 == 1 {
            all
        } else {
            0
        };
        let take_max = (UPPER[jb as usize] ^ descending) & all;
        let p = v.exchange(*reg, 1 << jb);
        *reg = v.min_max(take_max, *reg, p);
    }
}

/// The middle of `N` keys taken at even steps through `keys`.
#[target_feature(enable = "avx512f,popcnt")]
fn median<V: Vector>(v: V, keys: &[V::Key]) -> V::Key {
    let step = keys.len() / V::N;
    let mut sample = [keys[0]; 16];
    for (i, s) in sample.iter_mut().take(V::N).enumerate() {
        *s = keys[i * step + step / 2];
    }
    let mut reg = [v.load(&sample)];
    network(v, &mut reg);
    v.store(&mut sample, reg[0]);
    sample[V::N / 2]
}

/// The partition, out of place: reading `src` while writing `dst` keeps
/// loads away from the masked stores just issued (a load overlapping one
/// waits for it to retire, which made an in-place partition several times
/// slower).
#[target_feature(enable = "avx512f,popcnt")]
fn partition<V: Vector>(v: V, src: &[V::Key], dst: &mut [V::Key], pivot: V::Key) -> usize {
    assert_eq!(src.len(), dst.len(), "partition buffers");
    let pv = v.splat(pivot);
    let mut ends = (0, dst.len());
    let mut chunks = src.chunks_exact(V::N);
    for chunk in &mut chunks {
        split(v, dst, v.load(chunk), pv, first(V::N), &mut ends);
    }
    let rest = chunks.remainder().len();
    if rest > 0 {
        let last = v.load(&src[src.len() - V::N..]);
        split(v, dst, last, pv, first(V::N) & !first(V::N - rest), &mut ends);
    }
    ends.0
}

/// Writes the `valid` lanes of `x` below `pv` at `ends.0` and the others
/// just before `ends.1`, moving both ends inwards.
#[inline(always)]
fn split<V: Vector>(
    v: V,
    keys: &mut [V::Key],
    x: Lanes,
    pv: Lanes,
    valid: u32,
    ends: &mut (usize, usize),
) {
    let below = v.lt(x, pv) & valid;
    let above = !below & valid;
    let (nb, na) = (below.count_ones() as usize, above.count_ones() as usize);
    if ends.1 - ends.0 >= 2 * V::N {
        v.store_all(&mut keys[ends.0..], v.compress(below, x));
        v.store_all(&mut keys[ends.1 - V::N..], v.reverse(v.compress(above, x)));
        ends.0 += nb;
        ends.1 -= na;
        return;
    }
    v.compress_store(&mut keys[ends.0..ends.0 + nb], below, x);
    ends.0 += nb;
    ends.1 -= na;
    v.compress_store(&mut keys[ends.1..ends.1 + na], above, x);
}
