//! Lanes along an axis that is not the last of a C-contiguous tensor, seen
//! as `[outer, n, inner]` (`sort(x, axis=0)` of a matrix). `Lanes` would
//! first copy the whole input transposed; here each job gathers a block of
//! neighbouring lanes, whose elements sit side by side in every row, into
//! scratch that stays in cache, and runs the lane function on them. The
//! results come out lane after lane; the caller transposes them once.

use super::PARALLEL_MIN;
use crate::tensor::Element;
use rayon::prelude::*;

/// Lanes gathered together: 16 neighbours share each cache line they read.
const BLOCK: usize = 16;

/// The lanes of a C-contiguous `[outer, n, inner]` array along axis 1.
#[derive(Clone, Copy, Debug)]
pub struct StridedLanes {
    /// Product of the axes before the lane axis.
    pub outer: usize,
    /// Elements per lane.
    pub n: usize,
    /// Product of the axes after it: the stride between a lane's elements.
    pub inner: usize,
}

impl StridedLanes {
    /// Runs `f(scratch, lane, result)` for every lane of `x` (`outer * n *
    /// inner` elements); `out` receives the results lane by lane, lane
    /// `o * inner + k` at `(o * inner + k) * m` (`m` elements per result).
    /// `init()` makes one scratch per parallel job.
    pub fn for_each<T: Element, U: Element, S>(
        &self,
        x: &[T],
        out: &mut [U],
        m: usize,
        init: impl Fn() -> S + Sync + Send,
        f: impl Fn(&mut S, &[T], &mut [U]) + Sync + Send,
    ) {
        let Self { outer, n, inner } = *self;
        debug_assert_eq!(x.len(), outer * n * inner);
        if n == 0 || m == 0 {
            return;
        }
        let job = |(state, lanes): &mut (S, Vec<T>), c: usize, results: &mut [U]| {
            let first = c * BLOCK;
            let count = results.len() / m;
            self.gather(x, first, count, lanes);
            for (b, result) in results.chunks_exact_mut(m).enumerate() {
                f(state, &lanes[b * n..(b + 1) * n], result);
            }
        };
        let init = || (init(), Vec::new());
        if x.len() < PARALLEL_MIN {
            let mut scratch = init();
            for (c, results) in out.chunks_mut(BLOCK * m).enumerate() {
                job(&mut scratch, c, results);
            }
            return;
        }
        let per_task = (PARALLEL_MIN / (BLOCK * n)).max(1);
        out.par_chunks_mut(BLOCK * m)
            .enumerate()
            .with_min_len(per_task)
            .for_each_init(init, |scratch, (c, results)| job(scratch, c, results));
    }

    /// Copies lanes `first..first + count` (at most [`BLOCK`]) of `x` into
    /// `lanes`, one after the other, reading row by row (neighbouring lanes
    /// are neighbours in each row).
    fn gather<T: Element>(&self, x: &[T], first: usize, count: usize, lanes: &mut Vec<T>) {
        let Self { n, inner, .. } = *self;
        lanes.resize(count * n, T::default());
        let mut starts = [0; BLOCK];
        for (b, s) in starts[..count].iter_mut().enumerate() {
            let (o, k) = ((first + b) / inner, (first + b) % inner);
            *s = o * n * inner + k;
        }
        for j in 0..n {
            for (b, &s) in starts[..count].iter().enumerate() {
                lanes[b * n + j] = x[s + j * inner];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each result is the lane's elements, then their sum.
    fn check(outer: usize, n: usize, inner: usize) {
        let lanes = StridedLanes { outer, n, inner };
        let x: Vec<i64> = (0..(outer * n * inner) as i64).collect();
        let mut out = vec![0i64; outer * inner * (n + 1)];
        lanes.for_each(&x, &mut out, n + 1, || (), |_, lane, r| {
            r[..n].copy_from_slice(lane);
            r[n] = lane.iter().sum();
        });
        for o in 0..outer {
            for k in 0..inner {
                let want: Vec<i64> = (0..n).map(|j| ((o * n + j) * inner + k) as i64).collect();
                let at = (o * inner + k) * (n + 1);
                assert_eq!(&out[at..at + n], &want[..]);
                assert_eq!(out[at + n], want.iter().sum::<i64>());
            }
        }
    }

    #[test]
    fn lanes_come_out_in_lane_order() {
        // Blocks of 16 lanes cross the outer axis (37 lanes per row).
        check(3, 4, 37);
        // Large enough for parallel jobs.
        check(2, 300, 211);
    }
}
