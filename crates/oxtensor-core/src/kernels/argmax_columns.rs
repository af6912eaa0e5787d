//! `argmax`/`argmin` over the leading axes of a C-contiguous array
//! (`argmax(x, axis=0)` of a matrix): the lanes are columns, so instead of
//! copying them into rows (`Lanes`, a transposing copy of the whole array)
//! the rows are read in memory order.
//!
//! Most rows change no column's best value (on random data a column's
//! best changes about ln(rows) times), so the rows are taken in blocks of
//! [`ROWS`]: the block's extreme of [`WIDTH`] columns at a time is found
//! in registers (loads and compares only), and only where it beats the
//! best so far, or the block holds a NaN, are those columns folded again
//! row by row with their row numbers. Updating the best values and rows at
//! every element instead cost 3x a `sum` over the same matrix: LLVM turns
//! the conditional updates into masked stores, slow on AMD cores.
//!
//! NumPy's rules hold per column: the first NaN wins (once a column's best
//! is NaN nothing beats it, and a NaN only replaces a non-NaN best), else
//! the first strict maximum (minimum with `MIN`) in row order.

use super::argmax::beats;
use super::lanes::has_avx2;
use crate::tensor::{Element, Tensor};
use rayon::prelude::*;

/// Columns whose block extremes stay in registers together.
const WIDTH: usize = 32;

/// Rows per block: enough that the check after each block is cheap, few
/// enough that a block's rows are still in cache when a column is folded
/// again.
const ROWS: usize = 8;

/// Fewest columns worth this path; narrower arrays go through `Lanes`.
pub(super) const MIN_COLUMNS: usize = 16;

/// The best values and their rows of every column over a range of rows.
struct Best<T> {
    values: Vec<T>,
    rows: Vec<i64>,
}

/// Folds one row into the best values and rows of its columns (the exact
/// rule, element by element). `take` is "beats the best", or "is the
/// first NaN" (a NaN not replacing a NaN best).
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

/// Whether rows `block` of columns `c..c + WIDTH` (rows of `cols`) may
/// change a best value: their extreme beats it, or one of them is NaN. A
/// NaN, once taken as a column's extreme, stays (nothing beats it), so
/// one test after the block finds it; the extremes stay in registers
/// (a separate NaN flag per column cost packing bools every row).
#[allow(clippy::eq_op)]
#[inline(always)]
fn block_may_change<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    block: std::ops::Range<usize>,
    c: usize,
    best: &[T],
) -> bool {
    let first = block.start * cols + c;
    let mut ext: [T; WIDTH] = x[first..first + WIDTH].try_into().expect("WIDTH values");
    for r in block.start + 1..block.end {
        let row = &x[r * cols + c..r * cols + c + WIDTH];
        for j in 0..WIDTH {
            let v = row[j];
            ext[j] = if beats::<T, MIN>(v, ext[j]) | (v != v) {
                v
            } else {
                ext[j]
            };
        }
    }
    let best = &best[c..c + WIDTH];
    let mut any = false;
    for j in 0..WIDTH {
        any |= (ext[j] != ext[j]) | beats::<T, MIN>(ext[j], best[j]);
    }
    any
}

/// Rows `range` of `x` (rows of `cols`, `range` not empty) into `best`.
#[inline(always)]
fn fold_rows<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    range: std::ops::Range<usize>,
    best: &mut Best<T>,
) {
    let full = cols / WIDTH * WIDTH;
    let mut r = range.start;
    while r < range.end {
        let block = r..(r + ROWS).min(range.end);
        for c in (0..full).step_by(WIDTH) {
            if block_may_change::<T, MIN>(x, cols, block.clone(), c, &best.values) {
                fold_block::<T, MIN>(x, cols, block.clone(), c..c + WIDTH, best);
            }
        }
        fold_block::<T, MIN>(x, cols, block.clone(), full..cols, best);
        r = block.end;
    }
}

/// Columns `span` of rows `block`, row by row with the exact rule.
#[inline(always)]
fn fold_block<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    block: std::ops::Range<usize>,
    span: std::ops::Range<usize>,
    best: &mut Best<T>,
) {
    for r in block {
        let row = &x[r * cols + span.start..r * cols + span.end];
        let (values, rows) = (&mut best.values[span.clone()], &mut best.rows[span.clone()]);
        fold_row::<T, MIN>(row, r as i64, values, rows);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fold_rows_avx2<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    range: std::ops::Range<usize>,
    best: &mut Best<T>,
) {
    fold_rows::<T, MIN>(x, cols, range, best);
}

/// The best values and rows of every column over rows `range` (not empty).
fn part<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    range: std::ops::Range<usize>,
    avx2: bool,
) -> Best<T> {
    let first = range.start * cols;
    let mut best = Best {
        values: x[first..first + cols].to_vec(),
        rows: vec![range.start as i64; cols],
    };
    let rest = range.start + 1..range.end;
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has it (`has_avx2`).
        unsafe { fold_rows_avx2::<T, MIN>(x, cols, rest, &mut best) };
        return best;
    }
    let _ = avx2;
    fold_rows::<T, MIN>(x, cols, rest, &mut best);
    best
}

