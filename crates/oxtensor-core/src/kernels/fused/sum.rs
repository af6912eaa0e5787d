//! A `Sum` consuming a fused program's output (`CAReduce` with a composite
//! pre-map, as `sum((x - m) ** 2, axis=0)` compiles to): each block of the
//! values is added into the accumulator as soon as it is computed, so the
//! values never exist at full size and the input is read once.
//!
//! Rounding order: up to one block of values, the group's values are
//! materialised and the sum kernel reduces them, so results equal the
//! unfused run's. Larger calls add in another order than the kernel does:
//! a block's stretch of a reduced last axis is folded in 16 interleaved
//! partial sums (the kernel folds whole rows so), and large calls split the
//! blocks into at most `MAX_TASKS` consecutive ranges whose partial results
//! are added in order. Both orders are within the usual float summation
//! error; the split depends on the shapes only, so a call's result does not
//! depend on the thread count. Programs that are exactly `sqr(a - b)` add
//! without materialising the values (`sqdiff.rs`).

use super::plan::FusedKernel;
use super::walk::{Walk, BLOCK};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::kernels::cpu::avx2_build;
use crate::kernels::elemwise::cast::cast;
use crate::kernels::reduce::reduce;
use crate::kernels::PARALLEL_MIN;
use crate::reduction::ReduceKind;
use crate::tensor::{Dims, Element, Tensor};
use num_traits::Float;
use rayon::prelude::*;
use smallvec::SmallVec;

/// Most parallel ranges a summed group is split into (each holds a partial
/// result the size of the output).
const MAX_TASKS: usize = 64;

/// Partial results may take up to this fraction of the group's values.
const PARTIALS_SHARE: usize = 16;

/// Independent partial sums when folding a stretch of a reduced last axis.
pub(super) const LANES: usize = 16;

/// The `Sum` consuming a program's output.
#[derive(Clone, Debug)]
pub(super) struct SumSpec {
    /// The reduced axes of the values.
    pub(super) axes: SmallVec<[usize; 4]>,
    /// The accumulator dtype (the program's, or float64 for float32 values).
    pub(super) acc: DType,
}

impl FusedKernel {
    /// The sum over `sum.axes` of the program's values at `shape`.
    pub(super) fn run_sum(
        &self,
        sum: &SumSpec,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
    ) -> Result<Tensor> {
        let total: usize = shape.iter().product();
        if total <= BLOCK {
            let mut outs = self.run_ordered(leaves, shape, pool)?;
            let values = outs.pop().ok_or_else(|| {
                crate::error::Error::Value("a summed program computed nothing".into())
            })?;
            let out = reduce(
                ReduceKind::Sum,
                &values,
                &sum.axes,
                sum.acc,
                self.dtype,
                Some(pool),
            );
            pool.recycle(values);
            return out;
        }
        let acc = match (self.dtype, sum.acc) {
            (DType::Float32, DType::Float32) => {
                self.sum_blocks::<f32, f32>(&sum.axes, leaves, shape)
            }
            (DType::Float32, _) => self.sum_blocks::<f32, f64>(&sum.axes, leaves, shape),
            _ => self.sum_blocks::<f64, f64>(&sum.axes, leaves, shape),
        }?;
        // As the kernel does: the accumulator converted to the output dtype.
        Ok(if acc.dtype() == self.dtype {
            acc
        } else {
            cast(&acc, self.dtype)?
        })
    }

    /// The blocked sum: each block added into an accumulator, in parallel
    /// ranges of blocks with their own partial results when large.
    fn sum_blocks<T: Element + Float, A: Element + Float + From<T>>(
        &self,
        axes: &[usize],
        leaves: &[&Tensor],
        shape: &[usize],
    ) -> Result<Tensor> {
        let walk = Walk::new(shape, leaves);
        let target = Target::new(shape, axes);
        let (total, n) = (shape.iter().product::<usize>(), walk.len());
        let by_memory = total / (PARTIALS_SHARE * target.len.max(1));
        let tasks = by_memory.min(MAX_TASKS).min(n / 2);
        let sq_diff = self.sq_diff();
        #[cfg(test)]
        if sq_diff.is_some() {
            super::sqdiff::SQ_DIFF_RUNS.with(|c| c.set(c.get() + 1));
        }
        let range_sum = |range| match sq_diff {
            Some(pair) => self.sq_diff_range::<T, A>(&walk, &target, leaves, range, pair),
            None => self.sum_range::<T, A>(&walk, &target, leaves, range),
        };
        let acc = if total < PARALLEL_MIN || tasks < 2 {
            range_sum(0..n)?
        } else {
            let partials = (0..tasks)
                .into_par_iter()
                .map(|t| range_sum(t * n / tasks..(t + 1) * n / tasks))
                .collect::<Result<Vec<Vec<A>>>>()?;
            let mut parts = partials.into_iter();
            let mut acc = parts.next().unwrap_or_default();
            for part in parts {
                acc.iter_mut().zip(part).for_each(|(a, p)| *a = *a + p);
            }
            acc
        };
        Tensor::from_vec(target.shape.to_vec(), acc)
    }

