//! `argmax`/`argmin` over the leading axes of a C-contiguous array
//! (`argmax(x, axis=0)` of a matrix): the lanes are columns, so instead of
//! copying them into rows (`Lanes`, a transposing copy of the whole array)
//! the rows are read in memory order, one after another, as `max` along
//! axis 0 reads them.
//!
//! Most rows change no column's best value (on random data a column's
//! best changes about ln(rows) times), so each row is first compared with
//! the best values [`WIDTH`] columns at a time (loads and compares only),
//! and only where one of those columns would change is the row folded
//! into them element by element with its row number. Updating the best
//! values and rows at every element instead cost 3x a `sum` over the same
//! matrix: LLVM turns the conditional updates into masked stores, slow on
//! AMD cores. The first [`EAGER`] rows of a range change most columns, so
//! they are folded without the test (whose branch would mispredict).
//!
//! Float columns on x86 test in vectors ([`FloatVec::replaces_into`]).
//! Measured on float64 4000x4000 in a Rust harness, two threads: `max`
//! along axis 0 2.6-2.7 ms, this pass 2.8-3.0 ms (3.0-3.1 without the
//! eager rows); the generic test 3.7-3.8 ms (4.1-4.2 when its tests are
//! or'ed into a `bool`, which LLVM packs to bytes); the blocks of 8 rows
//! it replaced (the block's extremes in registers, then compared) 3.9-4.5
//! ms, probably because eight rows 32 KB apart read side by side keep
//! fewer loads in flight than one row read straight through.
//!
//! NumPy's rules hold per column: the first NaN wins (once a column's best
//! is NaN nothing beats it, and a NaN only replaces a non-NaN best), else
//! the first strict maximum (minimum with `MIN`) in row order.

use super::lane::beats;
#[cfg(target_arch = "x86_64")]
use super::simd::{run, width_for, Pass, Width};
use crate::kernels::cpu::has_avx2;
#[cfg(target_arch = "x86_64")]
use crate::kernels::float_vec::{FloatVec, SimdFloat};
use crate::tensor::{Element, Tensor};
use rayon::prelude::*;

/// Columns a row is compared with at a time, before any is updated.
const WIDTH: usize = 32;

/// Rows at the start of a range folded without the test: on random data
/// row `r` changes one of [`WIDTH`] columns with odds about `WIDTH / r`.
const EAGER: usize = 48;

/// Fewest columns worth this path; narrower arrays go through `Lanes`.
pub(super) const MIN_COLUMNS: usize = 16;

/// The best values and their rows of every column over a range of rows.
struct Best<T> {
    values: Vec<T>,
    rows: Vec<i64>,
}

/// Whether `v` replaces the best value `b`: it beats it, or it is the
/// first NaN (a NaN does not replace a NaN best).
#[allow(clippy::eq_op)]
#[inline(always)]
fn replaces<T: PartialOrd + Copy, const MIN: bool>(v: T, b: T) -> bool {
    beats::<T, MIN>(v, b) | ((v != v) & (b == b))
}

/// Folds one row into the best values and rows of its columns (the exact
/// rule, element by element).
#[inline(always)]
fn fold_row<T: Element + PartialOrd, const MIN: bool>(
    row: &[T],
    at: i64,
    best: &mut [T],
    rows: &mut [i64],
) {
    for ((b, i), &v) in best.iter_mut().zip(rows.iter_mut()).zip(row) {
        let take = replaces::<T, MIN>(v, *b);
        *b = if take { v } else { *b };
        *i = if take { at } else { *i };
    }
}

/// Whether any of the first [`WIDTH`] values of `row` replaces its best
/// value. The tests are or'ed into an integer, not a `bool`: LLVM packs
/// `bool`s to bytes first (see the file's doc for the timings).
#[inline(always)]
fn may_change<T: PartialOrd + Copy, const MIN: bool>(row: &[T], best: &[T]) -> bool {
    let mut any = 0u32;
    for (&v, &b) in row[..WIDTH].iter().zip(&best[..WIDTH]) {
        any |= u32::from(replaces::<T, MIN>(v, b));
    }
    any != 0
}

