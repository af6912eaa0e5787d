//! Sums of squared deviations from the mean, `Σ (x - mean(x))²` over some
//! axes: what `var` and `std` divide. PyTensor's graph computes the mean
//! with one `Sum` and the squares with another, two passes over memory;
//! here each block of values small enough to stay in cache is read from
//! memory once, summed twice (its own mean, then its squared deviations),
//! and the blocks' moments are combined with Chan, Golub and LeVeque's
//! pairwise rule. (Down columns, only each range's first block is summed
//! twice; later blocks are summed once, centred on the running mean:
//! see [`centred_block`].) Values are shifted by the first one of their lane or
//! column first: combining blocks subtracts block means, which must be
//! small numbers for the difference to keep its digits (data 1e9 away
//! from zero with a spread of 1 lost 1e-9 relative without the shift).
//! Shifted, the result is as accurate as the two-pass formula and the
//! input is read once: 4000×4000 float64 `var(axis=0)` went from two
//! memory-bound sums to one.
//!
//! Two layouts are read this way: lanes (each output's values contiguous,
//! the reduced axes last in memory) and rows whose columns are the outputs
//! (the reduced axes first in memory). Other layouts are copied into lanes
//! first. Float32 values are widened to float64, the accumulator PyTensor
//! uses for their sums.

use crate::dtype::DType;
use crate::kernels::alloc::{output, Pool};
use crate::kernels::cpu::has_avx2;
use crate::kernels::elemwise::lanes::Lanes;
use crate::tensor::{Element, Tensor};
use num_traits::AsPrimitive;
use rayon::prelude::*;

/// Values of a lane per block: 32 KiB of float64, in L1 for the second sum.
const BLOCK: usize = 4096;
/// Rows per block of columns: 16 rows of [`STRIP`] float64 columns are
/// 128 KiB, in L2 for the second sum.
const BLOCK_ROWS: usize = 16;
/// Columns per block: the strip's per-column arrays (shift, block mean and
/// squares, running mean and squares: 40 KiB) stay in L1.
const STRIP: usize = 1024;

/// A float type whose values widen to `f64` and whose results narrow back.
pub trait Real: Element + AsPrimitive<f64> {}
impl Real for f32 {}
impl Real for f64 {}

/// Count, mean and sum of squared deviations from it of a set of values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    /// The moments of two disjoint sets together (Chan et al.); `self`
    /// may be empty (all zeros), `b` may not.
    fn merge(self, b: Moments) -> Moments {
        let n = self.n + b.n;
        let delta = b.mean - self.mean;
        Moments {
            n,
            mean: self.mean + delta * (b.n / n),
            m2: self.m2 + b.m2 + delta * delta * (self.n * (b.n / n)),
        }
    }
}

/// `Σ f(x - shift)` widened to `f64`, eight accumulators wide so the loop
/// vectorises. Plain `for` loops throughout this file: an iterator
/// adapter's `fold` is a function of its own that the `avx2` builds below
/// would not inline, so it would run with baseline instructions.
#[inline(always)]
fn sum_of<T: Real>(x: &[T], shift: f64, f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0.0f64; 8];
    let mut chunks = x.chunks_exact(8);
    for c in &mut chunks {
        for j in 0..8 {
            acc[j] += f(c[j].as_() - shift);
        }
    }
    let mut total = 0.0;
    for &v in chunks.remainder() {
        total += f(v.as_() - shift);
    }
    for a in acc {
        total += a;
    }
    total
}

/// The moments of a lane (not empty) shifted by `shift`, a block at a
/// time (`m2` does not depend on the shift; the mean is the shifted one).
#[inline(always)]
fn lane_moments<T: Real>(x: &[T], shift: f64) -> Moments {
    let mut acc = Moments::default();
    for block in x.chunks(BLOCK) {
        let n = block.len() as f64;
        let mean = sum_of(block, shift, |y| y) / n;
        let m2 = sum_of(block, shift, |y| (y - mean) * (y - mean));
        acc = acc.merge(Moments { n, mean, m2 });
    }
    acc
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn lane_moments_avx2<T: Real>(x: &[T], shift: f64) -> Moments {
    lane_moments(x, shift)
}

/// [`lane_moments`] with the CPU's widest instructions.
fn lane_moments_fast<T: Real>(x: &[T], shift: f64, avx2: bool) -> Moments {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has AVX2 and FMA.
        return unsafe { lane_moments_avx2(x, shift) };
    }
    let _ = avx2;
    lane_moments(x, shift)
}

