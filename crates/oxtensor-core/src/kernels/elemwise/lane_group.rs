//! Float64 lanes read [`GROUP`] at a time: the maximum (or minimum) of the
//! same span of several contiguous lanes, with a NaN flag per lane: the
//! whole of float64 `max`/`min` over the last axes of a C-contiguous input
//! where `float_extremes` does not run (a CPU without AVX2), and float32
//! and float64 sums. Reading several lanes side by side keeps that
//! many memory streams in flight on each thread; one 32 KiB lane at a time
//! (4000x4000 rows) left a thread 1.3x to 1.5x slower than memory allows.

use super::lanes::for_each_lane;
use crate::kernels::cpu::has_avx2;
use crate::kernels::reduce::walk::LANES;
use crate::tensor::Element;

/// Lanes read together (four memory streams).
pub const GROUP: usize = 4;

/// Which end of the order a scan looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extreme {
    Max,
    Min,
}

impl Extreme {
    /// `v` replaces `a` when strictly beyond it (a NaN never does): the
    /// rule of `_mm256_max_pd(v, a)` / `_mm256_min_pd(v, a)`.
    #[inline(always)]
    pub fn pick(self, v: f64, a: f64) -> f64 {
        let beyond = match self {
            Extreme::Max => v > a,
            Extreme::Min => v < a,
        };
        if beyond {
            v
        } else {
            a
        }
    }

    /// The starting value every number replaces or equals.
    pub fn start(self) -> f64 {
        match self {
            Extreme::Max => f64::NEG_INFINITY,
            Extreme::Min => f64::INFINITY,
        }
    }
}

/// Per lane `r` of the group (lane `r` is `x[r * n..(r + 1) * n]`): the
/// extreme of `[s, e)` with NaNs skipped ([`Extreme::start`] when there
/// are only NaNs) and whether that span holds a NaN. Scalar: with AVX2
/// `float_extremes` takes every `max`/`min` this would see.
fn span_extremes(
    x: &[f64],
    n: usize,
    (s, e): (usize, usize),
    ext: Extreme,
) -> [(f64, bool); GROUP] {
    std::array::from_fn(|r| scalar_extreme(&x[r * n + s..r * n + e], ext))
}

/// One lane's span element by element, with [`Extreme::pick`].
fn scalar_extreme(span: &[f64], ext: Extreme) -> (f64, bool) {
    span.iter().fold((ext.start(), false), |(a, nan), &v| {
        (ext.pick(v, a), nan | v.is_nan())
    })
}

/// `out[i]` = the maximum (minimum) of lane `i` of `x` (lanes of `n > 0`
/// elements), NaN when the lane holds one (NumPy's rule), groups of lanes
/// split across threads.
pub fn extremes(x: &[f64], n: usize, out: &mut [f64], ext: Extreme) {
    if n == 0 {
        // No lanes to read (callers refuse empty max/min reductions).
        return;
    }
    let full = out.len() / GROUP * GROUP;
    let (xa, xb) = x.split_at(full * n);
    let (ya, yb) = out.split_at_mut(full);
    for_each_lane(xa, GROUP * n, ya, GROUP, |a, b| {
        let got = span_extremes(a, n, (0, n), ext);
        for (y, (m, nan)) in b.iter_mut().zip(got) {
            *y = if nan { f64::NAN } else { m };
        }
    });
    for (a, y) in xb.chunks_exact(n).zip(yb) {
        let (m, nan) = scalar_extreme(a, ext);
        *y = if nan { f64::NAN } else { m };
    }
}

/// Lanes folded together by [`folds`]: four streams (one thread on
/// 4000x4000 float64 rows: 1.4x faster than one lane at a time; eight
/// lanes of sixteen partials each spill registers in the generic loop).
const FOLD_GROUP: usize = 4;

