//! Softmax, log-softmax and logsumexp along lanes (see `lanes.rs`), each
//! lane numerically stable: the lane's maximum is subtracted before
//! exponentiating, the exponentials (shift and sum fused in) come from the
//! vectorised exponential (`exp_sum.rs`), and lanes run in parallel. `float32` lanes are
//! computed in `float64` and rounded once; `float16` goes through `float32`.

mod columns;
mod exp_sum;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::stream::{store_map, worth_streaming};
use crate::kernels::alloc::{output, Pool};
use crate::kernels::cpu::has_avx2;
use crate::kernels::elemwise::cast::cast;
use crate::kernels::elemwise::lanes::{for_each_lane, for_each_lane_init, Lanes};
use crate::kernels::vmath::{self, Func};
use crate::tensor::{Element, Tensor};
use columns::softmax_columns;
use exp_sum::{exp_shifted, sum_exp};
use rayon::prelude::*;

/// Which normalisation a softmax-like kernel computes per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SoftmaxKind {
    /// `exp(x - max) / sum(exp(x - max))`.
    Softmax,
    /// `x - max - log(sum(exp(x - max)))`.
    LogSoftmax,
}

/// Partial maxima: four AVX2 registers, enough to keep the pass memory-bound.
const ACC: usize = 16;

/// The maximum of a lane (NaN elements are skipped here; they make the
/// sum, and so the lane's result, NaN later).
#[inline(always)]
fn lane_max_body(x: &[f64]) -> f64 {
    let mut acc = [f64::NEG_INFINITY; ACC];
    let mut chunks = x.chunks_exact(ACC);
    for c in &mut chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = if v > *a { v } else { *a };
        }
    }
    let tail = chunks.remainder().iter().copied();
    acc.into_iter()
        .chain(tail)
        .fold(f64::NEG_INFINITY, f64::max)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn lane_max_avx2(x: &[f64]) -> f64 {
    lane_max_body(x)
}

/// [`lane_max_body`], in AVX2 code where the CPU has it (measured: 1.35x
/// faster than the SSE2 baseline build).
fn lane_max(x: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has the feature the function was compiled for.
        return unsafe { lane_max_avx2(x) };
    }
    lane_max_body(x)
}

/// Two passes over a lane that stays in L1/L2: the maximum, then the
/// shifted exponentials (written to `y` for softmax) and their sum in one
/// go; a last pass scales or shifts `y`.
fn softmax_lane(kind: SoftmaxKind, x: &[f64], y: &mut [f64]) {
    let m = lane_max(x);
    match kind {
        SoftmaxKind::Softmax => {
            let inv = 1.0 / exp_shifted(x, m, y);
            y.iter_mut().for_each(|o| *o *= inv);
        }
        SoftmaxKind::LogSoftmax => {
            // `y` holds the exponentials for a moment (faster than
            // `sum_exp`'s stack buffer), then `(x - m) - log_sum`, rounded
            // in NumPy's order.
            let log_sum = exp_shifted(x, m, y).ln();
            y.iter_mut()
                .zip(x)
                .for_each(|(o, &v)| *o = (v - m) - log_sum);
        }
    }
}

/// [`softmax_lane`] for outputs too large for the cache: the exponentials
/// go to `scratch` (in L1) and reach `y` once, in non-temporal stores
/// (see `stream.rs`); the values are the same.
fn softmax_lane_streamed(kind: SoftmaxKind, x: &[f64], y: &mut [f64], scratch: &mut [f64]) {
    let m = lane_max(x);
    let e = &mut scratch[..x.len()];
    match kind {
        SoftmaxKind::Softmax => {
            let inv = 1.0 / exp_shifted(x, m, e);
            store_map(y, e, |v| v * inv);
        }
        SoftmaxKind::LogSoftmax => {
            let log_sum = exp_shifted(x, m, e).ln();
            store_map(y, x, |v| (v - m) - log_sum);
        }
    }
}