    /// Blocks `range` summed into a fresh accumulator.
    fn sum_range<T: Element + Float, A: Float + From<T>>(
        &self,
        walk: &Walk,
        target: &Target,
        leaves: &[&Tensor],
        range: std::ops::Range<usize>,
    ) -> Result<Vec<A>> {
        let mut acc = vec![A::zero(); target.len];
        self.run_range(walk, leaves, range, |b, v: &[&[T]]| {
            target.add(&mut acc, b.at, v[0]);
            Ok(())
        })?;
        Ok(acc)
    }
}

/// Where each element of the group's values goes in the sum.
pub(super) struct Target {
    /// The values' shape.
    shape_in: Dims,
    /// Per dimension of the values, its stride in the output (in
    /// elements; 0 along reduced axes).
    strides: SmallVec<[usize; 4]>,
    /// The output's shape and length.
    shape: Dims,
    pub(super) len: usize,
}

impl Target {
    pub(super) fn new(shape: &[usize], axes: &[usize]) -> Target {
        let out: Dims = (0..shape.len())
            .filter(|d| !axes.contains(d))
            .map(|d| shape[d])
            .collect();
        let mut strides: SmallVec<[usize; 4]> = SmallVec::from_elem(0, shape.len());
        let mut step = 1;
        for d in (0..shape.len()).rev() {
            if !axes.contains(&d) {
                strides[d] = step;
                step *= shape[d];
            }
        }
        Target {
            shape_in: shape.into(),
            strides,
            len: out.iter().product(),
            shape: out,
        }
    }

    /// Whether the last axis is kept (a stretch of it adds into a stretch
    /// of the output rather than into one element).
    pub(super) fn keeps_last(&self) -> bool {
        self.strides.last().is_some_and(|&s| s != 0)
    }

    /// Where in the output position `at` of the values adds.
    pub(super) fn offset(&self, at: usize) -> usize {
        let mut rest = at;
        let mut o = 0;
        for d in (0..self.shape_in.len()).rev() {
            o += rest % self.shape_in[d] * self.strides[d];
            rest /= self.shape_in[d];
        }
        o
    }

    /// Adds the values at positions `[at, at + v.len())` into `acc`, one
    /// stretch of the last dimension at a time.
    fn add<T: Copy, A: Float + From<T>>(&self, acc: &mut [A], at: usize, v: &[T]) {
        self.stretches(at, v.len(), |o, part, reduced| {
            let xs = &v[part];
            if reduced {
                acc[o] = acc[o] + fold(xs);
            } else {
                add_into(&mut acc[o..o + xs.len()], xs);
            }
        });
    }

    /// Splits positions `[at, at + len)` into stretches of the last
    /// dimension: `f(o, part, reduced)` per stretch, with `part` its range
    /// within `[0, len)` and `o` its place in the output; when `reduced` (the
    /// last axis is summed) the whole stretch adds into `out[o]`, else its
    /// element `i` into `out[o + i]`.
    pub(super) fn stretches(
        &self,
        at: usize,
        len: usize,
        mut f: impl FnMut(usize, std::ops::Range<usize>, bool),
    ) {
        let shape = &self.shape_in;
        let Some(last) = shape.len().checked_sub(1) else {
            f(0, 0..len, true);
            return;
        };
        let mut idx: SmallVec<[usize; 4]> = SmallVec::from_elem(0, shape.len());
        let (mut rest, mut o) = (at, 0);
        for d in (0..shape.len()).rev() {
            idx[d] = rest % shape[d];
            rest /= shape[d];
            o += idx[d] * self.strides[d];
        }
        let mut done = 0;
        while done < len {
            let n = (shape[last] - idx[last]).min(len - done);
            f(o, done..done + n, self.strides[last] == 0);
            done += n;
            idx[last] += n;
            o += n * self.strides[last];
            let mut d = last;
            while d > 0 && idx[d] == shape[d] {
                o -= shape[d] * self.strides[d];
                idx[d] = 0;
                d -= 1;
                idx[d] += 1;
                o += self.strides[d];
            }
        }
    }
}