/// Rows `range` of `x` (rows of `cols`) into `best`, testing [`WIDTH`]
/// columns of a row with `test(row, best)` before folding them. Callers
/// pass a closure, not the function item itself: the item was called
/// through a `Fn::call` shim left out of line, so in baseline code
/// outside the AVX2 build (int64 columns took 1.5x as long).
#[inline(always)]
fn fold_rows<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    range: std::ops::Range<usize>,
    best: &mut Best<T>,
    test: impl Fn(&[T], &[T]) -> bool,
) {
    let full = cols / WIDTH * WIDTH;
    let eager = range.start + EAGER;
    for r in range {
        let row = &x[r * cols..(r + 1) * cols];
        let (values, rows) = (&mut best.values, &mut best.rows);
        for c in (0..full).step_by(WIDTH) {
            let span = c..c + WIDTH;
            if r < eager || test(&row[span.clone()], &values[span.clone()]) {
                fold_row::<T, MIN>(
                    &row[span.clone()],
                    r as i64,
                    &mut values[span.clone()],
                    &mut rows[span],
                );
            }
        }
        fold_row::<T, MIN>(
            &row[full..],
            r as i64,
            &mut values[full..],
            &mut rows[full..],
        );
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
    fold_rows::<T, MIN>(x, cols, range, best, |row, best| {
        may_change::<T, MIN>(row, best)
    });
}

/// Best values and rows starting from row `start` alone.
fn first_row<T: Element>(x: &[T], cols: usize, start: usize) -> Best<T> {
    Best {
        values: x[start * cols..(start + 1) * cols].to_vec(),
        rows: vec![start as i64; cols],
    }
}

/// The best values and rows of every column over rows `range` (not
/// empty), with the generic test (AVX2 code when `avx2`).
fn part<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    range: std::ops::Range<usize>,
    avx2: bool,
) -> Best<T> {
    let mut best = first_row(x, cols, range.start);
    let rest = range.start + 1..range.end;
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has it (`has_avx2`).
        unsafe { fold_rows_avx2::<T, MIN>(x, cols, rest, &mut best) };
        return best;
    }
    let _ = avx2;
    fold_rows::<T, MIN>(x, cols, rest, &mut best, |row, best| {
        may_change::<T, MIN>(row, best)
    });
    best
}

/// [`fold_rows`] with the vector test of a build.
#[cfg(target_arch = "x86_64")]
struct VectorRows<'a, T, const MIN: bool> {
    x: &'a [T],
    cols: usize,
    range: std::ops::Range<usize>,
    best: &'a mut Best<T>,
}

#[cfg(target_arch = "x86_64")]
impl<T: SimdFloat, const MIN: bool> Pass for VectorRows<'_, T, MIN> {
    type T = T;
    type Out = ();
    #[inline(always)]
    fn go<V: FloatVec<T = T>>(self) {
        fold_rows::<T, MIN>(self.x, self.cols, self.range, self.best, |row, best| {
            vector_may_change::<V, MIN>(row, best)
        });
    }
}

/// [`may_change`] in vectors `V`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn vector_may_change<V: FloatVec, const MIN: bool>(row: &[V::T], best: &[V::T]) -> bool {
    let (row, best) = (&row[..WIDTH], &best[..WIDTH]);
    let mut mask = V::clear();
    for k in (0..WIDTH).step_by(V::LANES) {
        // SAFETY: both slices hold WIDTH elements and LANES divides WIDTH.
        let (v, b) = unsafe { (V::load(row.as_ptr().add(k)), V::load(best.as_ptr().add(k))) };
        mask = V::replaces_into::<MIN>(mask, v, b);
    }
    V::any(mask)
}