/// `log(sum(exp(x)))` of a lane; infinite maxima are not subtracted, so
/// lanes of `-inf` give `-inf` and lanes holding `+inf` give `+inf`.
fn logsumexp_lane(x: &[f64]) -> f64 {
    let m = lane_max(x);
    let shift = if m.is_finite() { m } else { 0.0 };
    sum_exp(x, shift).ln() + shift
}

/// The dtype a kernel computes in, for an output of `dtype`.
fn compute_dtype(op: &str, dtype: DType) -> Result<DType> {
    match dtype {
        DType::Float64 | DType::Float32 => Ok(dtype),
        DType::Float16 => Ok(DType::Float32),
        other => Err(Error::Type(format!(
            "{op} computes in float16, float32 or float64, not {other}"
        ))),
    }
}

/// Runs `f` over `x`'s lanes as `float64` (converting `float32` lanes).
fn run_f64(
    lanes: &Lanes,
    out: &mut Tensor,
    m: usize,
    f: impl Fn(&[f64], &mut [f64]) + Sync + Send,
) {
    let n = lanes.n;
    if let Some(x) = lanes.data.as_slice::<f64>() {
        let y = out.as_mut_slice::<f64>().expect("fresh float64 output");
        return for_each_lane(x, n, y, m, f);
    }
    let x = lanes
        .data
        .as_slice::<f32>()
        .expect("lanes are float32 or float64");
    let y = out.as_mut_slice::<f32>().expect("fresh float32 output");
    // One pair of float64 scratch lanes per rayon job, not per lane.
    let init = || (vec![0.0; n], vec![0.0; m]);
    for_each_lane_init(x, n, y, m, init, |(wide, res), a, b| {
        wide.iter_mut().zip(a).for_each(|(w, &v)| *w = f64::from(v));
        f(wide, res);
        b.iter_mut()
            .zip(res.iter())
            .for_each(|(o, &v)| *o = v as f32);
    });
}

/// Softmax or log-softmax of `x` along `axis` (`None`: over all elements),
/// with the result in `dtype`.
pub fn softmax(
    kind: SoftmaxKind,
    x: &Tensor,
    axis: Option<usize>,
    dtype: DType,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    softmax_axes(kind, x, axis.map(|a| vec![a]).as_deref(), dtype, pool)
}

/// Softmax or log-softmax of `x` over the elements along `axes` taken
/// together (`None`: all elements), with the result in `dtype`.
pub fn softmax_axes(
    kind: SoftmaxKind,
    x: &Tensor,
    axes: Option<&[usize]>,
    dtype: DType,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let name = match kind {
        SoftmaxKind::Softmax => "Softmax",
        SoftmaxKind::LogSoftmax => "LogSoftmax",
    };
    let work = compute_dtype(name, dtype)?;
    let single = match axes {
        Some(&[a]) => Some(a),
        _ => None,
    };
    let axes: Vec<usize> = axes.map_or_else(|| (0..x.ndim()).collect(), <[usize]>::to_vec);
    let x = cast(x, work)?;
    if let Some(layout) = single.and_then(|a| columns_of(&x, a)) {
        return cast(&by_columns(kind, &x, layout, pool)?, dtype);
    }
    let lanes = Lanes::new(&x, &axes)?;
    let mut out = output(pool, work, &lanes.shape())?;
    let streamed = work == DType::Float64 && worth_streaming(lanes.data.len() * 8);
    if let (true, Some(xs)) = (streamed, lanes.data.as_slice::<f64>()) {
        let ys = out.as_mut_slice::<f64>().expect("fresh float64 output");
        let n = lanes.n;
        for_each_lane_init(
            xs,
            n,
            ys,
            n,
            || vec![0.0; n],
            |s, a, b| softmax_lane_streamed(kind, a, b, s),
        );
    } else {
        run_f64(&lanes, &mut out, lanes.n, |a, b| softmax_lane(kind, a, b));
    }
    cast(&lanes.restore(out)?, dtype)
}

