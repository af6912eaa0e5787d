//! Sorting one lane: an LSD radix sort on the order-preserving integer keys
//! of `kernels/sort/key.rs`, one byte per pass. All byte histograms come
//! from one read; a byte equal in every key is skipped. `argsort` carries
//! each element's index beside its key; LSD passes are stable, so ties keep
//! their input order. Short lanes are sorted by comparison instead.

use super::argsort_words::argsort_words;
use super::key::{as_keys, RadixKey, SortKey};
#[cfg(target_arch = "x86_64")]
use super::simd::with_avx512;
use rayon::prelude::*;
use smallvec::SmallVec;

/// Below this length a comparison sort of the keys beats the radix passes,
/// whose fixed cost is the histograms (256 counters per key byte).
const RADIX_MIN: usize = 256;

/// Counts of each value of one key byte.
type Counts = [u32; 256];

/// Buffers one thread reuses from lane to lane: two ping-pong arrays of
/// items (keys, or key and index pairs), the histograms, and the packed
/// words of `kernels/sort/argsort_words.rs`.
pub struct Scratch<I> {
    a: Vec<I>,
    b: Vec<I>,
    counts: [Counts; 8],
    words: Vec<u64>,
}

impl<I> Default for Scratch<I> {
    fn default() -> Self {
        Scratch {
            a: Vec::new(),
            b: Vec::new(),
            counts: [[0; 256]; 8],
            words: Vec::new(),
        }
    }
}

/// The item an `argsort` pass moves: the key and the input position.
pub type Ranked<K> = (K, u32);

/// Histograms of every byte of `keys` into `counts` (one per byte).
fn histograms<K: RadixKey>(keys: impl Iterator<Item = K>, counts: &mut [Counts; 8]) {
    counts[..K::BYTES].fill([0; 256]);
    for k in keys {
        // `K::BYTES` is a constant: the loop unrolls.
        for d in 0..K::BYTES {
            counts[d][k.byte(d)] += 1;
        }
    }
}

/// The key bytes that differ between keys: a pass over a byte that is the
/// same everywhere would leave the order as it is.
fn live_bytes(counts: &[Counts], n: usize) -> SmallVec<[usize; 8]> {
    (0..counts.len())
        .filter(|&d| counts[d].iter().all(|&c| (c as usize) < n))
        .collect()
}

/// One stable counting-sort pass: `f(i, src[i])` gives the item's byte
/// and what to write; items go to `dst` grouped by byte, in input order.
#[inline(always)]
fn scatter<S: Copy, D>(
    src: &[S],
    dst: &mut [D],
    counts: &Counts,
    f: impl Fn(usize, S) -> (usize, D),
) {
    let mut next = [0usize; 256];
    let mut sum = 0;
    for (o, &c) in next.iter_mut().zip(counts) {
        *o = sum;
        sum += c as usize;
    }
    assert!(
        sum == src.len() && dst.len() == src.len(),
        "counts of the source"
    );
    for (i, &s) in src.iter().enumerate() {
        let (d, v) = f(i, s);
        // SAFETY: `counts` is the histogram of these items' bytes (the
        // sum checked above), so bucket `d` is the range from its offset
        // to that plus `counts[d]`, and `next[d]` stays below its end,
        // which is at most `dst.len()`.
        unsafe { *dst.get_unchecked_mut(next[d]) = v };
        next[d] += 1;
    }
}

/// The radix passes over `bytes` from `x` into `out`: `load` makes the
/// item of an input, `byte` reads one of its key bytes and `store` makes
/// the output of a sorted item. The middle passes ping-pong in `scratch`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn passes<S: Copy, I: Copy + Default, D>(
    x: &[S],
    out: &mut [D],
    bytes: &[usize],
    scratch: &mut Scratch<I>,
    load: impl Fn(usize, S) -> I,
    byte: impl Fn(I, usize) -> usize,
    store: impl Fn(I) -> D,
) {
    let Scratch { a, b, counts, .. } = scratch;
    match *bytes {
        [] => out
            .iter_mut()
            .zip(x)
            .enumerate()
            .for_each(|(i, (o, &v))| *o = store(load(i, v))),
        [only] => scatter(x, out, &counts[only], |i, v| {
            let item = load(i, v);
            (byte(item, only), store(item))
        }),
        [first, ref middle @ .., last] => {
            a.resize(x.len(), I::default());
            b.resize(x.len(), I::default());
            scatter(x, a, &counts[first], |i, v| {
                let item = load(i, v);
                (byte(item, first), item)
            });
            for &d in middle {
                scatter(a, b, &counts[d], |_, item| (byte(item, d), item));
                std::mem::swap(a, b);
            }
            scatter(a, out, &counts[last], |_, item| {
                (byte(item, last), store(item))
            });
        }
    }
}

