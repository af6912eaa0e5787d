//! Lanes along an axis that is not the last of a C-contiguous tensor, seen
//! as `[outer, n, inner]` (`sort(x, axis=0)` of a matrix). `Lanes` would
//! copy the whole input transposed and the results transposed back; here
//! each job gathers a block of neighbouring lanes, whose elements sit side
//! by side in every row, into scratch that stays in cache, runs the lane
//! function on each, and writes the results straight to their places in
//! the output, which has the input's layout. NumPy's axis loop does the
//! same one lane at a time.

use crate::kernels::PARALLEL_MIN;
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

/// The output, which parallel jobs write at disjoint positions (each its
/// own lanes).
struct Shared<U>(*mut U, usize);
// SAFETY: jobs write disjoint positions of a buffer that outlives them
// (`for_each` returns only after every job); `U: Send`.
unsafe impl<U: Send> Send for Shared<U> {}
// SAFETY: see `Send`; no job reads through the pointer.
unsafe impl<U: Send> Sync for Shared<U> {}

/// Rows fetched ahead of the gather: rows lie `inner` elements apart, a
/// page or more for large arrays, where the hardware prefetcher stops.
const AHEAD: usize = 16;

/// Asks for the lines of `x[at..at + count]` (if in bounds) ahead of use.
#[inline(always)]
fn prefetch<T>(x: &[T], at: usize, count: usize) {
    #[cfg(target_arch = "x86_64")]
    if at + count <= x.len() {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = x[at..].as_ptr().cast::<i8>();
        let last = x[at + count - 1..].as_ptr().cast::<i8>();
        // SAFETY: prefetches never fault; both addresses are in `x`.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
    }
}

/// A job's buffers: the gathered lanes and their results.
struct Block<T, U, S> {
    state: S,
    lanes: Vec<T>,
    results: Vec<U>,
}

impl StridedLanes {
    /// Runs `f(scratch, lane, result)` for every lane of `x` and puts each
    /// result (`n` elements) where the lane was, in `out` (as long as `x`).
    /// `init()` makes one scratch per parallel job.
    pub fn for_each<T: Element, U: Element, S>(
        &self,
        x: &[T],
        out: &mut [U],
        init: impl Fn() -> S + Sync + Send,
        f: impl Fn(&mut S, &[T], &mut [U]) + Sync + Send,
    ) {
        let Self { outer, n, inner } = *self;
        assert!(
            x.len() == outer * n * inner && out.len() == x.len(),
            "lane layout"
        );
        if x.is_empty() {
            return;
        }
        let per_row = inner.div_ceil(BLOCK);
        let shared = Shared(out.as_mut_ptr(), out.len());
        let init = || Block {
            state: init(),
            lanes: Vec::new(),
            results: Vec::new(),
        };
        let job = |block: &mut Block<T, U, S>, c: usize| {
            let (o, k) = (c / per_row, c % per_row * BLOCK);
            let start = o * n * inner + k;
            let count = BLOCK.min(inner - k);
            self.gather(x, start, count, &mut block.lanes);
            block.results.resize(count * n, U::default());
            let pairs = block
                .lanes
                .chunks_exact(n)
                .zip(block.results.chunks_exact_mut(n));
            pairs.for_each(|(lane, result)| f(&mut block.state, lane, result));
            // SAFETY: job `c` alone writes lanes `k..k + count` of row
            // block `o`, positions `start + j * inner + b` for `j < n` and
            // `b < count`, all in `out` (`k + count <= inner`).
            unsafe { self.scatter(&block.results, start, count, &shared) };
        };
        let jobs = outer * per_row;
        if x.len() < PARALLEL_MIN || jobs < 2 {
            let mut block = init();
            (0..jobs).for_each(|c| job(&mut block, c));
            return;
        }
        let per_task = (PARALLEL_MIN / (BLOCK * n)).max(1);
        (0..jobs)
            .into_par_iter()
            .with_min_len(per_task)
            .for_each_init(init, job);
    }

    /// Copies the `count` lanes from `start` into `lanes`, one after the
    /// other, reading row by row.
    fn gather<T: Element>(&self, x: &[T], start: usize, count: usize, lanes: &mut Vec<T>) {
        let (n, inner) = (self.n, self.inner);
        lanes.resize(count * n, T::default());
        for j in 0..n {
            prefetch(x, start + (j + AHEAD) * inner, count);
            let row = &x[start + j * inner..][..count];
            for (b, &v) in row.iter().enumerate() {
                lanes[b * n + j] = v;
            }
        }
    }

    /// Writes `count` results of `n` elements back as lanes from `start`.
    ///
    /// # Safety
    /// No other thread may write those lanes' positions meanwhile.
    unsafe fn scatter<U: Element>(
        &self,
        results: &[U],
        start: usize,
        count: usize,
        out: &Shared<U>,
    ) {
        let (n, inner) = (self.n, self.inner);
        for j in 0..n {
            let at = start + j * inner;
            assert!(at + count <= out.1, "lane position out of the output");
            for b in 0..count {
                // SAFETY: in bounds (checked above); the caller keeps the
                // positions to this thread.
                unsafe { out.0.add(at + b).write(results[b * n + j]) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each result is the lane reversed, plus its first element.
    fn check(outer: usize, n: usize, inner: usize) {
        let lanes = StridedLanes { outer, n, inner };
        let x: Vec<i64> = (0..(outer * n * inner) as i64).collect();
        let mut out = vec![0i64; x.len()];
        lanes.for_each(
            &x,
            &mut out,
            || (),
            |_, lane, r| {
                r.iter_mut()
                    .zip(lane.iter().rev())
                    .for_each(|(r, &v)| *r = v + lane[0]);
            },
        );
        for o in 0..outer {
            for k in 0..inner {
                let at = |j: usize| (o * n + j) * inner + k;
                for j in 0..n {
                    assert_eq!(out[at(j)], x[at(n - 1 - j)] + x[at(0)], "{o} {j} {k}");
                }
            }
        }
    }

    #[test]
    fn results_land_where_their_lanes_were() {
        // 37 lanes per row: the last block of each is partial.
        check(3, 4, 37);
        // Large enough for parallel jobs.
        check(2, 300, 211);
        check(1, 5, 1);
        check(2, 0, 3);
        check(0, 3, 2);
    }
}
