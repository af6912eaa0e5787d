//! `argsort` as a sort of packed words: each element's rank key (less the
//! smallest) in the high bits of a `u64` and its position in the low bits,
//! so the vector sort of plain integers (`kernels/sort/simd.rs`) orders
//! elements by key with ties in input order (a stable argsort). When the
//! keys span too many bits to leave room for the position (floats of both
//! signs, wide integers), their low bits give way, and runs of words whose
//! kept bits tie are put in order by full key afterwards (rare in real
//! data: values a few ulps apart; equal values are ties already in order).

use super::key::{as_keys, RadixKey, SortKey};
use super::radix::map_indexed;
use rayon::prelude::*;

/// The positions that sort `x`, into `out`, with `words` as scratch (both
/// as long as `x`); `false`, `out` untouched, where the CPU has no vector
/// sort.
pub fn argsort_words<T: SortKey>(words: &mut [u64], x: &[T], out: &mut [i64]) -> bool {
    if !u64::has_vector_sort() {
        return false;
    }
    let n = x.len();
    let position_bits = usize::BITS - n.saturating_sub(1).leading_zeros();
    let low = u64::MAX.checked_shr(64 - position_bits).unwrap_or(0);
    let (min, max) = rank_range(x);
    // The top bit of the largest `rank - min` at the word's top bit.
    let shift = (max - min).leading_zeros();
    let packed = as_keys(out).expect("int64 positions are plain bits");
    map_indexed(x, packed, |i, v| {
        ((v.rank().widen() - min).checked_shl(shift).unwrap_or(0) & !low) | i as u64
    });
    u64::sort_vectorised(packed, words);
    if position_bits > shift {
        order_ties(x, words, low);
    }
    map_indexed(words, out, |_, w| (w & low) as i64);
    true
}

/// The smallest and largest rank in `x` (`(0, 0)` if empty).
fn rank_range<T: SortKey>(x: &[T]) -> (u64, u64) {
    let range = |xs: &[T]| {
        xs.iter().fold((u64::MAX, 0), |(lo, hi), v| {
            let r = v.rank().widen();
            (lo.min(r), hi.max(r))
        })
    };
    let both = |a: (u64, u64), b: (u64, u64)| (a.0.min(b.0), a.1.max(b.1));
    let (lo, hi) = if x.len() < 1 << 18 {
        range(x)
    } else {
        x.par_chunks(1 << 16)
            .map(range)
            .reduce(|| (u64::MAX, 0), both)
    };
    (lo.min(hi), hi)
}

/// Sorts each run of `words` whose bits above `low` tie by the full rank
/// of the elements their positions (the `low` bits) name, then position.
fn order_ties<T: SortKey>(x: &[T], words: &mut [u64], low: u64) {
    let mut run: Vec<(T::Key, u64)> = Vec::new();
    let mut start = 0;
    for i in 1..=words.len() {
        if i < words.len() && words[i] & !low == words[start] & !low {
            continue;
        }
        if i - start > 1 {
            run.clear();
            run.extend(
                words[start..i]
                    .iter()
                    .map(|&w| (x[(w & low) as usize].rank(), w)),
            );
            if !run.is_sorted() {
                run.sort_unstable();
                words[start..i]
                    .iter_mut()
                    .zip(&run)
                    .for_each(|(w, &(_, r))| *w = r);
            }
        }
        start = i;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stable_argsort<T: SortKey>(x: &[T]) -> Vec<i64> {
        let mut idx: Vec<i64> = (0..x.len() as i64).collect();
        idx.sort_by_key(|&i| x[i as usize].rank());
        idx
    }

    fn check<T: SortKey>(x: &[T]) {
        let mut out = vec![-1; x.len()];
        if argsort_words(&mut vec![0; x.len()], x, &mut out) {
            assert!(out == stable_argsort(x), "argsort of {} elements", x.len());
        } else {
            assert!(out.iter().all(|&i| i == -1));
        }
    }

    #[test]
    fn ties_of_the_kept_bits_are_put_in_order() {
        // 3000 positions take 12 bits of a 64-bit key: values 1 ulp apart
        // tie in the kept bits; whole runs of them come out reversed.
        let x: Vec<f64> = (0..3000u64)
            .map(|i| f64::from_bits(1.0f64.to_bits() + 2999 - i))
            .collect();
        check(&x);
        let shuffled: Vec<f64> = (0..3000).map(|i| x[(i * 7) % 3000]).collect();
        check(&shuffled);
        check(&vec![f64::NAN; 300]);
        check(&[0.0, -0.0, 0.0, -0.0, f64::NAN, -f64::NAN, 1.0]);
    }

    #[test]
    fn keys_are_packed_from_their_smallest() {
        // A span of 2^40 with 1000 positions fits a word: no ties to order.
        let x: Vec<i64> = (0..1000i64).map(|i| (i * 7919 % 1000) << 30).collect();
        check(&x);
        check(&x.iter().map(|&v| -v).collect::<Vec<_>>());
        check(&[i64::MIN, i64::MAX, 0, i64::MIN, -1]);
    }

    #[test]
    fn narrow_keys_keep_every_bit() {
        let x: Vec<i32> = (0..5000).map(|i| ((i * 7919) % 1000) - 500).collect();
        check(&x);
        check(&x.iter().map(|&v| v as i16).collect::<Vec<_>>());
        check(&x.iter().map(|&v| v as f32).collect::<Vec<_>>());
        check::<u64>(&[]);
        check(&[5u64]);
    }
}
