//! The float extreme and `argmax` passes in x86 vectors, written once over
//! [`FloatVec`] and built for AVX2 and for AVX-512 ([`Width`], the CPU
//! checked once): a lane's maximum (minimum with `MIN`, NaNs skipped) with
//! a NaN flag, the one-pass `argmax` that tracks per vector lane the span
//! where its extreme was first met, and the first index where a vector
//! test holds. Vectors are read from the first aligned one on: NumPy's
//! arrays start 16 bytes into a cache line.
//!
//! AVX-512 runs only for float64 ([`width_for`]). Measured on one thread
//! (AMD EPYC, Zen 5-like; ratios NumPy's time / ours, same process, two
//! rounds, machine busy with another build): float64 `max()` of 2000x2000
//! 1.30-1.33x (AVX2 1.11-1.14x), `min(axis=1)` 1.32-1.34x (1.24-1.25x),
//! `argmax(axis=1)` 1.21-1.23x (1.15-1.17x), on 4000x4000 1.26-1.28x
//! (1.19-1.20x). For float32 the AVX2 build was as fast or faster:
//! `argmax(axis=1)` of 2000x2000 0.88-0.91x with AVX-512 against
//! 0.97-1.02x, of 4000x4000 1.09-1.10x against 1.20-1.23x; `min(axis=1)`
//! 1.36-1.76x against 1.80-2.06x (sixteen lanes leave more scalar work per
//! row: the unaligned head, the final reduction).
//!
//! The generic loop of `argmax.rs` packs the NaN test to bytes per
//! element: 1.1x to 1.2x slower on float64 rows, 1.5x on float32.
//! `max(v, a)` is `v > a ? v : a`, the generic loop's rule, so the maximum
//! (and its first index) are the same.

#![cfg(target_arch = "x86_64")]

use super::lane::beats;
use crate::kernels::cpu::{has_avx2, level, Level};
use crate::kernels::float_vec::{FloatVec, SimdFloat, MAX_LANES};

/// A vector build the CPU runs. Made only by [`Width::best`] (and, in
/// tests, `Width::all`) once the CPU is found to run it, so holding one is
/// what lets the passes run its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::kernels) struct Width(Build);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Build {
    Avx2,
    Avx512,
}

impl Width {
    /// The widest build, `None` without AVX2. AVX-512 when
    /// `cpu::level` names it, so `OXTENSOR_SIMD=avx2` keeps AVX2.
    pub(super) fn best() -> Option<Width> {
        match level() {
            Level::Avx512 => Some(Width(Build::Avx512)),
            _ => Width::avx2(),
        }
    }

    /// AVX2 where `cpu::level` allows it, whatever wider build it also allows.
    fn avx2() -> Option<Width> {
        has_avx2().then_some(Width(Build::Avx2))
    }

    /// Every build `cpu::level` allows, narrowest first.
    #[cfg(test)]
    pub(super) fn all() -> Vec<Width> {
        let mut all = Vec::new();
        if has_avx2() {
            all.push(Width(Build::Avx2));
        }
        if level() == Level::Avx512 {
            all.push(Width(Build::Avx512));
        }
        all
    }

    /// The next narrower build; AVX-512 is only detected with AVX2.
    fn narrower(self) -> Option<Width> {
        match self.0 {
            Build::Avx512 => Some(Width(Build::Avx2)),
            Build::Avx2 => None,
        }
    }
}

/// A pass written once over the vector type, run by [`run`] in a build.
pub(super) trait Pass {
    type T: SimdFloat;
    type Out;
    /// The pass with vectors `V`; inlined into a `#[target_feature]` runner.
    fn go<V: FloatVec<T = Self::T>>(self) -> Self::Out;
}

pub(super) fn run<P: Pass>(w: Width, p: P) -> P::Out {
    match w.0 {
        // SAFETY: a `Width` is made only once the CPU runs its build.
        Build::Avx2 => unsafe { run_avx2(p) },
        // SAFETY: as above.
        Build::Avx512 => unsafe { run_avx512(p) },
    }
}

#[target_feature(enable = "avx2")]
fn run_avx2<P: Pass>(p: P) -> P::Out {
    p.go::<<P::T as SimdFloat>::W256>()
}

