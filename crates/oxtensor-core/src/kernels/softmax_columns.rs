//! Softmax and log-softmax along an axis that is not the last of a
//! C-contiguous array, seen as (outer, n, inner): each task takes a few
//! adjacent columns of one outer block, copies their n × width elements
//! into float64 scratch that stays in L2, normalises them there column by
//! column (the lane kernel's steps: maximum, shifted exponentials with
//! their sum, scale or shift) and writes the result once. Moving the axis
//! last instead copied the input and the output across pages never
//! touched before (softmax along axis 0 of 2000²: 0.37x NumPy).

use super::fast_exp::exp_shifted;
use super::softmax::SoftmaxKind;
use super::vmath::Lane;
use rayon::prelude::*;

/// Columns per task: n rows of them fit in L2 for n in the thousands,
/// and a row piece is four AVX-512 vectors.
const WIDTH: usize = 32;

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
unsafe impl<T: Send> Send for Out<T> {}

/// `kind` along the middle axis of `x` (outer × n × inner, C order) into
/// `y` of the same layout.
pub(super) fn softmax_columns<T: Lane + Send>(
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
    let task = |scratch: &mut Vec<f64>, t: usize| {
        let (o, c) = (t / chunks, (t % chunks) * WIDTH);
        let w = WIDTH.min(inner - c);
        let base = o * n * inner + c;
        scratch.clear();
        for j in 0..n {
            let row = &x[base + j * inner..base + j * inner + w];
            scratch.extend(row.iter().map(|v| v.wide()));
        }
        normalise(kind, scratch, w);
        for j in 0..n {
            for (i, &v) in scratch[j * w..(j + 1) * w].iter().enumerate() {
                // SAFETY: `base + j·inner + i` is inside `y` (same layout
                // as `x`, checked above), in columns c..c+w of block `o`,
                // which no other task writes.
                unsafe { *out.at(base + j * inner + i) = T::narrow(v) };
            }
        }
    };
    let tasks = outer * chunks;
    if x.len() >= super::PARALLEL_MIN {
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

/// Normalises each of the `w` columns of `e` (n rows of `w`) in place.
fn normalise(kind: SoftmaxKind, e: &mut [f64], w: usize) {
    let mut max = [f64::NEG_INFINITY; WIDTH];
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
    let (mut sum, mut ex) = ([0.0; WIDTH], [0.0; EXP_BLOCK]);
    for rows in e.chunks_mut(EXP_BLOCK / w * w) {
        let ex = &mut ex[..rows.len()];
        exp_shifted(rows, 0.0, ex);
        for row in ex.chunks_exact(w) {
            sum.iter_mut().zip(row).for_each(|(s, &v)| *s += v);
        }
        // Log-softmax keeps the shifted values, its result's first term.
        if kind == SoftmaxKind::Softmax {
            rows.copy_from_slice(ex);
        }
    }
    // Once per column: the scale (softmax) or the shift (log-softmax).
    for s in &mut sum[..w] {
        *s = match kind {
            SoftmaxKind::Softmax => 1.0 / *s,
            SoftmaxKind::LogSoftmax => s.ln(),
        };
    }
    for row in e.chunks_exact_mut(w) {
        match kind {
            SoftmaxKind::Softmax => row.iter_mut().zip(&sum).for_each(|(v, &s)| *v *= s),
            SoftmaxKind::LogSoftmax => row.iter_mut().zip(&sum).for_each(|(v, &s)| *v -= s),
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
