//! Tests of `simd.rs`, each run in every build the CPU has (AVX2,
//! and AVX-512 where present), at lengths around both widths' blocks and
//! spans (AVX2: blocks of 32 float32 / 16 float64, spans 4x that;
//! AVX-512: twice each).

use super::*;

/// Lengths around every block and span length of both widths.
const LENGTHS: [usize; 26] = [
    0, 1, 5, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 300, 511,
    512, 513, 1000, 4099,
];

/// The extreme by the scalar rule, NaNs skipped.
fn want<T: SimdFloat>(x: &[T], min: bool) -> T {
    let mut best = if min {
        T::start::<true>()
    } else {
        T::start::<false>()
    };
    for &v in x {
        let better = if min { v < best } else { v > best };
        best = if better { v } else { best };
    }
    best
}

fn check<T: SimdFloat + From<i8> + std::fmt::Debug>(nan: T, w: Width) {
    for n in LENGTHS {
        let mut x: Vec<T> = (0..n)
            .map(|i| T::from(((i * 37) % 23) as i8 - 11))
            .collect();
        let (mx, mn) = (
            extreme_and_nan::<T, false>(&x, w),
            extreme_and_nan::<T, true>(&x, w),
        );
        assert_eq!(
            (mx, mn),
            ((want(&x, false), false), (want(&x, true), false)),
            "{w:?} n={n}"
        );
        for at in [0, n / 2, n.saturating_sub(1)]
            .into_iter()
            .filter(|&a| a < n)
        {
            let keep = x[at];
            x[at] = nan;
            for (min, got) in [
                (false, extreme_and_nan::<T, false>(&x, w)),
                (true, extreme_and_nan::<T, true>(&x, w)),
            ] {
                assert_eq!(got, (want(&x, min), true), "{w:?} n={n} NaN at {at}");
            }
            x[at] = keep;
        }
    }
}

fn check_first<T: SimdFloat + From<i8>>(nan: T, w: Width) {
    for n in LENGTHS {
        for at in [0, n / 3, n.saturating_sub(1)] {
            let mut x: Vec<T> = (0..n).map(|i| T::from((i % 5) as i8)).collect();
            let seven = T::from(7);
            let want = (at < n).then_some(at);
            if let Some(a) = want {
                x[a] = seven;
                x[n - 1] = if a == n - 1 { seven } else { T::from(0) };
            }
            let got = find_first(&x, Find::Equal(seven), w);
            assert_eq!(got, want, "{w:?} n={n} at={at}");
            if let Some(a) = want {
                x[a] = nan;
                assert_eq!(
                    find_first(&x, Find::Nan, w),
                    want,
                    "{w:?} n={n} at={at}: NaN"
                );
            }
        }
    }
}

/// NumPy's answer: the first NaN, else the first maximum (minimum).
fn reference(x: &[f64], min: bool) -> usize {
    if let Some(i) = x.iter().position(|v| v.is_nan()) {
        return i;
    }
    let m = x.iter().copied().fold(x[0], |m, v| match min {
        true if v < m => v,
        false if v > m => v,
        _ => m,
    });
    x.iter().position(|&v| v == m).unwrap_or(0)
}

/// The tracked pass's answer; refused lanes are given the reference's.
fn tracked<T: SimdFloat>(
    x: &[f64],
    narrow: impl Fn(f64) -> T,
    min: bool,
    w: Width,
) -> Option<usize> {
    let y: Vec<T> = x.iter().map(|&v| narrow(v)).collect();
    let got = match min {
        true => argmax_tracked::<T, true>(&y, w),
        false => argmax_tracked::<T, false>(&y, w),
    };
    // Refused when the part from the first aligned vector is shorter than
    // an AVX2 block, so always below a block, never from a block and a
    // vector on.
    let lanes = <T::W256 as FloatVec>::LANES;
    let (short, long) = (CHAINS * lanes, (CHAINS + 1) * lanes);
    assert!(got.is_some() || x.len() < long, "n={} refused", x.len());
    assert!(got.is_none() || x.len() >= short, "n={} taken", x.len());
    got.or(Some(reference(x, min)))
}