#[target_feature(enable = "avx512f")]
fn run_avx512<P: Pass>(p: P) -> P::Out {
    p.go::<<P::T as SimdFloat>::W512>()
}

/// Vectors folded side by side: four independent chains keep the pass
/// memory-bound.
const CHAINS: usize = 4;

/// The four chains' vectors folded into one.
#[inline(always)]
fn fold<V: FloatVec, const MIN: bool>(acc: [V; CHAINS]) -> V {
    V::pick::<MIN>(
        V::pick::<MIN>(acc[0], acc[1]),
        V::pick::<MIN>(acc[2], acc[3]),
    )
}

/// The [`CHAINS`] vectors from `p` on.
///
/// SAFETY: `p` points at `CHAINS * LANES` readable elements.
#[inline(always)]
unsafe fn load_block<V: FloatVec>(p: *const V::T) -> [V; CHAINS] {
    // SAFETY: the k-th vector's LANES elements are inside the block.
    std::array::from_fn(|k| unsafe { V::load(p.add(k * V::LANES)) })
}

/// A block folded into the chains, its NaNs (tested in pairs) into `nan`.
#[inline(always)]
fn fold_block<V: FloatVec, const MIN: bool>(
    acc: &mut [V; CHAINS],
    v: [V; CHAINS],
    nan: V::Mask,
) -> V::Mask {
    for (a, &v) in acc.iter_mut().zip(&v) {
        *a = V::pick::<MIN>(v, *a);
    }
    V::nan_into(V::nan_into(nan, v[0], v[1]), v[2], v[3])
}

/// The lane's extreme (NaNs skipped; [`SimdFloat::start`] when it has
/// only NaNs) and whether it holds a NaN.
pub(in crate::kernels) fn extreme_and_nan<T: SimdFloat, const MIN: bool>(
    x: &[T],
    w: Width,
) -> (T, bool) {
    struct Extreme<'a, T, const MIN: bool>(&'a [T]);
    impl<T: SimdFloat, const MIN: bool> Pass for Extreme<'_, T, MIN> {
        type T = T;
        type Out = (T, bool);
        #[inline(always)]
        fn go<V: FloatVec<T = T>>(self) -> (T, bool) {
            extreme_body::<V, MIN>(self.0)
        }
    }
    run(w, Extreme::<T, MIN>(x))
}

/// `x` cut where a vector-aligned run starts. NumPy's arrays start 16
/// bytes past a cache line: unaligned, every AVX-512 load would span two.
#[inline(always)]
fn aligned<V: FloatVec>(x: &[V::T]) -> (&[V::T], &[V::T]) {
    let head = x.as_ptr().align_offset(std::mem::size_of::<V>());
    x.split_at(head.min(x.len()))
}

#[allow(clippy::eq_op)]
#[inline(always)]
fn extreme_body<V: FloatVec, const MIN: bool>(x: &[V::T]) -> (V::T, bool) {
    let (head, x) = aligned::<V>(x);
    let start = V::T::start::<MIN>();
    let mut acc = [V::splat(start); CHAINS];
    let mut nan = V::clear();
    let mut blocks = x.chunks_exact(CHAINS * V::LANES);
    for c in &mut blocks {
        // SAFETY: `c` holds CHAINS * LANES elements.
        let v = unsafe { load_block::<V>(c.as_ptr()) };
        nan = fold_block::<V, MIN>(&mut acc, v, nan);
    }
    let mut vectors = blocks.remainder().chunks_exact(V::LANES);
    for c in &mut vectors {
        // SAFETY: `c` holds LANES elements.
        let v = unsafe { V::load(c.as_ptr()) };
        acc[0] = V::pick::<MIN>(v, acc[0]);
        nan = V::nan_into(nan, v, v);
    }
    let tail = vectors.remainder();
    let any_nan = V::any(nan) || head.iter().chain(tail).any(|&v| v != v);
    let mut best = start;
    let lanes = V::lanes(fold::<V, MIN>(acc));
    for &a in head.iter().chain(&lanes[..V::LANES]).chain(tail) {
        if beats::<V::T, MIN>(a, best) {
            best = a;
        }
    }
    (best, any_nan)
}