avx2_build! {
    /// `ys[i] += xs[i]`, with a second build of the loop for AVX2 chosen at
    /// run time, as `kernels::elemwise::map` has (the crate targets baseline x86-64):
    /// after the kernels, these adds are most of a summed group's work.
    fn add_into[T: Copy, A: Float + From<T>](ys: &mut [A], xs: &[T])
        => add_into_plain, "avx2";
}

#[inline(always)]
fn add_into_plain<T: Copy, A: Float + From<T>>(ys: &mut [A], xs: &[T]) {
    ys.iter_mut().zip(xs).for_each(|(y, &x)| *y = *y + x.into());
}

avx2_build! {
    /// [`fold_plain`], with an AVX2 build as [`add_into`] has.
    fn fold[T: Copy, A: Float + From<T>](xs: &[T]) -> A
        => fold_plain, "avx2";
}

/// [`fold`], for other files' tests to compare against.
#[cfg(test)]
pub(super) fn fold_for_tests(xs: &[f64]) -> f64 {
    fold(xs)
}

/// The sum of `xs` in `LANES` interleaved partial sums, added in order at
/// the end (independent additions let the loop vectorise).
#[inline(always)]
fn fold_plain<T: Copy, A: Float + From<T>>(xs: &[T]) -> A {
    let mut lanes = [A::zero(); LANES];
    let mut chunks = xs.chunks_exact(LANES);
    for chunk in &mut chunks {
        lanes
            .iter_mut()
            .zip(chunk)
            .for_each(|(l, &x)| *l = *l + x.into());
    }
    let tail = chunks
        .remainder()
        .iter()
        .fold(A::zero(), |a, &x| a + x.into());
    lanes.iter().fold(tail, |a, &l| a + l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_map_positions_to_the_kept_axes() {
        // (2, 3, 4) summed over axis 1: out[i, k] = sum_j v[i, j, k].
        let t = Target::new(&[2, 3, 4], &[1]);
        assert_eq!((t.shape.as_slice(), t.len), (&[2, 4][..], 8));
        let v: Vec<f64> = (0..24).map(f64::from).collect();
        let mut acc = vec![0.0; 8];
        // Pieces of any length, starting anywhere, add up to the whole.
        for (at, len) in [(0, 5), (5, 11), (16, 8)] {
            t.add(&mut acc, at, &v[at..at + len]);
        }
        let want: Vec<f64> = (0..8)
            .map(|o| (0..3).map(|j| ((o / 4) * 12 + j * 4 + o % 4) as f64).sum())
            .collect();
        assert_eq!(acc, want);
        let all = Target::new(&[3, 50], &[0, 1]);
        let mut acc = vec![0.0];
        let v: Vec<f64> = (0..150).map(f64::from).collect();
        all.add(&mut acc, 0, &v[..70]);
        all.add(&mut acc, 70, &v[70..]);
        assert_eq!(acc, [(0..150).sum::<i32>() as f64]);
        let last = Target::new(&[3, 50], &[1]);
        let mut acc = vec![0.0; 3];
        last.add(&mut acc, 20, &v[20..120]);
        assert_eq!(acc[1], (50..100).sum::<i32>() as f64);
    }

    /// `sum(sqr(x - r), axes)` fused and unfused over `x` of `shape` (a
    /// NaN in its first element) and a broadcast `r`.
    fn sums(dtype: DType, shape: &[usize], axes: Option<&[i64]>) -> (Tensor, Tensor, usize) {
        use super::super::testing::{fused, interpreted, link};
        use crate::build;
        use crate::graph::{FunctionGraph, Graph};
        use crate::types::TensorType;
        let mut g = Graph::new();
        let ty = |s: &[Option<u64>]| TensorType::new(dtype, s.iter().copied()).unwrap();
        let x = g.input(ty(&vec![None; shape.len()]), Some("x"));
        let mut r_shape = vec![None; shape.len()];
        r_shape[0] = Some(1);
        let r = g.input(ty(&r_shape), Some("r"));
        let d = build::sub(&mut g, x, r).unwrap();
        let s = build::sqr(&mut g, d).unwrap();
        let out = build::sum(&mut g, s, axes).unwrap();
        let fg = FunctionGraph::new(g, vec![x, r], vec![out]).unwrap();
        let n: usize = shape.iter().product();
        let mut xs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 3.0).collect();
        if let Some(first) = xs.first_mut() {
            *first = f64::NAN;
        }
        let x = crate::kernels::elemwise::cast::cast(
            &Tensor::from_vec(shape.to_vec(), xs).unwrap(),
            dtype,
        )
        .unwrap();
        let mut rs = shape.to_vec();
        rs[0] = 1;
        let m: usize = rs.iter().product();
        let rv = Tensor::from_vec(rs, (0..m).map(|i| (i as f64).cos()).collect()).unwrap();
        let args = [
            x.into(),
            crate::kernels::elemwise::cast::cast(&rv, dtype)
                .unwrap()
                .into(),
        ];
        let f = fused(&fg);
        assert_eq!(f.num_apply_nodes(), 1, "sub, sqr and sum are one node");
        let (fused, plain) = (link(&f), link(&fg));
        let before = interpreted();
        let a = fused.run(&args).unwrap()[0].tensor().unwrap().clone();
        let unfused = interpreted() - before;
        let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
        (a, b, unfused)
    }

    /// Equal up to summation order: NaN where the other is NaN, else
    /// within `rtol` of the other (sums of squares have no cancellation).
    fn assert_close(a: &Tensor, b: &Tensor, rtol: f64, case: &str) {
        assert_eq!((a.dtype(), a.shape()), (b.dtype(), b.shape()), "{case}");
        for i in 0..a.len() {
            let (crate::tensor::Scalar::Float(x, _), crate::tensor::Scalar::Float(y, _)) =
                (a.get(i), b.get(i))
            else {
                panic!("{case}: not floats");
            };
            let ok = (x.is_nan() && y.is_nan()) || (x - y).abs() <= rtol * y.abs().max(1.0);
            assert!(ok, "{case}: element {i}: {x} vs {y}");
        }
    }

    #[test]
    fn summed_groups_match_unfused_runs() {
        let cases: [(&[usize], Option<&[i64]>); 9] = [
            (&[4000, 30], Some(&[0])),
            (&[30, 4000], Some(&[1])),
            (&[300, 300], None),
            (&[257, 301], Some(&[0])),
            (&[40, 7, 300], Some(&[0, 2])),
            (&[3, 700, 5], Some(&[1])),
            (&[0, 5000], Some(&[0])),
            (&[20, 10], Some(&[0])),
            (&[7], Some(&[0])),
        ];
        for dtype in [DType::Float64, DType::Float32] {
            let rtol = if dtype == DType::Float64 { 1e-12 } else { 1e-4 };
            for (shape, axes) in cases {
                let case = format!("{dtype} {shape:?} {axes:?}");
                let (a, b, unfused) = sums(dtype, shape, axes);
                assert_eq!(unfused, 0, "{case} ran unfused");
                assert_close(&a, &b, rtol, &case);
                if shape.iter().product::<usize>() <= BLOCK {
                    assert!(a.same_values(&b), "{case}: small calls are bit-identical");
                }
            }
        }
    }

    #[test]
    fn fold_adds_every_element_and_propagates_nan() {
        let xs: Vec<f64> = (0..37).map(f64::from).collect();
        assert_eq!(fold::<f64, f64>(&xs), 666.0);
        assert_eq!(fold::<f64, f64>(&[]), 0.0);
        let mut ys = xs.clone();
        ys[20] = f64::NAN;
        assert!(fold::<f64, f64>(&ys).is_nan());
        let small: Vec<f32> = vec![1e-8; 40];
        assert_eq!(fold::<f32, f64>(&small), 40.0 * f64::from(1e-8f32));
    }
}