/// `earlier` updated with the answers of the rows after its own: a later
/// range's best wins by the rule a later row's value would.
#[allow(clippy::eq_op)]
fn join<T: Element + PartialOrd, const MIN: bool>(earlier: &mut Best<T>, later: &Best<T>) {
    let values = earlier.values.iter_mut().zip(&later.values);
    for ((b, &v), (i, &at)) in values.zip(earlier.rows.iter_mut().zip(&later.rows)) {
        if beats::<T, MIN>(v, *b) | ((v != v) & (*b == *b)) {
            (*b, *i) = (v, at);
        }
    }
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
/// rows of `cols` (`x` non-empty, `out.len() == cols`). Large inputs are
/// split into ranges of rows, one per thread, whose answers are joined in
/// row order (a later range wins only by the same rule as a later row).
pub(super) fn argmax_columns<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    out: &mut [i64],
) {
    let avx2 = has_avx2();
    let n_rows = x.len() / cols;
    let parts = match x.len() >= super::PARALLEL_MIN {
        true => rayon::current_num_threads().min(n_rows / ROWS).max(1),
        false => 1,
    };
    let per = n_rows.div_ceil(parts);
    let ranges: Vec<_> = (0..n_rows)
        .step_by(per)
        .map(|r| r..(r + per).min(n_rows))
        .collect();
    let mut bests: Vec<Best<T>> = match parts {
        1 => vec![part::<T, MIN>(x, cols, 0..n_rows, avx2)],
        _ => ranges
            .into_par_iter()
            .map(|r| part::<T, MIN>(x, cols, r, avx2))
            .collect(),
    };
    let mut joined = bests.remove(0);
    for later in &bests {
        join::<T, MIN>(&mut joined, later);
    }
    out.copy_from_slice(&joined.rows);
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

    /// Rows split into `parts` ranges, each folded on its own, then joined.
    fn split<const MIN: bool>(x: &[f64], cols: usize, parts: usize, avx2: bool) -> Vec<i64> {
        let n_rows = x.len() / cols;
        let per = n_rows.div_ceil(parts);
        let mut bests = (0..n_rows)
            .step_by(per)
            .map(|r| part::<f64, MIN>(x, cols, r..(r + per).min(n_rows), avx2));
        let mut joined = bests.next().unwrap();
        for later in bests {
            join::<f64, MIN>(&mut joined, &later);
        }
        joined.rows
    }

    #[test]
    fn columns_match_the_reference_with_nans_ties_and_odd_widths() {
        for (rows_n, cols) in [
            (1, 16),
            (3, 17),
            (9, 1024),
            (7, 2500),
            (300, 1100),
            (41, 70),
        ] {
            let mut x: Vec<f64> = (0..rows_n * cols).map(|i| ((i * 37) % 23) as f64).collect();
            x[(rows_n.min(2) - 1) * cols + 3] = f64::NAN;
            x[(rows_n - 1) * cols + cols - 1] = f64::NAN;
            x[cols / 2] = f64::NEG_INFINITY;
            x[(rows_n / 2) * cols + 5] = f64::INFINITY;
            for avx2 in [false, has_avx2()] {
                for parts in [1, 2, 3] {
                    let (max, min) = (reference(&x, cols, false), reference(&x, cols, true));
                    let at = format!("{rows_n}x{cols} in {parts} parts");
                    assert_eq!(split::<false>(&x, cols, parts, avx2), max, "{at}");
                    assert_eq!(split::<true>(&x, cols, parts, avx2), min, "{at} min");
                }
            }
            let mut out = vec![-1; cols];
            argmax_columns::<f64, false>(&x, cols, &mut out);
            assert_eq!(out, reference(&x, cols, false), "parallel {rows_n}x{cols}");
        }
    }

    /// Columns whose best changes in every block (rising), never after the
    /// first row (falling), in the middle of a block, or to a NaN that a
    /// later NaN must not replace; ties everywhere else.
    #[test]
    fn blocks_that_change_a_best_value_are_refolded_exactly() {
        let (rows_n, cols) = (50, 2 * WIDTH + 5);
        let mut x = vec![1.0; rows_n * cols];
        for r in 0..rows_n {
            x[r * cols] = r as f64;
            x[r * cols + 1] = -(r as f64);
        }
        x[13 * cols + 2] = 5.0;
        x[17 * cols + WIDTH + 3] = f64::NAN;
        x[30 * cols + WIDTH + 3] = f64::NAN;
        x[44 * cols + cols - 1] = 2.0;
        for avx2 in [false, has_avx2()] {
            for parts in [1, 2, 4] {
                assert_eq!(
                    split::<false>(&x, cols, parts, avx2),
                    reference(&x, cols, false)
                );
                assert_eq!(
                    split::<true>(&x, cols, parts, avx2),
                    reference(&x, cols, true)
                );
            }
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