/// Blocks of [`CHAINS`] vectors per span of [`argmax_tracked`].
const SPAN_BLOCKS: usize = 4;

/// The build the passes run in for `T`: AVX-512 for float64, AVX2 for
/// float32 (measured in the file's doc comment); `None` without AVX2.
pub(in crate::kernels) fn width_for<T: SimdFloat>() -> Option<Width> {
    match std::mem::size_of::<T>() {
        8 => Width::best(),
        _ => Width::avx2(),
    }
}

/// The first index of the lane's maximum (minimum with `MIN`), the first
/// NaN's if it holds one, NumPy's rule; `None` for lanes shorter than an
/// AVX2 block (32 float32) or too long for the span counts to be exact.
/// AVX-512 takes lanes from its own block (64 float32), AVX2 the shorter.
pub(super) fn argmax_tracked<T: SimdFloat, const MIN: bool>(x: &[T], w: Width) -> Option<usize> {
    struct Tracked<'a, T, const MIN: bool>(&'a [T]);
    impl<T: SimdFloat, const MIN: bool> Pass for Tracked<'_, T, MIN> {
        type T = T;
        type Out = Option<usize>;
        #[inline(always)]
        fn go<V: FloatVec<T = T>>(self) -> Option<usize> {
            tracked_aligned::<V, MIN>(self.0)
        }
    }
    run(w, Tracked::<T, MIN>(x)).or_else(|| w.narrower().and_then(|n| run(n, Tracked::<T, MIN>(x))))
}

/// [`argmax_tracked`] with vectors `V`: the part of `x` from the first
/// aligned vector by [`tracked_body`], the elements before it one by one.
#[allow(clippy::eq_op)]
#[inline(always)]
fn tracked_aligned<V: FloatVec, const MIN: bool>(x: &[V::T]) -> Option<usize> {
    let (head, body) = aligned::<V>(x);
    let at = head.len() + tracked_body::<V, MIN>(body)?;
    let mut best: Option<(V::T, usize)> = None;
    for (i, &v) in head.iter().enumerate() {
        if v != v {
            return Some(i);
        }
        if best.is_none_or(|(b, _)| beats::<V::T, MIN>(v, b)) {
            best = Some((v, i));
        }
    }
    // The head's extreme wins unless the body's beats it (or is a NaN).
    let v = x[at];
    Some(match best {
        Some((b, i)) if v == v && !beats::<V::T, MIN>(v, b) => i,
        _ => at,
    })
}

/// [`argmax_tracked`] of an aligned `x` with vectors `V`. One pass in spans of
/// [`SPAN_BLOCKS`] blocks: each span's extreme stays a vector, and per
/// vector lane the span where that lane's extreme was first met is kept (a
/// blend). The lane's first extreme lies in the earliest such span among
/// the lanes holding the overall extreme, so only from there is the lane
/// read again (a span is 128 float32 in AVX2). The span numbers are kept
/// as `T`, exact below 2^24 spans for float32 whatever the span's length.
/// Spans of 512 reduced to a scalar each, then one span read again, took
/// 1.45x NumPy's time on 2000x2000 float32 rows.
#[inline(always)]
fn tracked_body<V: FloatVec, const MIN: bool>(x: &[V::T]) -> Option<usize> {
    let block = CHAINS * V::LANES;
    let span = SPAN_BLOCKS * block;
    if x.len() < block || x.len() / span >= 1 << 24 {
        return None;
    }
    let start = V::splat(V::T::start::<MIN>());
    let (mut best, mut first) = (start, V::splat(V::T::from_count(0)));
    let mut nan = V::clear();
    let p = x.as_ptr();
    for k in 0..x.len().div_ceil(span) {
        let end = x.len().min((k + 1) * span);
        let mut acc = [start; CHAINS];
        // Whole blocks, then (last span only) one block ending at the end
        // of the lane. It reads some elements again: that changes neither
        // an extreme nor the span where a lane first met it (an element
        // read again equals, not beats, what its lane already holds).
        let mut at = k * span;
        while at < end {
            let from = at.min(end - block);
            // SAFETY: `from + block <= end <= x.len()`.
            let v = unsafe { load_block::<V>(p.add(from)) };
            nan = fold_block::<V, MIN>(&mut acc, v, nan);
            at += block;
        }
        let m = fold::<V, MIN>(acc);
        let k = V::splat(V::T::from_count(k));
        first = V::blend(first, k, V::beats_mask::<MIN>(m, best));
        best = V::pick::<MIN>(m, best);
    }
    if V::any(nan) {
        return first_body::<V>(x, Find::Nan);
    }
    Some(from_first_extreme::<V, MIN>(
        x,
        V::lanes(best),
        V::lanes(first),
        span,
    ))
}

