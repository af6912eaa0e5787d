//! `max`/`min` of float32 and float64 over the trailing axes of a
//! C-contiguous input, with AVX2 (AVX-512 for float64): each lane's
//! extreme and NaN flag from the first pass of `argmax`
//! (`argmax_simd::extreme_and_nan`, four vector chains). The general
//! walk's NaN-aware fold kept two float32 chains and ran latency-bound:
//! 0.48x NumPy's `max` of 2000x2000 float32. Float64 lanes four at a time
//! (`lane_group`, which `reduce.rs` tried first before) took 1.3x to
//! 1.55x as long on one thread on 4000x4000 and 2000x2000 rows. Lanes are split
//! across threads from `PARALLEL_BYTES`, one long lane in pieces; on one
//! thread the work stays on the calling thread (handing it to the pool's
//! thread and waiting took about 0.05 ms: `max()` of 2000x2000 float32
//! went from 0.84x NumPy to 1.1x-1.3x).

#![cfg(target_arch = "x86_64")]

use super::float_vec::SimdFloat;
use super::lanes::for_each_lane;
use crate::dtype::DType;
use crate::kernels::argmax::lane::beats;
use crate::kernels::argmax::simd::{extreme_and_nan, width_for, Width};
use crate::kernels::argmax::split::PIECE;
use crate::kernels::reduce::trailing_lane;
use crate::kernels::PARALLEL_BYTES;
use crate::reduction::ReduceKind;
use crate::tensor::Tensor;
use num_traits::Float;
use rayon::prelude::*;

/// `max`/`min` of `t` over `axes` into `out` when they are trailing axes
/// of a C-contiguous float input and the CPU has AVX2; returns whether it
/// ran. (`reduce.rs` tries this before `lane_group`.)
pub(crate) fn trailing_extremes(
    kind: ReduceKind,
    t: &Tensor,
    axes: &[usize],
    out: &mut Tensor,
) -> bool {
    let min = match kind {
        ReduceKind::Max => false,
        ReduceKind::Min => true,
        _ => return false,
    };
    let Some(n) = trailing_lane(t, axes) else {
        return false;
    };
    match (t.dtype(), min) {
        (DType::Float32, false) => lanes::<f32, false>(t, n, out),
        (DType::Float32, true) => lanes::<f32, true>(t, n, out),
        (DType::Float64, false) => lanes::<f64, false>(t, n, out),
        (DType::Float64, true) => lanes::<f64, true>(t, n, out),
        _ => false,
    }
}

/// Every lane of `n` into its output element.
fn lanes<T: SimdFloat + Float, const MIN: bool>(t: &Tensor, n: usize, out: &mut Tensor) -> bool {
    let (Some(x), Some(y), Some(w)) =
        (t.as_slice::<T>(), out.as_mut_slice::<T>(), width_for::<T>())
    else {
        return false;
    };
    // One thread: no rayon job (handing it to the pool's thread and
    // waiting cost more than the split saves).
    let big = std::mem::size_of_val(x) >= PARALLEL_BYTES && crate::kernels::threaded();
    match y {
        [one] if big && n >= 2 * PIECE => *one = long_lane::<T, MIN>(x, w),
        _ if big => for_each_lane(x, n, y, 1, |a, b| b[0] = lane::<T, MIN>(a, w)),
        _ => x
            .chunks_exact(n)
            .zip(y.iter_mut())
            .for_each(|(a, b)| *b = lane::<T, MIN>(a, w)),
    }
    true
}

/// One lane's extreme, NaN if it holds one (NumPy's rule).
fn lane<T: SimdFloat + Float, const MIN: bool>(x: &[T], w: Width) -> T {
    answer(extreme_and_nan::<T, MIN>(x, w))
}

fn answer<T: Float>((m, nan): (T, bool)) -> T {
    if nan {
        T::nan()
    } else {
        m
    }
}

/// One long lane in pieces across threads, the pieces' extremes (NaNs
/// skipped) and NaN flags combined.
fn long_lane<T: SimdFloat + Float, const MIN: bool>(x: &[T], w: Width) -> T {
    let pick = |a: T, b: T| if beats::<T, MIN>(b, a) { b } else { a };
    answer(
        x.par_chunks(PIECE)
            .map(|c| extreme_and_nan::<T, MIN>(c, w))
            .reduce(
                || (T::start::<MIN>(), false),
                |(a, p), (b, q)| (pick(a, b), p | q),
            ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    /// `max`/`min` over the last axis, as f64s, or `None` if not taken.
    fn run(kind: ReduceKind, t: &Tensor) -> Option<Vec<f64>> {
        let rows = t.shape()[0];
        let mut out = Tensor::uninit(t.dtype(), &[rows]).unwrap();
        if !trailing_extremes(kind, t, &[1], &mut out) {
            return None;
        }
        Some(
            (0..rows)
                .map(|i| match out.get(i) {
                    Scalar::Float(v, _) => v,
                    other => panic!("{other:?}"),
                })
                .collect(),
        )
    }

    /// NumPy's answer: NaN if the lane holds one, else its extreme.
    fn reference(x: &[f64], kind: ReduceKind) -> f64 {
        if x.iter().any(|v| v.is_nan()) {
            return f64::NAN;
        }
        let max = kind == ReduceKind::Max;
        x.iter().copied().fold(
            if max {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
            |m, v| if max { m.max(v) } else { m.min(v) },
        )
    }

    fn check(rows: usize, n: usize, poke: impl Fn(&mut [f64])) {
        let mut x: Vec<f64> = (0..rows * n)
            .map(|i| ((i * 7919) % 1013) as f64 - 500.0)
            .collect();
        poke(&mut x);
        for kind in [ReduceKind::Max, ReduceKind::Min] {
            let want: Vec<f64> = x.chunks(n).map(|l| reference(l, kind)).collect();
            let wide = Tensor::from_vec(vec![rows, n], x.clone()).unwrap();
            let narrow =
                Tensor::from_vec(vec![rows, n], x.iter().map(|&v| v as f32).collect()).unwrap();
            for t in [wide, narrow] {
                let Some(got) = run(kind, &t) else { return };
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
                assert!(same, "{kind:?} {:?} rows={rows} n={n}", t.dtype());
            }
        }
    }

    #[test]
    fn lanes_match_numpy_with_nans_and_infinities() {
        for n in [1, 3, 31, 32, 33, 100, 1000] {
            check(5, n, |_| {});
            check(5, n, |x| {
                x[0] = f64::NAN;
                x[x.len() - 1] = f64::INFINITY;
                x[x.len() / 2] = f64::NEG_INFINITY;
            });
        }
    }

    #[test]
    fn threaded_lanes_and_one_long_lane() {
        // 12.8 MB of float64 in four lanes, then in one (pieces).
        check(4, 400_000, |x| x[1_234_567] = f64::NAN);
        check(1, 1_600_000, |x| x[999_999] = 1e9);
        check(1, 1_600_000, |x| x[1_500_001] = f64::NAN);
    }

    #[test]
    fn other_axes_and_kinds_are_left_to_the_walk() {
        let t = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2., 3., 4.]).unwrap();
        let mut out = Tensor::uninit(DType::Float64, &[2]).unwrap();
        assert!(!trailing_extremes(ReduceKind::Max, &t, &[0], &mut out));
        assert!(!trailing_extremes(ReduceKind::Sum, &t, &[1], &mut out));
    }
}
