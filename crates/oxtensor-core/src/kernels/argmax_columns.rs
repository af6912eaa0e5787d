//! `argmax`/`argmin` over the leading axes of a C-contiguous array
//! (`argmax(x, axis=0)` of a matrix): the lanes are columns, so instead of
//! copying them into rows (`Lanes`, a transposing copy of the whole array)
//! the rows are read in memory order and each column's best value and its
//! row are updated side by side, a strip of columns per task.
//!
//! NumPy's rules hold per column: the first NaN wins (once a column's best
//! is NaN nothing beats it, and a NaN only replaces a non-NaN best), else
//! the first strict maximum (minimum with `MIN`) in row order.

use super::argmax::beats;
use super::lanes::has_avx2;
use crate::tensor::{Element, Tensor};
use rayon::prelude::*;

/// Columns per task: their best values and rows (16 KiB of float64 and
/// int64) stay in L1 while the strip's rows stream past.
const STRIP: usize = 1024;

/// Fewest columns worth this path; narrower arrays go through `Lanes`.
pub(super) const MIN_COLUMNS: usize = 16;

/// Folds one row into the strip's best values and rows. Branch-free, so
/// it vectorises: `take` is "beats the best", or "is the first NaN" (a NaN
/// not replacing a NaN best).
#[allow(clippy::eq_op)]
#[inline(always)]
fn fold_row<T: Element + PartialOrd, const MIN: bool>(
    row: &[T],
    at: i64,
    best: &mut [T],
    rows: &mut [i64],
) {
    for ((b, i), &v) in best.iter_mut().zip(rows.iter_mut()).zip(row) {
        let take = beats::<T, MIN>(v, *b) | ((v != v) & (*b == *b));
        *b = if take { v } else { *b };
        *i = if take { at } else { *i };
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn strip_avx2<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    start: usize,
    best: &mut [T],
    rows: &mut [i64],
) {
    strip_body::<T, MIN>(x, cols, start, best, rows);
}

/// The strip of columns `start..start + rows.len()`, all rows of `x`.
#[inline(always)]
fn strip_body<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    start: usize,
    best: &mut [T],
    rows: &mut [i64],
) {
    let w = rows.len();
    best.copy_from_slice(&x[start..start + w]);
    rows.fill(0);
    for (r, row) in x.chunks_exact(cols).enumerate().skip(1) {
        fold_row::<T, MIN>(&row[start..start + w], r as i64, best, rows);
    }
}

fn strip<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    start: usize,
    rows: &mut [i64],
    avx2: bool,
) {
    let mut best = vec![x[start]; rows.len()];
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has it (`has_avx2`).
        return unsafe { strip_avx2::<T, MIN>(x, cols, start, &mut best, rows) };
    }
    let _ = avx2;
    strip_body::<T, MIN>(x, cols, start, &mut best, rows);
}

/// The number of columns when `axes` are the leading axes of C-contiguous
/// `x`, with at least two rows and [`MIN_COLUMNS`] columns.
pub(super) fn leading_columns(x: &Tensor, axes: &[usize]) -> Option<usize> {
    let k = axes.len();
    let leading = axes.iter().enumerate().all(|(i, &a)| i == a);
    if !leading || k == 0 || k == x.ndim() || !x.is_c_contiguous() {
        return None;
    }
    let rows: usize = x.shape()[..k].iter().product();
    let cols: usize = x.shape()[k..].iter().product();
    (rows > 1 && cols >= MIN_COLUMNS).then_some(cols)
}

/// `out[c]`: the first row of the best value of column `c` of `x` read as
/// rows of `cols` (`x` non-empty, `out.len() == cols`).
pub(super) fn argmax_columns<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    out: &mut [i64],
) {
    let avx2 = has_avx2();
    let run = |(k, rows): (usize, &mut [i64])| strip::<T, MIN>(x, cols, k * STRIP, rows, avx2);
    if x.len() < super::PARALLEL_MIN || cols <= STRIP {
        out.chunks_mut(STRIP).enumerate().for_each(run);
    } else {
        out.par_chunks_mut(STRIP).enumerate().for_each(run);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Column by column, the plain way.
    fn reference(x: &[f64], cols: usize, min: bool) -> Vec<i64> {
        (0..cols)
            .map(|c| {
                let col: Vec<f64> = x.iter().skip(c).step_by(cols).copied().collect();
                if let Some(i) = col.iter().position(|v| v.is_nan()) {
                    return i as i64;
                }
                let pick = |a: f64, b: f64| if min { a.min(b) } else { a.max(b) };
                let m = col.iter().copied().reduce(pick).unwrap();
                col.iter().position(|&v| v == m).unwrap() as i64
            })
            .collect()
    }

    #[test]
    fn columns_match_the_reference_with_nans_ties_and_odd_strips() {
        for (rows_n, cols) in [(1, 16), (3, 17), (9, 1024), (7, 2500), (300, 1100)] {
            let mut x: Vec<f64> = (0..rows_n * cols).map(|i| ((i * 37) % 23) as f64).collect();
            x[(rows_n.min(2) - 1) * cols + 3] = f64::NAN;
            x[(rows_n - 1) * cols + cols - 1] = f64::NAN;
            x[cols / 2] = f64::NEG_INFINITY;
            x[(rows_n / 2) * cols + 5] = f64::INFINITY;
            for avx2 in [false, has_avx2()] {
                for min in [false, true] {
                    let mut out = vec![-1; cols];
                    for (k, rows) in out.chunks_mut(STRIP).enumerate() {
                        if min {
                            strip::<f64, true>(&x, cols, k * STRIP, rows, avx2);
                        } else {
                            strip::<f64, false>(&x, cols, k * STRIP, rows, avx2);
                        }
                    }
                    assert_eq!(out, reference(&x, cols, min), "{rows_n}x{cols} min={min}");
                }
            }
            let mut out = vec![-1; cols];
            argmax_columns::<f64, false>(&x, cols, &mut out);
            assert_eq!(out, reference(&x, cols, false), "parallel {rows_n}x{cols}");
        }
    }

    #[test]
    fn integers_and_float32_columns() {
        let x: Vec<i16> = (0..5 * 20).map(|i| ((i * 7919) % 31) as i16 - 15).collect();
        let mut out = vec![0; 20];
        argmax_columns::<i16, true>(&x, 20, &mut out);
        let as_f: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        assert_eq!(out, reference(&as_f, 20, true));
        let mut f: Vec<f32> = as_f.iter().map(|&v| v as f32).collect();
        f[2 * 20 + 4] = f32::NAN;
        argmax_columns::<f32, false>(&f, 20, &mut out);
        let back: Vec<f64> = f.iter().map(|&v| v as f64).collect();
        assert_eq!(out, reference(&back, 20, false));
    }
}