/// The first index of the extreme, given per vector lane its extreme
/// (`best`) and the span where it was first met (`first`).
#[inline(always)]
fn from_first_extreme<V: FloatVec, const MIN: bool>(
    x: &[V::T],
    best: [V::T; MAX_LANES],
    first: [V::T; MAX_LANES],
    span: usize,
) -> usize {
    let pairs = best.into_iter().zip(first).take(V::LANES);
    let m = pairs.clone().fold(V::T::start::<MIN>(), |m, (b, _)| {
        if beats::<V::T, MIN>(b, m) {
            b
        } else {
            m
        }
    });
    // Lanes never beaten keep span 0, which is right: a lane of only the
    // starting value (-inf) has its first element as its maximum.
    let from = pairs
        .filter(|&(b, _)| b == m)
        .map(|(_, k)| k.to_count() * span)
        .min()
        .unwrap_or(0);
    from + first_body::<V>(&x[from..], Find::Equal(m)).unwrap_or(0)
}

/// What [`first_body`] looks for.
#[derive(Clone, Copy, Debug)]
enum Find<T> {
    /// The first NaN.
    Nan,
    /// The first element equal to this (not NaN).
    Equal(T),
}

/// The first index of `x` where `find` holds, [`first_body`] run in a
/// build (the tests' way in; `argmax_tracked` runs it inline).
#[cfg(test)]
fn find_first<T: SimdFloat>(x: &[T], find: Find<T>, w: Width) -> Option<usize> {
    struct First<'a, T>(&'a [T], Find<T>);
    impl<T: SimdFloat> Pass for First<'_, T> {
        type T = T;
        type Out = Option<usize>;
        #[inline(always)]
        fn go<V: FloatVec<T = T>>(self) -> Option<usize> {
            first_body::<V>(self.0, self.1)
        }
    }
    run(w, First(x, find))
}

/// The first index of `x` where `find` holds: the rescan of an `argmax`
/// span, [`CHAINS`] vectors tested per step (32 float32 per branch in
/// AVX2, 64 in AVX-512) where the generic loop took 16 with a horizontal
/// test each.
#[allow(clippy::eq_op)]
#[inline(always)]
fn first_body<V: FloatVec>(x: &[V::T], find: Find<V::T>) -> Option<usize> {
    match find {
        Find::Nan => first_where::<V>(x, V::nan_bits, |v| v != v),
        Find::Equal(m) => {
            let splat = V::splat(m);
            first_where::<V>(x, |v| V::eq_bits(v, splat), |v| v == m)
        }
    }
}

/// [`first_body`]'s loop: `bits` gives a vector's lanes where the test
/// holds as bits, `hit` the test on one element (for the tail).
#[inline(always)]
fn first_where<V: FloatVec>(
    x: &[V::T],
    bits: impl Fn(V) -> u32,
    hit: impl Fn(V::T) -> bool,
) -> Option<usize> {
    const { assert!(CHAINS * MAX_LANES <= 64, "a step's bits fit a u64") };
    let step = CHAINS * V::LANES;
    let mut blocks = x.chunks_exact(step);
    let mut start = 0;
    for c in &mut blocks {
        let mut found = 0u64;
        for k in 0..CHAINS {
            // SAFETY: `c` holds CHAINS * LANES elements.
            let v = unsafe { V::load(c.as_ptr().add(k * V::LANES)) };
            found |= u64::from(bits(v)) << (k * V::LANES);
        }
        if found != 0 {
            return Some(start + found.trailing_zeros() as usize);
        }
        start += step;
    }
    blocks
        .remainder()
        .iter()
        .position(|&v| hit(v))
        .map(|i| start + i)
}

#[cfg(test)]
#[path = "simd_tests.rs"]
mod tests;
