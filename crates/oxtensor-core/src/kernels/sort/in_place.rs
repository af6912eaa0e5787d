//! Sorting a tensor's own memory along one axis: the inplace `SortOp`,
//! whose output is the buffer of the input it destroys. Each lane is
//! copied out and sorted back into its place by the lane sort of
//! `radix.rs` (the same order as `sort`'s: NaNs last), so the memory
//! taken is one lane per thread instead of a whole output.

use super::key::SortKey;
use super::radix::{sort_lane, Scratch};
use crate::kernels::PARALLEL_MIN;
use rayon::prelude::*;

/// One thread's buffers: the lane sort's scratch, the lane's copy and
/// (for lanes across rows) its sorted values.
struct LaneBuffers<T: SortKey> {
    scratch: Scratch<T::Key>,
    lane: Vec<T>,
    sorted: Vec<T>,
}

impl<T: SortKey> Default for LaneBuffers<T> {
    fn default() -> Self {
        LaneBuffers {
            scratch: Scratch::default(),
            lane: Vec::new(),
            sorted: Vec::new(),
        }
    }
}

/// Sorts the lanes of one `[n, inner]` block of a C-contiguous array (the
/// lanes are its columns, `inner` elements apart).
fn sort_block<T: SortKey>(bufs: &mut LaneBuffers<T>, block: &mut [T], n: usize, inner: usize) {
    let LaneBuffers {
        scratch,
        lane,
        sorted,
    } = bufs;
    if inner == 1 {
        lane.clear();
        lane.extend_from_slice(block);
        sort_lane(scratch, lane, block);
        return;
    }
    sorted.resize(n, T::default());
    for k in 0..inner {
        lane.clear();
        lane.extend((0..n).map(|j| block[j * inner + k]));
        sort_lane(scratch, lane, sorted);
        for (j, &v) in sorted.iter().enumerate() {
            block[j * inner + k] = v;
        }
    }
}

/// Sorts `y`, a C-contiguous array of `shape`, along `axis`, in place.
pub fn sort_in_place_typed<T: SortKey>(y: &mut [T], shape: &[usize], axis: usize) {
    let n = shape.get(axis).copied().unwrap_or(1);
    let inner: usize = shape.get(axis + 1..).map_or(1, |s| s.iter().product());
    let block = n * inner;
    if block == 0 {
        return;
    }
    if y.len() >= PARALLEL_MIN && y.len() > block {
        y.par_chunks_mut(block)
            .for_each_init(LaneBuffers::default, |bufs, b| {
                sort_block(bufs, b, n, inner)
            });
    } else {
        let mut bufs = LaneBuffers::default();
        for b in y.chunks_mut(block) {
            sort_block(&mut bufs, b, n, inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorting in place gives what sorting a copy does, along every axis
    /// of a (3, 4, 5) array with NaNs and repeated values.
    #[test]
    fn matches_the_sort_of_a_copy() {
        let xs: Vec<f64> = (0..60)
            .map(|i| match i % 13 {
                0 => f64::NAN,
                k => ((k * 7) % 5) as f64 - 2.0,
            })
            .collect();
        let shape = [3, 4, 5];
        let x = crate::tensor::Tensor::from_vec(shape.to_vec(), xs.clone()).unwrap();
        for axis in 0..3 {
            let want = super::super::sort(&x, axis, None).unwrap();
            let mut got = xs.clone();
            sort_in_place_typed(&mut got, &shape, axis);
            let want = want.as_slice::<f64>().unwrap();
            let same = got
                .iter()
                .zip(want)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
            assert!(same, "axis {axis}: {got:?} vs {want:?}");
        }
    }
}
