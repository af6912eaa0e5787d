//! The layout the axis-wise kernels (softmax, logsumexp, argmax, sort,
//! cumulative sums) work in: the chosen axes moved to the end and the data
//! made C-contiguous, so every lane is one contiguous row. A C-contiguous
//! input whose axes are already last (rows of a matrix) is used as it is;
//! other inputs cost one copy. Results in lane order are put back with
//! [`Lanes::restore`].

use crate::error::Result;
use crate::kernels::copy::to_contiguous;
use crate::kernels::{threaded, PARALLEL_MIN};
use crate::tensor::{Element, Tensor};
use rayon::prelude::*;

/// A tensor seen as `rows` contiguous lanes of `n` elements.
pub struct Lanes {
    /// C-contiguous data, the lane axes last.
    pub data: Tensor,
    /// Number of lanes.
    pub rows: usize,
    /// Elements per lane.
    pub n: usize,
    /// `perm[i]`: the input axis at position `i` of `data`.
    perm: Vec<usize>,
}

impl Lanes {
    /// Lanes of `t` along `axes` (sorted, in range; empty: lanes of length 1).
    pub fn new(t: &Tensor, axes: &[usize]) -> Result<Lanes> {
        let perm: Vec<usize> = (0..t.ndim())
            .filter(|d| !axes.contains(d))
            .chain(axes.iter().copied())
            .collect();
        let shape: Vec<usize> = perm.iter().map(|&d| t.shape()[d]).collect();
        let strides: Vec<isize> = perm.iter().map(|&d| t.strides()[d]).collect();
        let moved = t.view(&shape, &strides, t.offset())?;
        let n: usize = axes.iter().map(|&d| t.shape()[d]).product();
        let total: usize = t.shape().iter().product();
        Ok(Lanes {
            data: to_contiguous(&moved)?,
            rows: total.checked_div(n).unwrap_or(0),
            n,
            perm,
        })
    }

    /// The shape of `data`: the other axes, then the lane axes.
    pub fn shape(&self) -> Vec<usize> {
        self.data.shape().to_vec()
    }

    /// A result laid out like `data` (same shape) back in the input's
    /// axis order, C-contiguous.
    pub fn restore(&self, result: Tensor) -> Result<Tensor> {
        if self.perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(result);
        }
        let nd = self.perm.len();
        let mut shape = vec![0; nd];
        let mut strides = vec![0; nd];
        for (i, &p) in self.perm.iter().enumerate() {
            shape[p] = result.shape()[i];
            strides[p] = result.strides()[i];
        }
        to_contiguous(&result.view(&shape, &strides, result.offset())?)
    }
}

/// Runs `f(input_lane, output_lane)` over matching lanes of `input` (lanes
/// of `n`) and `output` (lanes of `m`), in parallel when there is enough work.
pub fn for_each_lane<T: Element, U: Element>(
    input: &[T],
    n: usize,
    output: &mut [U],
    m: usize,
    f: impl Fn(&[T], &mut [U]) + Sync + Send,
) {
    // No scratch: a zero-sized one, which costs nothing to make per job.
    for_each_lane_init(input, n, output, m, || (), |_, a, b| f(a, b));
}

/// [`for_each_lane`] with scratch space: `init()` makes it once per
/// parallel job (not per lane) and `f(scratch, input_lane, output_lane)`
/// reuses it.
pub fn for_each_lane_init<T: Element, U: Element, S>(
    input: &[T],
    n: usize,
    output: &mut [U],
    m: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &[T], &mut [U]) + Sync + Send,
) {
    if n == 0 || m == 0 {
        return;
    }
    let rows = input.len() / n;
    if rows * n.max(m) < PARALLEL_MIN || rows < 2 || !threaded() {
        let mut scratch = init();
        input
            .chunks_exact(n)
            .zip(output.chunks_exact_mut(m))
            .for_each(|(a, b)| f(&mut scratch, a, b));
        return;
    }
    // Enough lanes per task to amortise rayon's scheduling.
    let per_task = (PARALLEL_MIN / n.max(1)).max(1);
    input
        .par_chunks_exact(n)
        .zip(output.par_chunks_exact_mut(m))
        .with_min_len(per_task)
        .for_each_init(init, |s, (a, b)| f(s, a, b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_axis_moves_last_and_back() {
        let t = Tensor::from_vec(vec![2, 3, 2], (0..12).map(|i| i as f64).collect()).unwrap();
        let lanes = Lanes::new(&t, &[1]).unwrap();
        assert_eq!((lanes.rows, lanes.n), (4, 3));
        assert_eq!(lanes.shape(), vec![2, 2, 3]);
        let data = lanes.data.as_slice::<f64>().unwrap();
        assert_eq!(&data[..3], &[0.0, 2.0, 4.0]);
        let back = lanes.restore(lanes.data.clone()).unwrap();
        assert_eq!(
            back.as_slice::<f64>().unwrap(),
            t.as_slice::<f64>().unwrap()
        );
    }
}
