//! The loops behind reductions: the input is walked in memory order, each
//! innermost run either folded into one output element (with independent
//! lanes so the loop vectorises) or combined elementwise into output rows,
//! and large inputs are split across threads (see `split_axis`).

use crate::kernels::iter::Nest;
use crate::kernels::PARALLEL_MIN;
use crate::tensor::{c_strides, Element, Strides, Tensor};

/// How a reduction combines values: `one` adds `x` to `acc`; `four` adds
/// four rows' values at once, where the combine loop takes rows four at a
/// time. Any `Fn(T, T) -> T` is one, its `four` the four in order (so
/// sums keep their order); a float maximum may group them
/// (`reduce::FloatExtreme`).
pub(in crate::kernels) trait Fold<T>: Copy + Send + Sync {
    fn one(&self, acc: T, x: T) -> T;
    #[inline(always)]
    fn four(&self, acc: T, a: T, b: T, c: T, d: T) -> T {
        self.one(self.one(self.one(self.one(acc, a), b), c), d)
    }
}

impl<T, F: Fn(T, T) -> T + Copy + Send + Sync> Fold<T> for F {
    #[inline(always)]
    fn one(&self, acc: T, x: T) -> T {
        self(acc, x)
    }
}

/// Independent partial results of a contiguous fold: 16 lanes are four
/// AVX2 registers of float64, enough to keep a sum memory-bound.
pub(in crate::kernels) const LANES: usize = 16;

/// Folds a strided run of `n` elements with `f`, starting from `init`.
///
/// # Safety
/// `ptr + i * step` must point at a valid `T` for every `i < n`.
unsafe fn fold_run<T: Element>(
    ptr: *const u8,
    n: usize,
    step: isize,
    init: T,
    f: impl Fold<T>,
) -> T {
    // SAFETY: only called with `i < n` (caller's contract: every such
    // element is a valid `T`; the callers' runs come from a `Nest` over a
    // layout `Tensor::check_layout` bounded).
    let read = |i: usize| unsafe { *(ptr.offset(i as isize * step) as *const T) };
    if step != std::mem::size_of::<T>() as isize || n < 2 * LANES {
        return (0..n).fold(init, |acc, i| f.one(acc, read(i)));
    }
    // SAFETY: a contiguous run of `n` aligned elements (caller's contract).
    let xs = unsafe { std::slice::from_raw_parts(ptr as *const T, n) };
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::cpu::has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { fold_lanes_avx2(xs, init, f) };
    }
    fold_lanes(xs, init, f)
}

/// `xs` folded in `LANES` interleaved partial results, combined in order
/// (the same order on every CPU, so the same result).
#[inline(always)]
fn fold_lanes<T: Element>(xs: &[T], init: T, f: impl Fold<T>) -> T {
    let mut lanes = [init; LANES];
    let mut chunks = xs.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (l, &x) in lanes.iter_mut().zip(chunk) {
            *l = f.one(*l, x);
        }
    }
    let tail = chunks
        .remainder()
        .iter()
        .fold(init, |acc, &x| f.one(acc, x));
    lanes.iter().fold(tail, |acc, &l| f.one(acc, l))
}

/// [`fold_lanes`] in AVX2 code (measured on a 64 MB float64 sum, one
/// thread: 1.2x to 2x faster than the SSE2 build, which did not keep up
/// with memory).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_lanes_avx2<T: Element>(xs: &[T], init: T, f: impl Fold<T>) -> T {
    fold_lanes(xs, init, f)
}

/// A raw output pointer that may cross threads: each thread writes a
/// disjoint block of the output (see `split_kept`).
#[derive(Clone, Copy)]
struct OutPtr(*mut u8);
// SAFETY: the pointer is only written through by one thread per disjoint
// region of a buffer that outlives the parallel scope.
unsafe impl Send for OutPtr {}
// SAFETY: see `Send`.
unsafe impl Sync for OutPtr {}

impl OutPtr {
    /// The pointer `bytes` further on (a method, so closures capture the
    /// whole `Send` wrapper rather than its raw field).
    ///
    /// # Safety
    /// The result must stay inside the output buffer.
    unsafe fn offset(self, bytes: isize) -> OutPtr {
        // SAFETY: the caller keeps the result inside the buffer.
        OutPtr(unsafe { self.0.offset(bytes) })
    }
}