/// `out[i] = f(init, fold of lane i)` for contiguous lanes of `n > 0`
/// elements, each lane folded in the order of `reduce_walk::fold_run`
/// ([`LANES`] interleaved partial results from `init`, then the tail's
/// fold, then the partials in order; lanes shorter than `2 * LANES` one
/// element at a time), so the results equal the general walk's.
pub fn folds<T: Element>(
    x: &[T],
    n: usize,
    out: &mut [T],
    init: T,
    f: impl Fn(T, T) -> T + Copy + Send + Sync,
) {
    if n == 0 {
        return;
    }
    let avx2 = has_avx2();
    let full = if n < 2 * LANES {
        0
    } else {
        out.len() / FOLD_GROUP * FOLD_GROUP
    };
    let (xa, xb) = x.split_at(full * n);
    let (ya, yb) = out.split_at_mut(full);
    for_each_lane(xa, FOLD_GROUP * n, ya, FOLD_GROUP, |a, b| {
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: `avx2` is only true when the CPU has it.
            return unsafe { fold_group_avx2(a, n, b, init, f) };
        }
        fold_group(a, n, b, init, f)
    });
    let _ = avx2;
    for (a, y) in xb.chunks_exact(n).zip(yb) {
        *y = f(init, fold_one(a, init, f));
    }
}

/// One lane in `reduce_walk::fold_run`'s order.
fn fold_one<T: Element>(a: &[T], init: T, f: impl Fn(T, T) -> T + Copy) -> T {
    if a.len() < 2 * LANES {
        return a.iter().fold(init, |s, &v| f(s, v));
    }
    fold_group_of::<T, 1>(a, a.len(), init, f)[0]
}

/// [`FOLD_GROUP`] lanes of `n >= 2 * LANES` folded side by side into `out`.
#[inline(always)]
fn fold_group<T: Element>(x: &[T], n: usize, out: &mut [T], init: T, f: impl Fn(T, T) -> T + Copy) {
    let got = fold_group_of::<T, FOLD_GROUP>(x, n, init, f);
    for (y, v) in out.iter_mut().zip(got) {
        *y = f(init, v);
    }
}

/// The folds of `G` lanes of `n` (lane `r` is `x[r * n..(r + 1) * n]`).
/// Written with fixed-size chunks and indexed partials: iterator chains
/// over the lanes compiled to a loop 1.2x to 2x slower.
#[inline(always)]
fn fold_group_of<T: Element, const G: usize>(
    x: &[T],
    n: usize,
    init: T,
    f: impl Fn(T, T) -> T + Copy,
) -> [T; G] {
    let mut acc = [[init; LANES]; G];
    let full = n / LANES * LANES;
    let mut i = 0;
    while i < full {
        for (r, a) in acc.iter_mut().enumerate() {
            let c: &[T; LANES] = x[r * n + i..r * n + i + LANES]
                .try_into()
                .expect("LANES elements");
            for k in 0..LANES {
                a[k] = f(a[k], c[k]);
            }
        }
        i += LANES;
    }
    std::array::from_fn(|r| {
        let tail = x[r * n + full..(r + 1) * n]
            .iter()
            .fold(init, |s, &v| f(s, v));
        acc[r].iter().fold(tail, |s, &l| f(s, l))
    })
}