/// A lane's moments shifted by its first value.
fn lane_m2<T: Real>(x: &[T], avx2: bool) -> f64 {
    lane_moments_fast(x, x[0].as_(), avx2).m2
}

/// Per column, the running mean and sum of squared deviations of the rows
/// seen so far (`n` of them).
struct Columns {
    n: f64,
    mean: Vec<f64>,
    m2: Vec<f64>,
}

impl Columns {
    fn new(cols: usize) -> Self {
        Columns {
            n: 0.0,
            mean: vec![0.0; cols],
            m2: vec![0.0; cols],
        }
    }

    /// Adds the moments of `nb` more rows at columns `at..` (per column,
    /// the same combination as [`Moments::merge`]); `n` is updated by the
    /// caller once all columns have them.
    fn merge_at(&mut self, at: usize, nb: f64, mean: &[f64], m2: &[f64]) {
        let n = self.n + nb;
        let (wa, wb) = (self.n * (nb / n), nb / n);
        let (ms, qs) = (
            &mut self.mean[at..at + mean.len()],
            &mut self.m2[at..at + mean.len()],
        );
        for j in 0..mean.len() {
            let delta = mean[j] - ms[j];
            ms[j] += delta * wb;
            qs[j] += m2[j] + delta * delta * wa;
        }
    }

    /// Adds `nb` more rows whose values centred on the running mean sum
    /// to `s1` and their squares to `s2` (see [`centred_block`]); updates
    /// `n` too.
    fn merge_sums(&mut self, nb: f64, s1: &[f64], s2: &[f64]) {
        let n = self.n + nb;
        let (wa, wb) = (self.n * (nb / n), nb / n);
        let (ms, qs) = (&mut self.mean[..s1.len()], &mut self.m2[..s1.len()]);
        for j in 0..s1.len() {
            let delta = s1[j] / nb;
            ms[j] += delta * wb;
            qs[j] += (s2[j] - s1[j] * delta) + delta * delta * wa;
        }
        self.n = n;
    }
}

/// Rows `block` (not empty) of columns `span` of `x` (rows of `cols`),
/// shifted by `shift` (per column), added to `state`: their column sums,
/// means, then squared deviations. Rows are taken four at a time, so the
/// per-column arrays are read and written once per four rows (one row at
/// a time, their traffic cost 2x the rows' own).
#[inline(always)]
fn columns_block<T: Real>(
    x: &[T],
    shift: &[f64],
    block: std::ops::Range<usize>,
    span: std::ops::Range<usize>,
    scratch: &mut [f64],
    state: &mut Columns,
) {
    let (cols, w) = (shift.len(), span.len());
    let (mean, m2) = scratch[..2 * w].split_at_mut(w);
    mean.fill(0.0);
    m2.fill(0.0);
    let k = &shift[span.clone()];
    let row = |r: usize| &x[r * cols + span.start..r * cols + span.start + w];
    add_block(row, block.clone(), k, mean, |y, _| y);
    let nb = block.len() as f64;
    for s in mean.iter_mut() {
        *s /= nb;
    }
    add_block(row, block, k, m2, |y, j| (y - mean[j]) * (y - mean[j]));
    state.merge_at(span.start, nb, mean, m2);
}

/// `acc[j] += f(row[j] - k[j], j)` over rows `block` (`row(r)` is row `r`
/// of the strip), four rows at a time.
#[inline(always)]
fn add_block<'a, T: Real>(
    row: impl Fn(usize) -> &'a [T],
    block: std::ops::Range<usize>,
    k: &[f64],
    acc: &mut [f64],
    f: impl Fn(f64, usize) -> f64 + Copy,
) {
    let mut r = block.start;
    while r + 4 <= block.end {
        add_rows([row(r), row(r + 1), row(r + 2), row(r + 3)], k, acc, f);
        r += 4;
    }
    for r in r..block.end {
        add_row(row(r), k, acc, f);
    }
}

