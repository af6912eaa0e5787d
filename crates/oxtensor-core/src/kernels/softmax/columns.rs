//! Softmax and log-softmax along an axis that is not the last of a
//! C-contiguous array, seen as (outer, n, inner): each task takes a few
//! adjacent columns of one outer block, copies their n × width elements
//! into scratch that stays in L2, normalises them there column by
//! column (the lane kernel's steps: maximum, shifted exponentials with
//! their sum, scale or shift) and writes the result once. Moving the axis
//! last instead copied the input and the output across pages never
//! touched before (softmax along axis 0 of 2000²: 0.37x NumPy).

use super::exp_sum::exp_shifted;
use super::SoftmaxKind;
use crate::kernels::vmath::{self, Func, Lane};
use rayon::prelude::*;

/// Columns per task: n rows of them fit in L2 for n in the thousands,
/// and a row piece is four AVX-512 vectors.
const WIDTH: usize = 32;

/// The element types columns are normalised in: their own, as NumPy
/// computes, with each column's sum kept in float64. (Float32 columns
/// were once widened to float64 scratch: log-softmax along axis 0 of 2000²
/// float32 ran at 0.60x NumPy on one thread, the float64 exponentials
/// taking twice the vectors.)
pub(super) trait ColumnFloat:
    Lane + PartialOrd + std::ops::SubAssign + std::ops::MulAssign + 'static
{
    /// Negative infinity, where a column's maximum starts.
    const NEG_INF: Self;
    /// `y = exp(x)` elementwise (`y` at least as long as `x`).
    fn exp_into(x: &[Self], y: &mut [Self]);
}

impl ColumnFloat for f64 {
    const NEG_INF: f64 = f64::NEG_INFINITY;
    fn exp_into(x: &[f64], y: &mut [f64]) {
        exp_shifted(x, 0.0, y);
    }
}

impl ColumnFloat for f32 {
    const NEG_INF: f32 = f32::NEG_INFINITY;
    fn exp_into(x: &[f32], y: &mut [f32]) {
        vmath::unary(Func::Exp, &mut y[..x.len()], x);
    }
}

/// `y`'s elements, written by tasks at disjoint positions.
#[derive(Clone, Copy)]
struct Out<T>(*mut T);

impl<T> Out<T> {
    /// The element at `at` (a method, so closures capture the `Sync`
    /// wrapper rather than its raw pointer field).
    fn at(&self, at: usize) -> *mut T {
        self.0.wrapping_add(at)
    }
}

// SAFETY: each task writes only the columns it owns (see `normalise`).
unsafe impl<T: Send> Sync for Out<T> {}
// SAFETY: as for `Sync` above.
unsafe impl<T: Send> Send for Out<T> {}

/// `kind` along the middle axis of `x` (outer × n × inner, C order) into
/// `y` of the same layout.
pub(super) fn softmax_columns<T: ColumnFloat>(
    kind: SoftmaxKind,
    x: &[T],
    y: &mut [T],
    (outer, n, inner): (usize, usize, usize),
) {
    assert_eq!(x.len(), outer * n * inner, "softmax_columns: layout");
    assert_eq!(y.len(), x.len(), "softmax_columns: output length");
    if x.is_empty() {
        return;
    }
    let chunks = inner.div_ceil(WIDTH);
    let out = Out(y.as_mut_ptr());
    let task = |scratch: &mut Vec<T>, t: usize| {
        let (o, c) = (t / chunks, (t % chunks) * WIDTH);
        let w = WIDTH.min(inner - c);
        let base = o * n * inner + c;
        scratch.clear();
        for j in 0..n {
            scratch.extend_from_slice(&x[base + j * inner..base + j * inner + w]);
        }
        normalise(kind, scratch, w);
        for (j, row) in scratch.chunks_exact(w).enumerate() {
            // SAFETY: the row's `w` elements from `base + j·inner` are
            // inside `y` (same layout as `x`, checked above), in columns
            // c..c+w of block `o`, which no other task writes.
            unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), out.at(base + j * inner), w) };
        }
    };
    let tasks = outer * chunks;
    if x.len() >= crate::kernels::PARALLEL_MIN && crate::kernels::threaded() {
        (0..tasks)
            .into_par_iter()
            .for_each_init(|| Vec::with_capacity(n * WIDTH), task);
    } else {
        let mut scratch = Vec::with_capacity(n * WIDTH);
        (0..tasks).for_each(|t| task(&mut scratch, t));
    }
}

/// Elements whose exponentials are taken in one call: a few rows of the
/// task's columns (one call per row of 32 cost more in the call than in
/// the exponentials: log-softmax along axis 0 of 2000² float32 0.85x NumPy).
const EXP_BLOCK: usize = 1024;

/// Normalises each of the `w` columns of `e` (n rows of `w`) in place,
/// with the widest build this CPU runs: the row loops are short (`w`
/// elements), and in SSE2 they took as long as the exponentials.
fn normalise<T: ColumnFloat>(kind: SoftmaxKind, e: &mut [T], w: usize) {
    #[cfg(target_arch = "x86_64")]
    match crate::kernels::cpu::level() {
        // SAFETY: `level` never names a build the CPU does not run.
        crate::kernels::cpu::Level::Avx512 => return unsafe { normalise_avx512(kind, e, w) },
        // SAFETY: as above.
        crate::kernels::cpu::Level::Avx2 => return unsafe { normalise_avx2(kind, e, w) },
        crate::kernels::cpu::Level::Base => {}
    }
    normalise_plain(kind, e, w);
}

