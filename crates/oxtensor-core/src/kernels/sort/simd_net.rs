//! The algorithms of the vectorised quicksort (`kernels/sort/simd.rs`) over
//! a [`Vector`] of keys (`kernels/sort/simd_x86.rs`): the bitonic network
//! over up to 16 registers, the pivot, and the partition. All are inlined
//! into the vector type's entry points, which are compiled for its
//! AVX-512 subsets.

use super::simd_x86::{first, Lanes, Vector};

/// `UPPER[b]`: the lanes `i` with bit `b` set, the upper element of each
/// pair a network step at distance `1 << b` compares (32 lanes; the low
/// bits serve 16 or 8 lanes).
const UPPER: [u32; 6] = [
    0xAAAA_AAAA,
    0xCCCC_CCCC,
    0xF0F0_F0F0,
    0xFF00_FF00,
    0xFFFF_0000,
    0,
];

/// Sorts up to 16 registers of keys with the smallest network that holds
/// them (1, 2, 4, 8 or 16 registers).
#[inline(always)]
pub(super) fn block<V: Vector>(v: V, keys: &mut [V::Key], dst: Option<&mut [V::Key]>) {
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
#[inline(always)]
fn sort_regs<V: Vector, const R: usize>(v: V, keys: &mut [V::Key], dst: Option<&mut [V::Key]>) {
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
/// (up to 512 keys) so that every step's registers, lanes and masks are
/// constants and the network compiles to straight-line code in registers.
#[inline(always)]
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
        9: [8 7 6 5 4 3 2 1 0]
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
#[inline(always)]
pub(super) fn median<V: Vector>(v: V, keys: &[V::Key]) -> V::Key {
    let mut reg = [v.sample(keys)];
    network(v, &mut reg);
    v.lane(reg[0], V::N / 2)
}

/// The partition, out of place: reading `src` while writing `dst` keeps
/// loads away from the masked stores just issued (a load overlapping one
/// waits for it to retire, which made an in-place partition several times
/// slower).
#[inline(always)]
pub(super) fn partition<V: Vector>(
    v: V,
    src: &[V::Key],
    dst: &mut [V::Key],
    pivot: V::Key,
) -> usize {
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
        split(
            v,
            dst,
            last,
            pv,
            first(V::N) & !first(V::N - rest),
            &mut ends,
        );
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