/// [`fold_group`] in AVX2 code.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_group_avx2<T: Element>(
    x: &[T],
    n: usize,
    out: &mut [T],
    init: T,
    f: impl Fn(T, T) -> T + Copy,
) {
    fold_group(x, n, out, init, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NumPy's answer for one lane.
    fn reference(x: &[f64], ext: Extreme) -> f64 {
        if x.iter().any(|v| v.is_nan()) {
            return f64::NAN;
        }
        x.iter().fold(ext.start(), |a, &v| ext.pick(v, a))
    }

    fn same(a: f64, b: f64) -> bool {
        a == b || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn odd_lengths_nan_positions_and_infinities() {
        for n in [1, 2, 7, 8, 9, 15, 16, 17, 63, 100, 513] {
            // 11 lanes: two full groups and a remainder of three.
            let mut x: Vec<f64> = (0..11 * n).map(|i| ((i * 37) % 23) as f64 - 11.0).collect();
            x[0] = f64::NAN; // first element of lane 0
            x[2 * n - 1] = f64::NAN; // last element of lane 1
            x[2 * n + n / 2] = f64::NAN; // middle of lane 2
            x[3 * n..4 * n].fill(f64::NEG_INFINITY);
            x[4 * n..5 * n].fill(f64::INFINITY);
            x[10 * n] = f64::NAN; // in the remainder
            for ext in [Extreme::Max, Extreme::Min] {
                let mut out = vec![0.0; 11];
                extremes(&x, n, &mut out, ext);
                for (r, &got) in out.iter().enumerate() {
                    let want = reference(&x[r * n..(r + 1) * n], ext);
                    assert!(same(got, want), "n={n} lane {r} {ext:?}: {got} vs {want}");
                }
            }
        }
    }

    #[test]
    fn spans_give_each_lane_its_extreme_and_nan_flag() {
        let n = 100;
        let mut x: Vec<f64> = (0..GROUP * n).map(|i| ((i * 13) % 29) as f64).collect();
        x[n + 41] = f64::NAN;
        for span in [(0, 0), (0, 100), (3, 50), (40, 42), (41, 41), (90, 100)] {
            for ext in [Extreme::Max, Extreme::Min] {
                for (r, p) in span_extremes(&x, n, span, ext).iter().enumerate() {
                    let lane = &x[r * n + span.0..r * n + span.1];
                    let skipped = lane.iter().fold(ext.start(), |a, &v| ext.pick(v, a));
                    assert!(same(p.0, skipped), "{span:?} lane {r}: {p:?}");
                    assert_eq!(p.1, lane.iter().any(|v| v.is_nan()));
                }
            }
        }
    }

    #[test]
    fn many_lanes_run_in_parallel() {
        // 301 lanes of 300: above the parallel threshold, not a multiple
        // of the group.
        let (rows, n) = (301, 300);
        let mut x: Vec<f64> = (0..rows * n).map(|i| ((i * 7) % 101) as f64).collect();
        x[150 * n + 299] = f64::NAN;
        let mut out = vec![0.0; rows];
        extremes(&x, n, &mut out, Extreme::Max);
        for (r, &got) in out.iter().enumerate() {
            assert!(same(got, reference(&x[r * n..(r + 1) * n], Extreme::Max)));
        }
    }

    #[test]
    fn folds_equal_the_general_walk_order() {
        // Values whose sums depend on the order (1e16 swallows small
        // addends), lanes below, at and above 2 * LANES, 8k+3 of them.
        for n in [1, 5, 31, 32, 33, 47, 100, 1003] {
            let rows = 19;
            let x: Vec<f64> = (0..rows * n)
                .map(|i| match i % 5 {
                    0 => 1e16,
                    1 => -1e16,
                    _ => (i % 7) as f64 + 0.1,
                })
                .collect();
            let t = crate::tensor::Tensor::from_vec(vec![rows, n], x.clone()).unwrap();
            let mut want =
                crate::tensor::Tensor::zeros(crate::dtype::DType::Float64, &[rows]).unwrap();
            crate::kernels::reduce::walk::fill(&mut want, 0.0f64);
            crate::kernels::reduce::walk::reduce_typed(
                &t,
                &[1],
                &mut want,
                0.0,
                |a: f64, b: f64| a + b,
            );
            let mut got = vec![0.0; rows];
            folds(&x, n, &mut got, 0.0, |a, b| a + b);
            let want = want.as_slice::<f64>().unwrap();
            for r in 0..rows {
                assert_eq!(got[r].to_bits(), want[r].to_bits(), "n={n} lane {r}");
            }
        }
    }
}