/// # Safety
/// The CPU must run AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn normalise_avx2<T: ColumnFloat>(kind: SoftmaxKind, e: &mut [T], w: usize) {
    normalise_plain(kind, e, w);
}

/// # Safety
/// The CPU must run AVX-512 F, DQ and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
unsafe fn normalise_avx512<T: ColumnFloat>(kind: SoftmaxKind, e: &mut [T], w: usize) {
    normalise_plain(kind, e, w);
}

#[inline(always)]
fn normalise_plain<T: ColumnFloat>(kind: SoftmaxKind, e: &mut [T], w: usize) {
    let mut max = [T::NEG_INF; WIDTH];
    for row in e.chunks_exact(w) {
        for (m, &v) in max.iter_mut().zip(row) {
            // NaN skipped, as the lane maximum does: it reaches the sum.
            *m = if v > *m { v } else { *m };
        }
    }
    for row in e.chunks_exact_mut(w) {
        row.iter_mut().zip(&max).for_each(|(v, &m)| *v -= m);
    }
    // Whole rows per call, so an element's column is its place in its row;
    // each column is summed row after row, as one row at a time would.
    let (mut sum, mut ex) = ([0.0f64; WIDTH], [T::NEG_INF; EXP_BLOCK]);
    for rows in e.chunks_mut(EXP_BLOCK / w * w) {
        let ex = &mut ex[..rows.len()];
        T::exp_into(rows, ex);
        for row in ex.chunks_exact(w) {
            sum.iter_mut().zip(row).for_each(|(s, &v)| *s += v.wide());
        }
        // Log-softmax keeps the shifted values, its result's first term.
        if kind == SoftmaxKind::Softmax {
            rows.copy_from_slice(ex);
        }
    }
    // Once per column: the scale (softmax) or the shift (log-softmax).
    let mut by = [T::NEG_INF; WIDTH];
    for (b, &s) in by.iter_mut().zip(&sum[..w]) {
        *b = T::narrow(match kind {
            SoftmaxKind::Softmax => 1.0 / s,
            SoftmaxKind::LogSoftmax => s.ln(),
        });
    }
    for row in e.chunks_exact_mut(w) {
        match kind {
            SoftmaxKind::Softmax => row.iter_mut().zip(&by).for_each(|(v, &s)| *v *= s),
            SoftmaxKind::LogSoftmax => row.iter_mut().zip(&by).for_each(|(v, &s)| *v -= s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Softmax of one column by the textbook formula.
    fn reference(kind: SoftmaxKind, col: &[f64]) -> Vec<f64> {
        let m = col.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = col.iter().map(|v| (v - m).exp()).sum();
        col.iter()
            .map(|v| match kind {
                SoftmaxKind::Softmax => (v - m).exp() / s,
                SoftmaxKind::LogSoftmax => (v - m) - s.ln(),
            })
            .collect()
    }

    #[test]
    fn columns_of_every_block_match_the_formula() {
        for (outer, n, inner) in [(1, 5, 3), (2, 7, WIDTH + 5), (3, 1, 70), (1, 300, 400)] {
            let x: Vec<f64> = (0..outer * n * inner)
                .map(|i| ((i * 37) % 101) as f64 / 10.0 - 5.0)
                .collect();
            for kind in [SoftmaxKind::Softmax, SoftmaxKind::LogSoftmax] {
                let mut y = vec![f64::NAN; x.len()];
                softmax_columns(kind, &x, &mut y, (outer, n, inner));
                for o in 0..outer {
                    for c in 0..inner {
                        let at = |j: usize| o * n * inner + j * inner + c;
                        let col: Vec<f64> = (0..n).map(|j| x[at(j)]).collect();
                        for (j, want) in reference(kind, &col).into_iter().enumerate() {
                            let got = y[at(j)];
                            assert!(
                                (got - want).abs() <= 1e-14 * (1.0 + want.abs()),
                                "{got} {want}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn float32_nan_and_infinite_columns() {
        let nan = f32::NAN;
        let inf = f32::INFINITY;
        // Columns: [1, nan], [inf, 0], [-inf, -inf].
        let x = [1.0, inf, -inf, nan, 0.0, -inf];
        let mut y = [0.0f32; 6];
        softmax_columns(SoftmaxKind::Softmax, &x, &mut y, (1, 2, 3));
        assert!(y[0].is_nan() && y[3].is_nan());
        // inf - inf is NaN, and a NaN sum makes the whole column NaN
        // (NumPy's exp(x - max) / sum gives the same).
        assert!(y[1].is_nan() && y[4].is_nan(), "{y:?}");
        assert!(y[2].is_nan() && y[5].is_nan());
        softmax_columns(
            SoftmaxKind::LogSoftmax,
            &[0.5f32, 0.5],
            &mut y[..2],
            (1, 2, 1),
        );
        assert_eq!(y[..2], [-(2f32.ln()); 2]);
    }
}
