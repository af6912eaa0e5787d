//! Tests of `radix.rs`: every dtype against a comparison sort (and a
//! stable one for `argsort`), at lengths around the radix threshold, with
//! NaNs of both signs, ±0, ±inf, ties, and bytes that never change.

use super::*;
use crate::kernels::vmath::test_support::Rng;
use half::f16;
use std::cmp::Ordering;
use std::fmt::Debug;

const LENGTHS: [usize; 10] = [0, 1, 2, 7, 100, 255, 256, 257, 1000, 4099];

/// NumPy's order: NaN (`v != v`) after every number, equal to NaN.
#[allow(clippy::eq_op)]
fn nan_last<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    a.partial_cmp(b).unwrap_or_else(|| (a != a).cmp(&(b != b)))
}

/// A lane sort under test: scratch, input, output.
type Sorter<T> = fn(&mut Scratch<<T as SortKey>::Key>, &[T], &mut [T]);

/// Both sorts and `argsort` of `x` against the comparison sorts.
fn check<T: SortKey + PartialOrd + Debug>(x: &[T]) {
    let mut want = x.to_vec();
    want.sort_by(nan_last);
    let mut want_idx: Vec<i64> = (0..x.len() as i64).collect();
    want_idx.sort_by(|&i, &j| nan_last(&x[i as usize], &x[j as usize]));
    let mut keys_in: Vec<T::Key> = x.iter().map(|v| v.key()).collect();
    keys_in.sort_unstable();
    let sorters: [Sorter<T>; 2] = [sort_lane, radix_sort];
    for sorter in sorters {
        let mut out = vec![T::default(); x.len()];
        sorter(&mut Scratch::default(), x, &mut out);
        for (g, w) in out.iter().zip(&want) {
            assert_eq!(nan_last(g, w), Ordering::Equal, "{g:?} vs {w:?} in {x:?}");
        }
        // The same elements bit for bit (the key map is a bijection):
        // NaN payloads and the sign of zero survive.
        let mut keys_out: Vec<T::Key> = out.iter().map(|v| v.key()).collect();
        keys_out.sort_unstable();
        assert!(keys_out == keys_in, "not a permutation of {x:?}");
    }
    let mut idx = vec![0i64; x.len()];
    argsort_lane(&mut Scratch::default(), x, &mut idx);
    assert_eq!(idx, want_idx, "argsort of {x:?}");
}

/// `n` values of `make(random bits)`: a third drawn from `specials`, a
/// third ties among a few small values, a third anything.
fn sample<T: Copy>(rng: &mut Rng, n: usize, specials: &[T], make: impl Fn(u64) -> T) -> Vec<T> {
    (0..n)
        .map(|_| {
            let r = rng.next();
            match r % 3 {
                0 => specials[(r >> 8) as usize % specials.len()],
                1 => make((r >> 8) % 5),
                _ => make(r >> 2),
            }
        })
        .collect()
}

fn check_all<T: SortKey + PartialOrd + Debug>(specials: &[T], make: impl Fn(u64) -> T) {
    let mut rng = Rng(7);
    for n in LENGTHS {
        check(&sample(&mut rng, n, specials, &make));
    }
}

#[test]
fn floats_sort_like_numpy() {
    let specials = [
        f64::NAN,
        -f64::NAN,
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        5e-324,
    ];
    check_all(&specials, f64::from_bits);
    let specials32: Vec<f32> = specials.iter().map(|&v| v as f32).collect();
    check_all(&specials32, |r| f32::from_bits(r as u32));
    let specials16: Vec<f16> = specials.iter().map(|&v| f16::from_f64(v)).collect();
    check_all(&specials16, |r| f16::from_bits(r as u16));
}

#[test]
fn integers_and_bools_sort() {
    check_all(&[i64::MIN, i64::MAX, -1, 0], |r| r as i64);
    check_all(&[i32::MIN, i32::MAX, -1, 0], |r| r as i32);
    check_all(&[i16::MIN, i16::MAX, -1, 0], |r| r as i16);
    check_all(&[i8::MIN, i8::MAX, -1, 0], |r| r as i8);
    check_all(&[u64::MAX, 0], |r| r);
    check_all(&[u32::MAX, 0], |r| r as u32);
    check_all(&[u16::MAX, 0], |r| r as u16);
    check_all(&[u8::MAX, 0], |r| r as u8);
    check_all(&[true, false], |r| r & 1 == 1);
}

#[test]
fn constant_bytes_skip_passes() {
    // Only the low byte varies; multiples of 256 leave it constant; one
    // value throughout leaves every byte constant.
    let low: Vec<i64> = (0..3000).map(|i| (i * 37) % 200).collect();
    let bytes = {
        let mut s = Scratch::<u64>::default();
        histograms(low.iter().map(|v| v.key()), &mut s.counts);
        live_bytes(&s.counts[..8], low.len())
    };
    assert_eq!(bytes.as_slice(), &[0]);
    check(&low);
    check(&low.iter().map(|v| (v * 256) as u64).collect::<Vec<_>>());
    check(&vec![2.5f64; 1000]);
}