/// Reduces `t` over `axes` into the output at `out` whose kept axes have
/// byte strides `out_strides` (in input-axis order, 0 on reduced axes); the
/// output must already hold `init` (or a partial result).
///
/// # Safety
/// `out` plus the strides must address valid, exclusively owned `T`s for
/// every kept index of `t`.
unsafe fn reduce_into<T: Element>(
    t: &Tensor,
    axes: &[usize],
    out: OutPtr,
    out_strides: &[isize],
    init: T,
    f: impl Fold<T>,
) {
    // Outer loops follow the input's memory order (largest stride first).
    let mut order: Vec<usize> = (0..t.ndim()).collect();
    order.sort_by_key(|&d| std::cmp::Reverse(t.strides()[d].unsigned_abs()));
    let shape: Vec<usize> = order.iter().map(|&d| t.shape()[d]).collect();
    let istrides: Strides = order.iter().map(|&d| t.strides()[d]).collect();
    let ostrides: Strides = order
        .iter()
        .map(|&d| if axes.contains(&d) { 0 } else { out_strides[d] })
        .collect();
    let nest = Nest::new(&shape, [istrides, ostrides]);
    let (pi, po) = (t.as_ptr(), out.0);
    let size = std::mem::size_of::<T>() as isize;
    if let Some((rows, n, [si, so])) = nest.split_inner() {
        if si == size && so == size && !t.is_empty() {
            // Contiguous rows combined into contiguous output rows.
            rows.for_each_run(|[oi, oo], m, [ri, ro]| {
                // SAFETY: as below; `m` rows of `n` elements `ri` bytes
                // apart, into output rows `ro` bytes apart (0: the same row).
                unsafe {
                    let run = RowRun {
                        src: pi.offset(oi),
                        m,
                        row_step: ri,
                        n,
                        dst: po.offset(oo),
                        out_step: ro,
                    };
                    combine_rows(run, f)
                }
            });
            return;
        }
    }
    nest.for_each_run(|[oi, oo], n, [si, so]| {
        // SAFETY: offsets come from the nest over the input's layout
        // (bounded by `Tensor::check_layout`) and the caller's output
        // strides (zero on reduced axes; `reduce_into`'s contract).
        unsafe {
            if so == 0 {
                let dst = po.offset(oo) as *mut T;
                *dst = f.one(*dst, fold_run(pi.offset(oi), n, si, init, f));
            } else if si == size && so == size {
                // Contiguous rows: slices let the combine loop vectorise.
                let xs = std::slice::from_raw_parts(pi.offset(oi) as *const T, n);
                let ys = std::slice::from_raw_parts_mut(po.offset(oo) as *mut T, n);
                ys.iter_mut().zip(xs).for_each(|(y, &x)| *y = f.one(*y, x));
            } else {
                for i in 0..n as isize {
                    let d = po.offset(oo + i * so) as *mut T;
                    *d = f.one(*d, *(pi.offset(oi + i * si) as *const T));
                }
            }
        }
    });
}

/// `m` contiguous rows of `n` elements (`row_step` bytes apart) and the
/// output rows they combine into (`out_step` bytes apart; 0: all into one).
#[derive(Clone, Copy)]
struct RowRun {
    src: *const u8,
    m: usize,
    row_step: isize,
    n: usize,
    dst: *mut u8,
    out_step: isize,
}

/// Combines the rows of `run` into its output rows. When they all go into
/// one row (`out_step == 0`, a reduced axis), four rows are combined per
/// pass over the output row, in the same order as one at a time (so the
/// results are identical), loading and storing the accumulator once
/// instead of four times: for a sum over the rows of a matrix that
/// traffic, not the input, was the cost.
///
/// # Safety
/// Every row must hold `n` valid `T`s, and every output row `n` valid,
/// exclusively owned `T`s.
unsafe fn combine_rows<T: Element>(run: RowRun, f: impl Fold<T>) {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::cpu::has_avx2() {
        // SAFETY: the caller's contract; the CPU has AVX2, checked above.
        return unsafe { combine_rows_avx2(run, f) };
    }
    // SAFETY: the caller's contract.
    unsafe { combine_rows_body(run, f) }
}

/// [`combine_rows_body`] in AVX2 code: the SSE2 build of `max` down the
/// columns of 4000x4000 float64 (a compare per NaN check and one for the
/// maximum, two lanes at a time) took 1.5x the time of the sum.
///
/// # Safety
/// As [`combine_rows`], on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn combine_rows_avx2<T: Element>(run: RowRun, f: impl Fold<T>) {
    // SAFETY: the caller's contract.
    unsafe { combine_rows_body(run, f) }
}