/// `acc[j] += f(row[j] - k[j], j)` for the four rows, summed in pairs.
#[inline(always)]
fn add_rows<T: Real>(rows: [&[T]; 4], k: &[f64], acc: &mut [f64], f: impl Fn(f64, usize) -> f64) {
    let w = acc.len();
    let [a, b, c, d] = rows.map(|r| &r[..w]);
    let k = &k[..w];
    for j in 0..w {
        let y = |v: T| f(v.as_() - k[j], j);
        acc[j] += (y(a[j]) + y(b[j])) + (y(c[j]) + y(d[j]));
    }
}

/// `acc[j] += f(row[j] - k[j], j)` for one row.
#[inline(always)]
fn add_row<T: Real>(row: &[T], k: &[f64], acc: &mut [f64], f: impl Fn(f64, usize) -> f64) {
    let w = acc.len();
    let (row, k) = (&row[..w], &k[..w]);
    for j in 0..w {
        acc[j] += f(row[j].as_() - k[j], j);
    }
}

/// The shifted column moments of rows `range` of `x` (rows of
/// `shift.len()`). The first block of rows is summed twice from cache
/// ([`columns_block`]); every later block once ([`centred_block`]), its
/// values centred on the running mean the block before left.
#[inline(always)]
fn columns_part<T: Real>(x: &[T], shift: &[f64], range: std::ops::Range<usize>) -> Columns {
    let cols = shift.len();
    let mut state = Columns::new(cols);
    let first = range.start..(range.start + BLOCK_ROWS).min(range.end);
    // One scratch buffer: the first block's strips use its start, the
    // later blocks all of it.
    let mut sums = vec![0.0; 2 * cols];
    for c in (0..cols).step_by(STRIP) {
        let span = c..(c + STRIP).min(cols);
        columns_block(x, shift, first.clone(), span, &mut sums, &mut state);
    }
    state.n += first.len() as f64;
    for r in (first.end..range.end).step_by(CENTRED_ROWS) {
        let block = r..(r + CENTRED_ROWS).min(range.end);
        centred_block(x, shift, block, &mut sums, &mut state);
    }
    state
}

/// Rows per block summed once. The merge after each block is one pass
/// over the per-column arrays, small next to 64 rows.
const CENTRED_ROWS: usize = 64;

/// Rows `block` (not empty) of `x` added to `state` (which holds at least
/// one row) in one pass, full rows eight at a time in memory order: per
/// column, `Σ y` and `Σ y²` of `y = v - shift - mean`, the values centred
/// on the running mean. The block's mean is then `mean + Σy/nb`, so the
/// difference of means the merge needs is `Σy/nb` itself, and its squared
/// deviations `Σy² - (Σy)²/nb` lose no digits: `Σy` is small next to
/// `Σy²` unless the block's values sit far off the running mean against
/// their spread.
///
/// Measured on 4000x4000 float64 in a Rust harness, two threads (one):
/// this pass 2.6-2.8 ms (4.8-5.0), a `sum` down the columns 2.1-2.4 ms
/// (3.3-3.5); four rows at a time 3.3-3.6 ms (6.7-7.1), since the four
/// per-column arrays (128 KB, in L2) are read and written once per group
/// of rows; the same pass in strips of 1024 columns (64 rows of 8 KB
/// read side by side) 4.1-4.3 ms. In `var(axis=0)` itself: 3.0 ms, and
/// 4.0 ms when every block was summed twice the first block's way.
#[inline(always)]
fn centred_block<T: Real>(
    x: &[T],
    shift: &[f64],
    block: std::ops::Range<usize>,
    sums: &mut [f64],
    state: &mut Columns,
) {
    let cols = shift.len();
    let (s1, s2) = sums.split_at_mut(cols);
    s1.fill(0.0);
    s2.fill(0.0);
    let row = |r: usize| &x[r * cols..(r + 1) * cols];
    let mut r = block.start;
    while r + 8 <= block.end {
        let rows: [&[T]; 8] = std::array::from_fn(|i| row(r + i));
        add_centred(rows, shift, &state.mean, s1, s2);
        r += 8;
    }
    for r in r..block.end {
        add_centred([row(r)], shift, &state.mean, s1, s2);
    }
    state.merge_sums(block.len() as f64, s1, s2);
}