/// `(outer, n, inner)` when `axis` is not `x`'s last and `x` is
/// C-contiguous: the column kernel applies.
fn columns_of(x: &Tensor, axis: usize) -> Option<(usize, usize, usize)> {
    let shape = x.shape();
    let inner: usize = shape.get(axis + 1..)?.iter().product();
    let outer: usize = shape[..axis].iter().product();
    let float = matches!(x.dtype(), DType::Float64 | DType::Float32);
    (float && axis + 1 < x.ndim() && x.is_c_contiguous()).then_some((outer, shape[axis], inner))
}

/// Softmax along the middle axis of `x` (C-contiguous float32 or float64,
/// as `columns_of` found it).
fn by_columns(
    kind: SoftmaxKind,
    x: &Tensor,
    layout: (usize, usize, usize),
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let mut out = output(pool, x.dtype(), x.shape())?;
    if let (Some(xs), Some(ys)) = (x.as_slice::<f64>(), out.as_mut_slice::<f64>()) {
        softmax_columns(kind, xs, ys, layout);
    } else if let (Some(xs), Some(ys)) = (x.as_slice::<f32>(), out.as_mut_slice::<f32>()) {
        softmax_columns(kind, xs, ys, layout);
    }
    Ok(out)
}

/// `log(sum(exp(x)))` over `axes` (sorted, in range), in `dtype`.
pub fn logsumexp(
    x: &Tensor,
    axes: &[usize],
    dtype: DType,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let work = compute_dtype("LogSumExp", dtype)?;
    let lanes = Lanes::new(&cast(x, work)?, axes)?;
    let kept = lanes.shape()[..x.ndim() - axes.len()].to_vec();
    let mut out = output(pool, work, &kept)?;
    if lanes.n == 0 {
        // An empty sum is 0, and its log -inf (NumPy's answer).
        let count = kept.iter().product();
        let filled = Tensor::from_vec(kept, vec![f64::NEG_INFINITY; count])?;
        return cast(&filled, dtype);
    }
    if lanes.rows == 1 && lanes.n >= 4 * PIECE {
        let value = match lanes.data.as_slice::<f64>() {
            Some(x) => logsumexp_long(x, |p, _| logsumexp_lane(p)),
            None => logsumexp_long(
                lanes.data.as_slice::<f32>().expect("float32 lanes"),
                |p, _| logsumexp_f32(p),
            ),
        };
        return cast(&Tensor::from_vec(kept, vec![value])?, dtype);
    }
    run_f64(&lanes, &mut out, 1, |a, b| b[0] = logsumexp_lane(a));
    cast(&out, dtype)
}

/// Elements per piece of a single long lane (`logsumexp` over all of a
/// large array).
const PIECE: usize = 1 << 16;

/// `logsumexp` of one long lane in pieces on several threads, as the
/// log-sum-exp of the pieces' log-sum-exps (an identity; NaN and infinite
/// pieces carry through it as through one lane): read once, in parallel,
/// and the same answer on any number of threads. One thread over the
/// whole lane took 2.3x NumPy's time on 4000x4000 float64, and float32
/// lanes were first widened whole (0.27x NumPy).
fn logsumexp_long<T: Element>(x: &[T], piece: impl Fn(&[T], &mut Vec<f64>) -> f64 + Sync) -> f64 {
    let pieces: Vec<f64> = x
        .par_chunks(PIECE)
        .map_init(Vec::new, |scratch, p| piece(p, scratch))
        .collect();
    logsumexp_lane(&pieces)
}

/// Float32 elements exponentiated per block (on the stack).
const F32_BLOCK: usize = 1024;

/// [`logsumexp_lane`] of float32 values as NumPy computes it in float32:
/// `x - max` and its `exp` in float32 (vmath's 16-wide float32 exp), the
/// sum in float64. Widening each piece to float64 first cost a third more
/// than NumPy's whole float32 logsumexp.
fn logsumexp_f32(x: &[f32]) -> f64 {
    let m = max_f32(x);
    let shift = if m.is_finite() { m } else { 0.0 };
    let (mut shifted, mut exps) = ([0f32; F32_BLOCK], [0f32; F32_BLOCK]);
    let mut sum = 0.0f64;
    for c in x.chunks(F32_BLOCK) {
        let (t, e) = (&mut shifted[..c.len()], &mut exps[..c.len()]);
        t.iter_mut().zip(c).for_each(|(t, &v)| *t = v - shift);
        vmath::unary(Func::Exp, e, t);
        sum += sum_f32_in_f64(e);
    }
    sum.ln() + f64::from(shift)
}