/// `x` sorted into `out` (same length), NaNs last: by the vector sort
/// where the CPU has one for the key width (the keys built in `out`, one
/// scratch array), else by radix passes, or by comparisons for short lanes.
pub fn sort_lane<T: SortKey>(scratch: &mut Scratch<T::Key>, x: &[T], out: &mut [T]) {
    if T::Key::has_vector_sort() {
        scratch.a.resize(x.len(), T::Key::default());
        if sort_vectorised(&mut scratch.a, x, out) {
            return;
        }
    }
    if radix_fits(x.len()) {
        radix_sort(scratch, x, out);
        return;
    }
    let keys = &mut scratch.a;
    keys.clear();
    keys.extend(x.iter().map(|v| v.key()));
    keys.sort_unstable();
    map_indexed(keys, out, |_, k| T::from_key(k));
}

#[cfg(not(target_arch = "x86_64"))]
fn with_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// [`sort_lane`] by the vector sort, `tmp` (as long as `x`) its scratch:
/// the keys are built in `out`, sorted into `tmp` and mapped back; `false`
/// (nothing done) where the CPU or the dtype has no vector sort.
pub fn sort_vectorised<T: SortKey>(tmp: &mut [T::Key], x: &[T], out: &mut [T]) -> bool {
    let Some(keys) = as_keys(out).filter(|_| T::Key::has_vector_sort()) else {
        return false;
    };
    map_indexed(x, keys, |_, v| v.key());
    T::Key::sort_vectorised(keys, tmp);
    map_indexed(tmp, out, |_, k| T::from_key(k));
    true
}

/// Lanes the radix passes take: long enough to repay the histograms, and
/// short enough for `u32` counts and positions.
fn radix_fits(n: usize) -> bool {
    (RADIX_MIN..=u32::MAX as usize).contains(&n)
}

/// [`sort_lane`] by radix passes (`radix_fits(x.len())`).
fn radix_sort<T: SortKey>(scratch: &mut Scratch<T::Key>, x: &[T], out: &mut [T]) {
    histograms(x.iter().map(|v| v.key()), &mut scratch.counts);
    let bytes = live_bytes(&scratch.counts[..T::Key::BYTES], x.len());
    let (load, byte) = (|_, v: T| v.key(), |k: T::Key, d| k.byte(d));
    passes(x, out, &bytes, scratch, load, byte, T::from_key);
}

/// `dst[i] = f(i, src[i])`, split across threads for long slices.
pub(super) fn map_indexed<A: Copy + Sync, B: Send>(
    src: &[A],
    dst: &mut [B],
    f: impl Fn(usize, A) -> B + Sync,
) {
    const CHUNK: usize = 1 << 16;
    let run = |start: usize, d: &mut [B], s: &[A]| {
        with_avx512(|| {
            d.iter_mut()
                .zip(s)
                .enumerate()
                .for_each(|(i, (d, &s))| *d = f(start + i, s))
        })
    };
    if src.len() < 4 * CHUNK {
        run(0, dst, src);
        return;
    }
    dst.par_chunks_mut(CHUNK)
        .zip(src.par_chunks(CHUNK))
        .enumerate()
        .for_each(|(k, (d, s))| run(k * CHUNK, d, s));
}

/// The positions that sort `x`, into `out`; ties keep their input order.
pub fn argsort_lane<T: SortKey>(scratch: &mut Scratch<Ranked<T::Key>>, x: &[T], out: &mut [i64]) {
    // Radix passes over one or two bytes beat the vector sort.
    let narrow = T::Key::BYTES < 4 && radix_fits(x.len());
    scratch.words.resize(if narrow { 0 } else { x.len() }, 0);
    if !narrow && argsort_words(&mut scratch.words, x, out) {
        return;
    }
    if x.len() > u32::MAX as usize {
        out.iter_mut().enumerate().for_each(|(i, o)| *o = i as i64);
        out.sort_by_key(|&i| x[i as usize].rank());
        return;
    }
    if !radix_fits(x.len()) {
        let items = &mut scratch.a;
        items.clear();
        items.extend(x.iter().enumerate().map(|(i, v)| (v.rank(), i as u32)));
        // The position breaks ties: an unstable sort gives the stable order.
        items.sort_unstable();
        out.iter_mut()
            .zip(items.iter())
            .for_each(|(o, &(_, i))| *o = i64::from(i));
        return;
    }
    histograms(x.iter().map(|v| v.rank()), &mut scratch.counts);
    let bytes = live_bytes(&scratch.counts[..T::Key::BYTES], x.len());
    passes(
        x,
        out,
        &bytes,
        scratch,
        |i, v| (v.rank(), i as u32),
        |(k, _), d| k.byte(d),
        |(_, i)| i64::from(i),
    );
}

#[cfg(test)]
#[path = "radix_tests.rs"]
mod tests;