/// Few distinct values (ties in many spans and vector lanes), lanes of
/// only -inf or +inf, zeros of both signs, and a NaN first, in the middle
/// and last.
fn cases(n: usize, seed: usize) -> Vec<Vec<f64>> {
    let base: Vec<f64> = (0..n)
        .map(|i| ((i * 7919 + seed * 104_729) % 13) as f64 - 6.0)
        .collect();
    let zeros = base
        .iter()
        .map(|&v| match v {
            6.0 => 0.0,
            v if v > 0.0 => -0.0,
            v => v,
        })
        .collect();
    let mut cases = vec![
        base.clone(),
        vec![f64::NEG_INFINITY; n],
        vec![f64::INFINITY; n],
        zeros,
    ];
    for at in [0, n / 2, n - 1] {
        let mut v = base.clone();
        v[at] = f64::NAN;
        cases.push(v);
    }
    cases
}

#[test]
fn tracked_pass_finds_the_first_extreme_and_the_first_nan() {
    for w in Width::all() {
        for n in LENGTHS.into_iter().filter(|&n| n > 0) {
            for seed in 0..5 {
                for x in &cases(n, seed) {
                    for min in [false, true] {
                        let want = Some(reference(x, min));
                        let got = tracked(x, |v| v, min, w);
                        assert_eq!(got, want, "{w:?} f64 n={n} min={min} {x:?}");
                        let got = tracked(x, |v| v as f32, min, w);
                        assert_eq!(got, want, "{w:?} f32 n={n} min={min} {x:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn tracked_pass_prefers_the_earliest_of_tied_extremes() {
    // The maximum twice, in different spans and vector lanes, and a
    // smaller value last: the answer is the earlier maximum.
    for w in Width::all() {
        for n in [1000usize, 4099] {
            let mut x = vec![0.0f64; n];
            x[n - 3] = 5.0;
            x[n / 2 + 1] = 5.0;
            x[n - 1] = 4.0;
            for min in [false, true] {
                let y: Vec<f64> = x.iter().map(|&v| if min { -v } else { v }).collect();
                assert_eq!(tracked(&y, |v| v as f32, min, w), Some(n / 2 + 1), "{w:?}");
            }
        }
    }
}

#[test]
fn first_where_finds_the_first_hit_in_blocks_and_tail() {
    for w in Width::all() {
        check_first::<f64>(f64::NAN, w);
        check_first::<f32>(f32::NAN, w);
    }
}

#[test]
fn float32_and_float64_passes_find_the_extreme_and_nans() {
    for w in Width::all() {
        check::<f64>(f64::NAN, w);
        check::<f32>(f32::NAN, w);
    }
}

#[test]
fn every_detected_build_is_tested() {
    let all = Width::all();
    assert_eq!(!all.is_empty(), has_avx2());
    let wide = crate::kernels::cpu::level() == Level::Avx512;
    assert_eq!(all.contains(&Width(Build::Avx512)), wide);
    assert!(Width::best().is_none_or(|b| all.contains(&b)));
}

#[test]
fn passes_agree_at_every_start_alignment() {
    // Each start of a 64-byte line: the head before the first aligned
    // vector is from none to fifteen elements, with the extreme or NaN in it.
    for w in Width::all() {
        for n in LENGTHS.into_iter().filter(|&n| n > 0) {
            let pad: Vec<f64> = (0..n + 16).map(|i| ((i * 31) % 11) as f64).collect();
            for off in 0..16 {
                for poke in [None, Some((off, 20.0)), Some((off + n / 2, f64::NAN))] {
                    let mut x = pad[off..off + n].to_vec();
                    if let Some((at, v)) = poke.filter(|&(at, _)| at < off + n) {
                        x[at - off] = v;
                    }
                    let y: Vec<f32> = pad[..off].iter().chain(&x).map(|&v| v as f32).collect();
                    let y = &y[off..];
                    for min in [false, true] {
                        let want = reference(&x, min);
                        let got = match min {
                            true => argmax_tracked::<f32, true>(y, w),
                            false => argmax_tracked::<f32, false>(y, w),
                        };
                        assert_eq!(got.unwrap_or(want), want, "{w:?} n={n} off={off}");
                    }
                    let (m, nan) = extreme_and_nan::<f32, false>(y, w);
                    assert_eq!(nan, x.iter().any(|v| v.is_nan()), "{w:?} n={n} off={off}");
                    assert_eq!(m, want(y, false), "{w:?} n={n} off={off}");
                }
            }
        }
    }
}