/// `s1[j] += Σ y`, `s2[j] += Σ y²` over the `R` rows, `y = v - k[j] - m[j]`.
#[inline(always)]
fn add_centred<T: Real, const R: usize>(
    rows: [&[T]; R],
    k: &[f64],
    m: &[f64],
    s1: &mut [f64],
    s2: &mut [f64],
) {
    let w = s1.len();
    let rows = rows.map(|r| &r[..w]);
    let (k, m, s2) = (&k[..w], &m[..w], &mut s2[..w]);
    for j in 0..w {
        let (mut a, mut b) = (0.0, 0.0);
        for row in rows {
            let y = (row[j].as_() - k[j]) - m[j];
            a += y;
            b += y * y;
        }
        s1[j] += a;
        s2[j] += b;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn columns_part_avx2<T: Real>(x: &[T], shift: &[f64], range: std::ops::Range<usize>) -> Columns {
    columns_part(x, shift, range)
}

/// [`columns_part`] with the CPU's widest instructions.
fn columns_part_fast<T: Real>(
    x: &[T],
    shift: &[f64],
    range: std::ops::Range<usize>,
    avx2: bool,
) -> Columns {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has AVX2 and FMA.
        return unsafe { columns_part_avx2(x, shift, range) };
    }
    let _ = avx2;
    columns_part(x, shift, range)
}

/// Values per piece of one long lane handed to a thread. Pieces (and the
/// row ranges of [`columns`]) depend on the shape only, never on the
/// number of threads, so results do not change with the machine.
const PIECE: usize = 64 * BLOCK;
/// Most row ranges [`columns`] splits into, and the most memory their
/// per-column states may take.
const MAX_PARTS: usize = 64;
const MAX_PART_BYTES: usize = 64 << 20;

/// `out[i]`: `Σ (v - mean)²` of lane `i` of `x` (lanes of `len` values).
fn lanes<T: Real>(x: &[T], len: usize, out: &mut [f64], avx2: bool) {
    if out.len() == 1 {
        // One long lane: pieces on several threads, combined in order.
        let shift = x[0].as_();
        let moments = |p: &[T]| lane_moments_fast(p, shift, avx2);
        let pieces: Vec<Moments> = x.par_chunks(PIECE).map(moments).collect();
        out[0] = pieces
            .into_iter()
            .fold(Moments::default(), Moments::merge)
            .m2;
    } else if x.len() >= 4 * crate::kernels::PARALLEL_MIN {
        let lanes = out.par_iter_mut().zip(x.par_chunks(len));
        lanes.for_each(|(o, lane)| *o = lane_m2(lane, avx2));
    } else {
        for (o, lane) in out.iter_mut().zip(x.chunks(len)) {
            *o = lane_m2(lane, avx2);
        }
    }
}

/// `out[c]`: `Σ (v - mean)²` of column `c` of `x` (rows of `out.len()`):
/// ranges of rows on several threads, their states combined in order,
/// every value shifted by the first of its column.
fn columns<T: Real>(x: &[T], out: &mut [f64], avx2: bool) {
    let cols = out.len();
    let shift: Vec<f64> = x[..cols].iter().map(|&v| v.as_()).collect();
    let shift = &shift[..];
    let rows = x.len() / cols;
    let by_memory = MAX_PART_BYTES / (16 * cols);
    let n_parts = (rows / (16 * BLOCK_ROWS)).min(MAX_PARTS).min(by_memory);
    // A multiple of four shares out evenly on two or four threads: 15
    // parts of 4000 rows left one thread an eighth more work than the other.
    let n_parts = match n_parts {
        0 => 1,
        1..4 => n_parts,
        _ => n_parts / 4 * 4,
    };
    let per = rows.div_ceil(n_parts);
    let ranges: Vec<_> = (0..rows)
        .step_by(per)
        .map(|r| r..(r + per).min(rows))
        .collect();
    let states: Vec<Columns> = match x.len() >= 4 * crate::kernels::PARALLEL_MIN {
        true => ranges
            .into_par_iter()
            .map(|r| columns_part_fast(x, shift, r, avx2))
            .collect(),
        false => ranges
            .into_iter()
            .map(|r| columns_part_fast(x, shift, r, avx2))
            .collect(),
    };
    let mut joined = Columns::new(cols);
    for part in states {
        joined.merge_at(0, part.n, &part.mean, &part.m2);
        joined.n += part.n;
    }
    out.copy_from_slice(&joined.m2);
}

/// `Σ (x - mean)²` over `axes` (sorted) of `x`, per kept position in C
/// order, in `x`'s dtype; `None` unless `x` is float32 or float64 with
/// something to reduce. Rows whose columns are the outputs (the reduced
/// axes leading in memory) are read as they are; every other layout as
/// lanes, copied into them first unless they already are.
pub fn centred_squares(x: &Tensor, axes: &[usize], pool: Option<&mut Pool>) -> Option<Tensor> {
    let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let float = matches!(x.dtype(), DType::Float32 | DType::Float64);
    if !float || count == 0 || x.is_empty() {
        return None;
    }
    let kept: Vec<usize> = (0..x.ndim()).filter(|a| !axes.contains(a)).collect();
    let kept_shape: Vec<usize> = kept.iter().map(|&a| x.shape()[a]).collect();
    let mut sums = vec![0.0f64; x.len() / count];
    let avx2 = has_avx2();
    let lanes_in_place = x.is_c_contiguous() && kept.iter().enumerate().all(|(i, &a)| i == a);
    match rows_view(x, axes, &kept).filter(|_| !lanes_in_place) {
        Some(rows) => match rows.dtype() {
            DType::Float64 => columns(rows.as_slice::<f64>()?, &mut sums, avx2),
            _ => columns(rows.as_slice::<f32>()?, &mut sums, avx2),
        },
        None => {
            let data = Lanes::new(x, axes).ok()?.data;
            match data.dtype() {
                DType::Float64 => lanes(data.as_slice::<f64>()?, count, &mut sums, avx2),
                _ => lanes(data.as_slice::<f32>()?, count, &mut sums, avx2),
            }
        }
    }
    let mut out = output(pool, x.dtype(), &kept_shape).ok()?;
    match x.dtype() {
        DType::Float64 => out.as_mut_slice::<f64>()?.copy_from_slice(&sums),
        _ => {
            let o = out.as_mut_slice::<f32>()?;
            o.iter_mut().zip(&sums).for_each(|(o, &s)| *o = s as f32);
        }
    }
    Some(out)
}

/// `x` as C-contiguous rows whose columns are the kept positions in C
/// order, when memory holds it so: `x` C-contiguous with the reduced axes
/// first, or F-contiguous with them last and at most one kept axis.
fn rows_view(x: &Tensor, axes: &[usize], kept: &[usize]) -> Option<Tensor> {
    let leading = axes.iter().enumerate().all(|(i, &a)| i == a);
    if leading && x.is_c_contiguous() {
        return Some(x.clone());
    }
    let trailing = kept.iter().enumerate().all(|(i, &a)| i == a);
    let shape: Vec<usize> = x.shape().iter().rev().copied().collect();
    let strides: Vec<isize> = x.strides().iter().rev().copied().collect();
    let reversed = x.view(&shape, &strides, x.offset()).ok()?;
    (trailing && kept.len() <= 1 && reversed.is_c_contiguous()).then_some(reversed)
}

#[cfg(test)]
#[path = "variance_tests.rs"]
mod tests;