/// # Safety
/// As [`combine_rows`].
#[inline(always)]
unsafe fn combine_rows_body<T: Element>(run: RowRun, f: impl Fold<T>) {
    let RowRun {
        src,
        m,
        row_step,
        n,
        dst,
        out_step,
    } = run;
    // SAFETY: the caller's contract, row by row.
    let row = |r: usize| unsafe {
        std::slice::from_raw_parts(src.offset(r as isize * row_step) as *const T, n)
    };
    // SAFETY: as above, for the output rows.
    let out_row = |r: usize| unsafe {
        std::slice::from_raw_parts_mut(dst.offset(r as isize * out_step) as *mut T, n)
    };
    let mut r = 0;
    if out_step == 0 {
        let ys = out_row(0);
        while r + 4 <= m {
            let (a, b, c, d) = (row(r), row(r + 1), row(r + 2), row(r + 3));
            for ((((y, &a), &b), &c), &d) in ys.iter_mut().zip(a).zip(b).zip(c).zip(d) {
                *y = f.four(*y, a, b, c, d);
            }
            r += 4;
        }
    }
    for r in r..m {
        let ys = out_row(r);
        ys.iter_mut()
            .zip(row(r))
            .for_each(|(y, &x)| *y = f.one(*y, x));
    }
}

/// Output byte strides per input axis (0 on reduced axes) for a C-ordered output.
fn out_strides_per_axis(t: &Tensor, axes: &[usize], out: &Tensor) -> Vec<isize> {
    let c = c_strides(out.dtype(), out.shape());
    let mut kept = c.iter();
    (0..t.ndim())
        .map(|d| {
            if axes.contains(&d) {
                0
            } else {
                *kept.next().unwrap_or(&0)
            }
        })
        .collect()
}

/// Reduces `t` over `axes` into `out` (kept axes, C order, filled with `init`),
/// on several threads when the input is large.
pub(in crate::kernels) fn reduce_typed<T: Element>(
    t: &Tensor,
    axes: &[usize],
    out: &mut Tensor,
    init: T,
    f: impl Fold<T>,
) {
    // The bound every walk below relies on (O(ndim), once per call).
    let kept: Vec<usize> = (0..t.ndim())
        .filter(|d| !axes.contains(d))
        .map(|d| t.shape()[d])
        .collect();
    assert!(
        out.shape() == kept.as_slice() && t.dtype() == T::DTYPE,
        "a reduction of {:?} over {axes:?} into {:?}",
        t.shape(),
        out.shape()
    );
    let strides = out_strides_per_axis(t, axes, out);
    let ptr = OutPtr(
        out.as_mut_slice::<T>()
            .expect("reduction outputs are fresh")
            .as_mut_ptr() as *mut u8,
    );
    let threads = rayon::current_num_threads();
    if t.len() < PARALLEL_MIN * 4 || threads < 2 {
        // SAFETY: `out` is a fresh, exclusively owned C-contiguous `T` tensor
        // (`as_mut_slice`) whose shape is `t`'s kept lengths (asserted above),
        // so `strides` address its elements for every kept index of `t`;
        // `t` is walked over its own layout, bounded by `Tensor::check_layout`.
        return unsafe { reduce_into(t, axes, ptr, &strides, init, f) };
    }
    match split_axis(t, axes, threads) {
        Some((d, true)) => split_kept(t, axes, d, ptr, &strides, threads, init, f),
        Some((d, false)) => split_reduced(t, axes, d, out, threads, init, f),
        // SAFETY: as above.
        None => unsafe { reduce_into(t, axes, ptr, &strides, init, f) },
    }
}

/// The axis to split work along, and whether it is kept. First choice is
/// the outermost axis in memory order: each thread then streams one
/// contiguous stretch of the input, which runs at memory bandwidth, while
/// splitting an inner axis interleaves the threads' reads (measured: a sum
/// over axis 0 or all axes of 4000x4000 float64 took 1.5x as long). When
/// that axis is reduced, each thread needs a partial result of the output's
/// size, so this is done only when those are small next to the input.
/// Otherwise: the longest kept axis if long enough (threads write disjoint
/// output blocks), else the longest reduced axis (partial results).
fn split_axis(t: &Tensor, axes: &[usize], threads: usize) -> Option<(usize, bool)> {
    let out_len: usize = (0..t.ndim())
        .filter(|d| !axes.contains(d))
        .map(|d| t.shape()[d])
        .product();
    let outer = (0..t.ndim())
        .filter(|&d| t.shape()[d] >= threads)
        .max_by_key(|&d| t.strides()[d].unsigned_abs());
    if let Some(d) = outer {
        let kept = !axes.contains(&d);
        if kept || out_len * threads * PARTIALS_MAX_FRACTION <= t.len() {
            return Some((d, kept));
        }
    }
    let longest = |kept: bool| {
        (0..t.ndim())
            .filter(|d| axes.contains(d) != kept)
            .max_by_key(|&d| t.shape()[d])
    };
    match longest(true) {
        Some(d) if t.shape()[d] >= threads => Some((d, true)),
        _ => longest(false)
            .filter(|&d| t.shape()[d] >= threads)
            .map(|d| (d, false)),
    }
}