/// The largest element, NaNs skipped (`-inf` when there is none), in 16
/// running maxima so the loop vectorises.
fn max_f32(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 16];
    let chunks = x.chunks_exact(16);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = if v > *a { v } else { *a };
        }
    }
    rest.iter()
        .chain(acc.iter())
        .fold(f32::NEG_INFINITY, |a, &v| if v > a { v } else { a })
}

/// The sum of float32 values in float64, in 8 running sums.
fn sum_f32_in_f64(x: &[f32]) -> f64 {
    let mut acc = [0f64; 8];
    let chunks = x.chunks_exact(8);
    let rest: f64 = chunks.remainder().iter().map(|&v| f64::from(v)).sum();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += f64::from(v);
        }
    }
    acc.iter().sum::<f64>() + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-14 * y.abs().max(1.0), "{x} vs {y}");
        }
    }

    #[test]
    fn columns_rows_and_all_elements() {
        let x = Tensor::from_vec(vec![2, 3], vec![1.0, 2.0, 3.0, 1.0, 1.0, 1.0]).unwrap();
        let rows = softmax(SoftmaxKind::Softmax, &x, Some(1), DType::Float64, None).unwrap();
        let e: Vec<f64> = [1.0f64, 2.0, 3.0].iter().map(|v| v.exp()).collect();
        let s: f64 = e.iter().sum();
        let want = [
            e[0] / s,
            e[1] / s,
            e[2] / s,
            1.0 / 3.0,
            1.0 / 3.0,
            1.0 / 3.0,
        ];
        close(rows.as_slice::<f64>().unwrap(), &want);
        let cols = softmax(SoftmaxKind::LogSoftmax, &x, Some(0), DType::Float64, None).unwrap();
        let l2 = (1.0f64.exp() + 2.0f64.exp()).ln();
        let got = cols.as_slice::<f64>().unwrap();
        close(&[got[1], got[4]], &[2.0 - l2, 1.0 - l2]);
        let all = logsumexp(&x, &[0, 1], DType::Float64, None).unwrap();
        let want = (s + 3.0 * 1.0f64.exp()).ln();
        close(all.as_slice::<f64>().unwrap(), &[want]);
    }

    #[test]
    fn several_axes_form_one_distribution() {
        // (2, 3, 2) over axes 0 and 2: x[:, j, :] is one lane of 4.
        let x = Tensor::from_vec(vec![2, 3, 2], (0..12).map(f64::from).collect()).unwrap();
        let y = softmax_axes(
            SoftmaxKind::Softmax,
            &x,
            Some(&[0, 2]),
            DType::Float64,
            None,
        );
        let y = y.unwrap();
        let ys = y.as_slice::<f64>().unwrap();
        for j in 0..3 {
            let at = [2 * j, 2 * j + 1, 6 + 2 * j, 7 + 2 * j];
            let lane: Vec<f64> = at.iter().map(|&i| i as f64).collect();
            let got: Vec<f64> = at.iter().map(|&i| ys[i]).collect();
            close(&got, &reference(&lane).0);
        }
    }

    /// NumPy's formulas on one lane, with libm's `exp`.
    fn reference(x: &[f64]) -> (Vec<f64>, Vec<f64>, f64) {
        let m = x.iter().copied().fold(f64::NEG_INFINITY, |a, b| {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else {
                a.max(b)
            }
        });
        let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
        let s: f64 = e.iter().sum();
        let soft = e.iter().map(|v| v / s).collect();
        let log = x.iter().map(|v| (v - m) - s.ln()).collect();
        let shift = if m.is_infinite() { 0.0 } else { m };
        let lse = x.iter().map(|v| (v - shift).exp()).sum::<f64>().ln() + shift;
        (soft, log, lse)
    }

    /// Within `tol` (relative), where NaN matches NaN and infinities
    /// match exactly.
    fn same(a: &[f64], b: &[f64], tol: f64) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            if y.is_nan() || y.is_infinite() {
                assert!(x.is_nan() && y.is_nan() || x == y, "{x} vs {y}");
            } else {
                assert!((x - y).abs() <= tol * y.abs().max(1.0), "{x} vs {y}");
            }
        }
    }

    fn check_rows(x: &Tensor, n: usize, dtype: DType, tol: f64) {
        let soft = softmax(SoftmaxKind::Softmax, x, Some(1), dtype, None).unwrap();
        let log = softmax(SoftmaxKind::LogSoftmax, x, Some(1), dtype, None).unwrap();
        let lse = logsumexp(x, &[1], dtype, None).unwrap();
        let wide = |t: &Tensor| {
            cast(t, DType::Float64)
                .unwrap()
                .as_slice::<f64>()
                .unwrap()
                .to_vec()
        };
        let (soft, log, lse) = (wide(&soft), wide(&log), wide(&lse));
        let xs = wide(&cast(x, DType::Float64).unwrap());
        for (r, lane) in xs.chunks(n).enumerate() {
            let (ws, wl, wlse) = reference(lane);
            same(&soft[r * n..(r + 1) * n], &ws, tol);
            same(&log[r * n..(r + 1) * n], &wl, tol);
            same(&lse[r..r + 1], &[wlse], tol);
        }
    }

    #[test]
    fn odd_lengths_and_special_lanes_match_numpy_formulas() {
        for n in [1, 7, 31, 33, 100, 1001] {
            let mut data: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() * 20.0).collect();
            let mut special = |f: &dyn Fn(usize, &mut [f64])| {
                let mut lane: Vec<f64> = (0..n).map(|i| (i as f64 * 1.3).cos() * 5.0).collect();
                f(n, &mut lane);
                data.extend(lane);
            };
            special(&|_, l| l.iter_mut().for_each(|v| *v = f64::NEG_INFINITY));
            special(&|_, l| l[0] = f64::NAN);
            special(&|n, l| l[n - 1] = f64::NAN);
            special(&|n, l| l[n / 2] = f64::INFINITY);
            special(&|n, l| l[n / 3] = f64::NEG_INFINITY);
            let rows = data.len() / n;
            let x = Tensor::from_vec(vec![rows, n], data).unwrap();
            check_rows(&x, n, DType::Float64, 1e-13);
            check_rows(&cast(&x, DType::Float32).unwrap(), n, DType::Float32, 1e-6);
        }
    }

    #[test]
    fn streamed_lanes_equal_cached_ones() {
        for n in [1, 3, 7, 33, 1001] {
            let base: Vec<f64> = (0..n).map(|i| (i as f64 * 0.9).sin() * 30.0).collect();
            let mut lanes = vec![base.clone(), vec![f64::NEG_INFINITY; n]];
            for at in [0, n - 1] {
                let mut l = base.clone();
                l[at] = f64::NAN;
                lanes.push(l);
            }
            for x in &lanes {
                for kind in [SoftmaxKind::Softmax, SoftmaxKind::LogSoftmax] {
                    let mut want = vec![0.0; n];
                    softmax_lane(kind, x, &mut want);
                    // One element in: `y` starts off a 32-byte boundary.
                    let mut got = vec![0.0; n + 1];
                    softmax_lane_streamed(kind, x, &mut got[1..], &mut vec![0.0; n]);
                    let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got[1..]), bits(&want), "{kind:?} of {x:?}");
                }
            }
        }
    }

    #[test]
    fn float32_pieces_carry_nan_and_infinities() {
        let n = 4 * PIECE + 17;
        let base: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25 - 12.0).collect();
        let run = |x: Vec<f32>| {
            let t = Tensor::from_vec(vec![n], x).unwrap();
            logsumexp(&t, &[0], DType::Float32, None)
                .unwrap()
                .as_slice::<f32>()
                .unwrap()[0]
        };
        let with = |v: f32| {
            let mut x = base.clone();
            x[2 * PIECE + 3] = v;
            x
        };
        assert!(run(with(f32::NAN)).is_nan());
        assert_eq!(run(with(f32::INFINITY)), f32::INFINITY);
        assert_eq!(run(vec![f32::NEG_INFINITY; n]), f32::NEG_INFINITY);
        // A large shift: the maximum is taken out before exponentiating.
        let big: Vec<f32> = base.iter().map(|&v| v + 1000.0).collect();
        let wide: Vec<f64> = big.iter().map(|&v| f64::from(v)).collect();
        let want = logsumexp_lane(&wide);
        assert!((f64::from(run(big)) - want).abs() <= 4.0 * f64::from(f32::EPSILON) * want);
    }

    #[test]
    fn one_long_lane_in_pieces_matches_the_whole_lane() {
        let n = 5 * PIECE + 123;
        let x: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f64 * 0.05 - 20.0)
            .collect();
        let t = Tensor::from_vec(vec![n], x.clone()).unwrap();
        let got = logsumexp(&t, &[0], DType::Float64, None).unwrap();
        let want = logsumexp_lane(&x);
        assert!((got.as_slice::<f64>().unwrap()[0] - want).abs() <= 1e-12 * want.abs());
        let narrow: Vec<f32> = x[..n / 5 * 5].iter().map(|&v| v as f32).collect();
        let wide: Vec<f64> = narrow.iter().map(|&v| f64::from(v)).collect();
        let t32 = Tensor::from_vec(vec![n / 5, 5], narrow).unwrap();
        let got = logsumexp(&t32, &[0, 1], DType::Float32, None).unwrap();
        assert_eq!(got.shape(), &[] as &[usize]);
        // Within a few float32 ulp of the float64 answer (NumPy computes
        // `x - max` and `exp` in float32 too).
        let want = logsumexp_lane(&wide);
        let diff = (f64::from(got.as_slice::<f32>().unwrap()[0]) - want).abs();
        assert!(diff <= 4.0 * f64::from(f32::EPSILON) * want.abs(), "{diff}");
        for (special, want) in [(f64::NAN, f64::NAN), (f64::INFINITY, f64::INFINITY)] {
            let mut y = x.clone();
            y[3 * PIECE + 5] = special;
            let t = Tensor::from_vec(vec![n], y).unwrap();
            let got = logsumexp(&t, &[0], DType::Float64, None)
                .unwrap()
                .as_slice::<f64>()
                .unwrap()[0];
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "{special}: {got}"
            );
        }
        let lows = Tensor::from_vec(vec![n], vec![f64::NEG_INFINITY; n]).unwrap();
        let got = logsumexp(&lows, &[0], DType::Float64, None).unwrap();
        assert_eq!(got.as_slice::<f64>().unwrap()[0], f64::NEG_INFINITY);
    }

    #[test]
    fn strided_input_and_empty_lanes() {
        // Every other column of a 3x8 matrix: lanes that are not contiguous.
        let full =
            Tensor::from_vec(vec![3, 8], (0..24).map(|i| i as f64 * 0.25).collect()).unwrap();
        let v = full.view(&[3, 4], &[64, 16], 0).unwrap();
        let got = softmax(SoftmaxKind::Softmax, &v, Some(1), DType::Float64, None).unwrap();
        let lane = [0.0, 0.5, 1.0, 1.5];
        let (want, _, _) = reference(&lane);
        same(&got.as_slice::<f64>().unwrap()[..4], &want, 1e-14);
        let cols = logsumexp(&v, &[0], DType::Float64, None).unwrap();
        let (_, _, want) = reference(&[0.0, 2.0, 4.0]);
        same(&cols.as_slice::<f64>().unwrap()[..1], &[want], 1e-14);
        let empty = Tensor::zeros(DType::Float64, &[2, 0]).unwrap();
        let soft = softmax(SoftmaxKind::Softmax, &empty, Some(1), DType::Float64, None).unwrap();
        assert_eq!(soft.shape(), &[2, 0]);
        let lse = logsumexp(&empty, &[1], DType::Float64, None).unwrap();
        assert_eq!(lse.as_slice::<f64>().unwrap(), &[f64::NEG_INFINITY; 2]);
    }
}
