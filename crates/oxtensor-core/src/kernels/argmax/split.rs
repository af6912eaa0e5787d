//! `Argmax` of one long lane (`axis=None`) on several threads: the lane is
//! cut into pieces, each piece's first maximum (or first NaN) is found as a
//! lane of its own, and the pieces' answers are combined in order. The
//! lane-parallel loop of `argmax.rs` has one lane here, so one thread.
//!
//! The combination keeps NumPy's rules exactly: a piece's answer is its
//! first NaN if it holds one, so the first piece answering a NaN holds the
//! lane's first NaN; otherwise the lane's first maximum lies in the first
//! piece whose maximum is strictly greater than every earlier piece's, at
//! that piece's first maximum.

use super::lane::beats;
use crate::tensor::Element;
use rayon::prelude::*;

/// Elements per piece (2 MiB of float64): enough to amortise a rayon task
/// and, on the last piece's re-scan, small next to the lane.
pub(crate) const PIECE: usize = 1 << 18;

/// Whether a single lane of `n` elements is worth splitting.
pub(super) fn worth_splitting(n: usize) -> bool {
    n >= 2 * PIECE && crate::kernels::threaded()
}

/// The first index of `x`'s maximum (minimum with `MIN`; its first NaN if
/// any), `lane` giving the same answer for each piece.
#[allow(clippy::eq_op)]
pub(super) fn argmax_split<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    avx2: bool,
    lane: impl Fn(&[T], bool) -> i64 + Sync + Send,
) -> i64 {
    let answers: Vec<i64> = x.par_chunks(PIECE).map(|c| lane(c, avx2)).collect();
    let mut best: Option<(T, usize)> = None;
    for (k, &a) in answers.iter().enumerate() {
        let at = k * PIECE + a as usize;
        let v = x[at];
        // `v != v` only for NaN: the first NaN wins at once.
        if v != v {
            return at as i64;
        }
        if best.is_none_or(|(b, _)| beats::<T, MIN>(v, b)) {
            best = Some((v, at));
        }
    }
    best.map_or(0, |(_, at)| at as i64)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{reference, rows};
    use super::*;
    use crate::tensor::Tensor;

    #[test]
    fn one_long_lane_splits_and_keeps_first_occurrence_and_nan_rules() {
        let n = 3 * PIECE + 777;
        let base: Vec<f64> = (0..n).map(|i| ((i * 37) % 1001) as f64).collect();
        let whole = |v: &[f64]| rows(&Tensor::from_vec(vec![n], v.to_vec()).unwrap(), &[0])[0];
        // Ties across pieces: the maximum 1000 recurs in every piece.
        assert_eq!(whole(&base), reference(&base));
        // A strictly larger maximum in a later piece, then an equal one
        // later still, then NaNs in the second and last pieces.
        let mut v = base.clone();
        v[2 * PIECE + 5] = 5000.0;
        v[3 * PIECE + 1] = 5000.0;
        assert_eq!(whole(&v), (2 * PIECE + 5) as i64);
        v[n - 1] = f64::NAN;
        assert_eq!(whole(&v), (n - 1) as i64);
        v[PIECE + 9] = f64::NAN;
        assert_eq!(whole(&v), (PIECE + 9) as i64);
        // The combination itself, whatever the thread count.
        let direct = |v: &[f64]| argmax_split::<_, false>(v, false, |c, _| reference(c));
        assert_eq!(direct(&v), (PIECE + 9) as i64);
        assert_eq!(direct(&base), reference(&base));
        // The lane's end and start, -inf everywhere, and a strided view.
        let mut w = vec![f64::NEG_INFINITY; n];
        assert_eq!(whole(&w), 0);
        w[n - 1] = 1.0;
        assert_eq!(whole(&w), (n - 1) as i64);
        let t = Tensor::from_vec(vec![n], base.clone()).unwrap();
        let half = t.view(&[n / 2], &[16], 8).unwrap();
        let odd: Vec<f64> = base
            .iter()
            .skip(1)
            .step_by(2)
            .take(n / 2)
            .copied()
            .collect();
        assert_eq!(rows(&half, &[0])[0], reference(&odd));
        // Integers and float32 take the same path.
        let ints: Vec<i32> = (0..n).map(|i| ((i * 7919) % 65_521) as i32).collect();
        let want = ints.iter().position(|&k| k == 65_520).unwrap() as i64;
        let t = Tensor::from_vec(vec![n], ints).unwrap();
        assert_eq!(rows(&t, &[0])[0], want);
        let mut f: Vec<f32> = base.iter().map(|&k| k as f32).collect();
        f[3 * PIECE] = f32::NAN;
        let t = Tensor::from_vec(vec![2, n / 2 + 1], [f.clone(), vec![0.0]].concat()).unwrap();
        assert_eq!(rows(&t, &[0, 1])[0], (3 * PIECE) as i64);
    }
}