/// Per-thread partial results may add at most 1/this of the input's size
/// (memory, and the pass that combines them).
const PARTIALS_MAX_FRACTION: usize = 16;

/// The range `[start, end)` of block `k` of `n` items split in `parts`.
fn block(n: usize, parts: usize, k: usize) -> (usize, usize) {
    (n * k / parts, n * (k + 1) / parts)
}

/// `t` restricted to `[start, end)` along axis `d` (a view).
fn slab(t: &Tensor, d: usize, start: usize, end: usize) -> Tensor {
    let mut shape = t.shape().to_vec();
    shape[d] = end - start;
    let offset = t.offset() as isize + start as isize * t.strides()[d];
    t.view(&shape, t.strides(), offset as usize)
        .expect("a slab of a valid view is valid")
}

#[allow(clippy::too_many_arguments)]
fn split_kept<T: Element>(
    t: &Tensor,
    axes: &[usize],
    d: usize,
    out: OutPtr,
    strides: &[isize],
    threads: usize,
    init: T,
    f: impl Fold<T>,
) {
    rayon::scope(|s| {
        for k in 0..threads {
            let (start, end) = block(t.shape()[d], threads, k);
            let part = slab(t, d, start, end);
            // SAFETY: block `k` of axis `d` maps to output elements no other
            // block touches; the output outlives the scope.
            let ptr = unsafe { out.offset(start as isize * strides[d]) };
            // SAFETY: as above: `ptr` addresses this block's own output elements, alive for the scope.
            s.spawn(move |_| unsafe { reduce_into(&part, axes, ptr, strides, init, f) });
        }
    });
}

/// Each thread reduces its slab of axis `d` into a partial result of its
/// own; the partials are then folded into `out` (which holds `init`).
/// Without the memory for the partials, one thread reduces into `out`.
fn split_reduced<T: Element>(
    t: &Tensor,
    axes: &[usize],
    d: usize,
    out: &mut Tensor,
    threads: usize,
    init: T,
    f: impl Fold<T>,
) {
    let partials: Option<Vec<Tensor>> = (0..threads)
        .map(|_| {
            let mut p = Tensor::uninit(out.dtype(), out.shape()).ok()?;
            fill(&mut p, init);
            Some(p)
        })
        .collect();
    let Some(mut partials) = partials else {
        let strides = out_strides_per_axis(t, axes, out);
        let ptr = OutPtr(
            out.as_mut_slice::<T>()
                .expect("reduction outputs are fresh")
                .as_mut_ptr() as *mut u8,
        );
        // SAFETY: `out` is the fresh, exclusively owned output of this shape.
        return unsafe { reduce_into(t, axes, ptr, &strides, init, f) };
    };
    rayon::scope(|s| {
        for (k, acc) in partials.iter_mut().enumerate() {
            let (start, end) = block(t.shape()[d], threads, k);
            let part = slab(t, d, start, end);
            s.spawn(move |_| {
                let strides = out_strides_per_axis(&part, axes, acc);
                let ptr = OutPtr(
                    acc.as_mut_slice::<T>()
                        .expect("partials are fresh")
                        .as_mut_ptr() as *mut u8,
                );
                // SAFETY: each partial is written by this thread only.
                unsafe { reduce_into(&part, axes, ptr, &strides, init, f) };
            });
        }
    });
    let dst = out
        .as_mut_slice::<T>()
        .expect("reduction outputs are fresh");
    for p in &partials {
        let src = p.as_slice::<T>().expect("partials are contiguous");
        dst.iter_mut()
            .zip(src)
            .for_each(|(y, &x)| *y = f.one(*y, x));
    }
}

pub(in crate::kernels) fn fill<T: Element>(out: &mut Tensor, v: T) {
    out.as_mut_slice::<T>()
        .expect("reduction outputs are fresh")
        .fill(v);
}