/// [`part`] for float columns, tested in vectors of build `w`.
#[cfg(target_arch = "x86_64")]
fn vector_part<T: SimdFloat, const MIN: bool>(
    x: &[T],
    cols: usize,
    range: std::ops::Range<usize>,
    w: Width,
) -> Best<T> {
    let mut best = first_row(x, cols, range.start);
    let range = range.start + 1..range.end;
    run(
        w,
        VectorRows::<T, MIN> {
            x,
            cols,
            range,
            best: &mut best,
        },
    );
    best
}

/// `earlier` updated with the answers of the rows after its own: a later
/// range's best wins by the rule a later row's value would.
fn join<T: Element + PartialOrd, const MIN: bool>(earlier: &mut Best<T>, later: &Best<T>) {
    let values = earlier.values.iter_mut().zip(&later.values);
    for ((b, &v), (i, &at)) in values.zip(earlier.rows.iter_mut().zip(&later.rows)) {
        if replaces::<T, MIN>(v, *b) {
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
/// rows of `cols` (`x` non-empty, `out.len() == cols`).
pub(super) fn argmax_columns<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    out: &mut [i64],
) {
    let avx2 = has_avx2();
    split_rows::<T, MIN>(x, cols, out, |r| part::<T, MIN>(x, cols, r, avx2));
}

/// [`argmax_columns`] for float32 and float64: the rows tested in vectors
/// where the CPU has AVX2 (AVX-512 for float64 where it has that,
/// `width_for`).
pub(super) fn argmax_float_columns<T: SimdFloat, const MIN: bool>(
    x: &[T],
    cols: usize,
    out: &mut [i64],
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(w) = width_for::<T>() {
        split_rows::<T, MIN>(x, cols, out, |r| vector_part::<T, MIN>(x, cols, r, w));
        return;
    }
    argmax_columns::<T, MIN>(x, cols, out);
}

/// Large inputs split into ranges of rows, one per thread, each folded by
/// `part` and joined in row order (a later range wins only by the same
/// rule as a later row).
fn split_rows<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    cols: usize,
    out: &mut [i64],
    part: impl Fn(std::ops::Range<usize>) -> Best<T> + Sync,
) {
    let n_rows = x.len() / cols;
    let parts = match x.len() >= crate::kernels::PARALLEL_MIN {
        true => rayon::current_num_threads().min(n_rows / EAGER).max(1),
        false => 1,
    };
    let per = n_rows.div_ceil(parts);
    let ranges: Vec<_> = (0..n_rows)
        .step_by(per)
        .map(|r| r..(r + per).min(n_rows))
        .collect();
    let mut bests: Vec<Best<T>> = match parts {
        1 => vec![part(0..n_rows)],
        _ => ranges.into_par_iter().map(&part).collect(),
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

    /// A way to fold a range of rows: the generic test, without or with
    /// AVX2, or the vector test of each build the CPU runs.
    #[derive(Clone, Copy, Debug)]
    enum Fold {
        Plain(bool),
        #[cfg(target_arch = "x86_64")]
        Vectors(Width),
    }

    fn folds() -> Vec<Fold> {
        let mut all = vec![Fold::Plain(false), Fold::Plain(has_avx2())];
        #[cfg(target_arch = "x86_64")]
        all.extend(Width::all().into_iter().map(Fold::Vectors));
        all
    }

    fn fold_part<T: SimdFloat, const MIN: bool>(
        x: &[T],
        cols: usize,
        r: std::ops::Range<usize>,
        how: Fold,
    ) -> Best<T> {
        match how {
            Fold::Plain(avx2) => part::<T, MIN>(x, cols, r, avx2),
            #[cfg(target_arch = "x86_64")]
            Fold::Vectors(w) => vector_part::<T, MIN>(x, cols, r, w),
        }
    }

    /// Rows split into `parts` ranges, each folded on its own, then joined.
    fn split<T: SimdFloat, const MIN: bool>(
        x: &[T],
        cols: usize,
        parts: usize,
        how: Fold,
    ) -> Vec<i64> {
        let n_rows = x.len() / cols;
        let per = n_rows.div_ceil(parts);
        let mut bests = (0..n_rows)
            .step_by(per)
            .map(|r| fold_part::<T, MIN>(x, cols, r..(r + per).min(n_rows), how));
        let mut joined = bests.next().unwrap();
        for later in bests {
            join::<T, MIN>(&mut joined, &later);
        }
        joined.rows
    }

    /// Every fold and split of `x` against the reference, as float64 and
    /// as float32 (every value in these tests is exact in both).
    fn check_all_folds(x: &[f64], cols: usize, at: &str) {
        let (max, min) = (reference(x, cols, false), reference(x, cols, true));
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        for how in folds() {
            for parts in [1, 2, 3] {
                let at = format!("{at} in {parts} parts by {how:?}");
                assert_eq!(split::<f64, false>(x, cols, parts, how), max, "{at}");
                assert_eq!(split::<f64, true>(x, cols, parts, how), min, "{at} min");
                assert_eq!(split::<f32, false>(&x32, cols, parts, how), max, "{at} f32");
                assert_eq!(
                    split::<f32, true>(&x32, cols, parts, how),
                    min,
                    "{at} f32 min"
                );
            }
        }
        let mut out = vec![-1; cols];
        argmax_float_columns::<f64, false>(x, cols, &mut out);
        assert_eq!(out, max, "parallel {at}");
        argmax_columns::<f64, true>(x, cols, &mut out);
        assert_eq!(out, min, "parallel plain {at}");
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
            (150, 100),
        ] {
            let mut x: Vec<f64> = (0..rows_n * cols).map(|i| ((i * 37) % 23) as f64).collect();
            x[(rows_n.min(2) - 1) * cols + 3] = f64::NAN;
            x[(rows_n - 1) * cols + cols - 1] = f64::NAN;
            x[cols / 2] = f64::NEG_INFINITY;
            x[(rows_n / 2) * cols + 5] = f64::INFINITY;
            check_all_folds(&x, cols, &format!("{rows_n}x{cols}"));
        }
    }

    /// Columns whose best changes in every row (rising), never after the
    /// first row (falling), once well after the eager rows, or to a NaN
    /// that a later NaN must not replace; ties everywhere else. The
    /// changes fall in the last [`WIDTH`] columns' test too.
    #[test]
    fn rows_that_change_a_best_value_are_folded_exactly() {
        let (rows_n, cols) = (200, 2 * WIDTH + 5);
        let mut x = vec![1.0; rows_n * cols];
        for r in 0..rows_n {
            x[r * cols] = r as f64;
            x[r * cols + 1] = -(r as f64);
        }
        x[130 * cols + 2] = 5.0;
        x[131 * cols + 2] = 5.0;
        x[117 * cols + WIDTH + 3] = f64::NAN;
        x[160 * cols + WIDTH + 3] = f64::NAN;
        x[170 * cols + WIDTH + 4] = f64::NAN;
        x[180 * cols + 2 * WIDTH - 1] = -3.0;
        x[144 * cols + cols - 1] = 2.0;
        check_all_folds(&x, cols, "changes");
    }

    #[test]
    fn integer_columns() {
        let x: Vec<i16> = (0..5 * 20).map(|i| ((i * 7919) % 31) as i16 - 15).collect();
        let mut out = vec![0; 20];
        argmax_columns::<i16, true>(&x, 20, &mut out);
        let as_f: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        assert_eq!(out, reference(&as_f, 20, true));
        let x: Vec<u8> = (0..300 * 70).map(|i| ((i * 7919) % 253) as u8).collect();
        let mut out = vec![0; 70];
        argmax_columns::<u8, false>(&x, 70, &mut out);
        let as_f: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        assert_eq!(out, reference(&as_f, 70, false));
    }
}
