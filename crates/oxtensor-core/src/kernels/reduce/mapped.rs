//! Reductions that convert each element as they read it: float32 sums
//! accumulated in float64 (PyTensor's `acc_dtype`), and `all`/`any` of
//! inputs that are not bools (an element is true when it is not zero, NaN
//! included). The general path casts the input to the accumulator's dtype
//! first (whole, or a slab at a time in `reduce_pieces`), writing and
//! reading back a copy: on 4000x4000 float32 that made `sum` 0.45x and
//! `any` 0.7x NumPy's speed on one thread.
//!
//! Two layouts of a C-contiguous input are read this way: the reduced axes
//! last (each output a contiguous lane; a single lane is cut into pieces
//! for several threads) or first (rows folded into a row of outputs, ranges
//! of rows on several threads). Pieces and ranges depend on the shape
//! only, and their results are joined in order, so answers do not depend
//! on the number of threads.

use crate::dtype::DType;
use crate::kernels::cpu::has_avx2;
use crate::reduction::ReduceKind;
use crate::tensor::{Element, Tensor};
use rayon::prelude::*;

/// Inputs below this many elements keep the general path (and its bits).
const MIN_ELEMENTS: usize = 1 << 20;
/// Elements per piece of a single lane.
const PIECE: usize = 1 << 18;
/// Rows per range of rows folded into its own row of outputs: with
/// 4000-wide rows about 2 MiB of float32 per range.
const RANGE_ELEMENTS: usize = 1 << 19;
/// Most memory the ranges' rows of outputs may take together.
const MAX_RANGE_BYTES: usize = 64 << 20;

/// How a reduction combines converted elements.
#[derive(Clone, Copy)]
struct Fold<T, A, M, F> {
    init: A,
    map: M,
    f: F,
    /// A value nothing changes once reached (`true` for `any`, `false` for
    /// `all`): a lane stops there. `any` of random data is decided by its
    /// first element.
    absorbing: Option<A>,
    _t: std::marker::PhantomData<fn(T)>,
}

/// Elements between checks for an absorbing value.
const CHECK: usize = 256;

impl<T: Copy, A: Copy + PartialEq, M: Fn(T) -> A, F: Fn(A, A) -> A> Fold<T, A, M, F> {
    /// Folds `x` from `init`, a stretch of [`CHECK`] at a time when the
    /// fold has an absorbing value, stopping once it is reached.
    #[inline(always)]
    fn lane(&self, x: &[T]) -> A {
        let Some(stop) = self.absorbing else {
            return self.stretch(x);
        };
        let mut total = self.init;
        for part in x.chunks(CHECK) {
            total = (self.f)(total, self.stretch(part));
            if total == stop {
                break;
            }
        }
        total
    }

    /// Folds `x` from `init`, eight accumulators wide so it vectorises
    /// (plain loops: an iterator's `fold` would not be inlined into the
    /// AVX2 builds).
    #[inline(always)]
    fn stretch(&self, x: &[T]) -> A {
        let mut acc = [self.init; 8];
        let mut chunks = x.chunks_exact(8);
        for c in &mut chunks {
            for j in 0..8 {
                acc[j] = (self.f)(acc[j], (self.map)(c[j]));
            }
        }
        let mut total = self.init;
        for &v in chunks.remainder() {
            total = (self.f)(total, (self.map)(v));
        }
        for a in acc {
            total = (self.f)(total, a);
        }
        total
    }

    /// Folds the rows of `x` (rows of `acc.len()`) into `acc`, four rows
    /// per loop so `acc` is read and written once per four rows (one row
    /// per loop, its traffic made a float32 sum over rows 2x NumPy's time).
    #[inline(always)]
    fn rows(&self, x: &[T], acc: &mut [A]) {
        let w = acc.len();
        let mut quads = x.chunks_exact(4 * w);
        for q in &mut quads {
            let (a, b, c, d) = (&q[..w], &q[w..2 * w], &q[2 * w..3 * w], &q[3 * w..4 * w]);
            for j in 0..w {
                let (m, f) = (&self.map, &self.f);
                acc[j] = f(acc[j], f(f(m(a[j]), m(b[j])), f(m(c[j]), m(d[j]))));
            }
        }
        for row in quads.remainder().chunks_exact(w) {
            for (a, &v) in acc.iter_mut().zip(row) {
                *a = (self.f)(*a, (self.map)(v));
            }
        }
    }
}

/// Runs `body` built for AVX2 when the CPU has it (the loops then convert
/// and combine eight float32 at a time), else as compiled.
fn fast<R>(avx2: bool, body: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        #[target_feature(enable = "avx2")]
        fn with_avx2<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        // SAFETY: `avx2` is only true when the CPU has AVX2 (`has_avx2`).
        return unsafe { with_avx2(body) };
    }
    let _ = avx2;
    body()
}

impl<T, A, M, F> Fold<T, A, M, F>
where
    T: Copy + Sync,
    A: Copy + PartialEq + Send + Sync,
    M: Fn(T) -> A + Sync,
    F: Fn(A, A) -> A + Sync,
{
    /// `out[i]`: the fold of lane `i` of `x` (lanes of `len`).
    fn lanes(&self, x: &[T], len: usize, out: &mut [A], avx2: bool) {
        if out.len() == 1 {
            let pieces: Vec<A> = x
                .par_chunks(PIECE)
                .map(|p| fast(avx2, || self.lane(p)))
                .collect();
            out[0] = pieces.into_iter().fold(self.init, |a, b| (self.f)(a, b));
        } else {
            let per_task = (PIECE / len.max(1)).max(1);
            let lanes = out
                .par_iter_mut()
                .zip(x.par_chunks(len))
                .with_min_len(per_task);
            lanes.for_each(|(o, lane)| *o = fast(avx2, || self.lane(lane)));
        }
    }

    /// `out[c]`: the fold of column `c` of `x` (rows of `out.len()`).
    fn columns(&self, x: &[T], out: &mut [A], avx2: bool) {
        let cols = out.len();
        let rows = x.len() / cols;
        let by_memory = MAX_RANGE_BYTES / std::mem::size_of_val(out).max(1);
        let ranges = (x.len() / RANGE_ELEMENTS)
            .min(by_memory)
            .clamp(1, rows.max(1));
        let per = rows.div_ceil(ranges) * cols;
        let parts: Vec<Vec<A>> = x
            .par_chunks(per)
            .map(|part| {
                let mut acc = vec![self.init; cols];
                fast(avx2, || self.rows(part, &mut acc));
                acc
            })
            .collect();
        out.fill(self.init);
        for part in parts {
            for (o, p) in out.iter_mut().zip(part) {
                *o = (self.f)(*o, p);
            }
        }
    }
}

/// Reduces `t` over `axes` into `out` (the accumulator's dtype, the kept
/// shape) when this kernel takes it; returns whether it did.
pub(super) fn reduce_mapped(
    kind: ReduceKind,
    t: &Tensor,
    axes: &[usize],
    out: &mut Tensor,
) -> bool {
    let nd = t.ndim();
    let k = axes.len();
    let trailing = axes.iter().enumerate().all(|(i, &a)| a == nd - k + i);
    let leading = axes.iter().enumerate().all(|(i, &a)| a == i);
    let count: usize = axes.iter().map(|&a| t.shape()[a]).product();
    let fits = t.is_c_contiguous() && (trailing || leading) && k > 0 && count > 0;
    if !fits || t.len() < MIN_ELEMENTS || out.is_empty() {
        return false;
    }
    let layout = Layout {
        count,
        trailing,
        avx2: has_avx2(),
    };
    use DType::*;
    match (kind, t.dtype(), out.dtype()) {
        (ReduceKind::Sum, Float32, Float64) => {
            layout.run(t, out, (0.0, None), |v: f32| f64::from(v), |a, b| a + b)
        }
        (ReduceKind::All, Float64, Bool) => {
            layout.run(t, out, ALL, |v: f64| v != 0.0, |a, b| a & b)
        }
        (ReduceKind::Any, Float64, Bool) => {
            layout.run(t, out, ANY, |v: f64| v != 0.0, |a, b| a | b)
        }
        (ReduceKind::All, Float32, Bool) => {
            layout.run(t, out, ALL, |v: f32| v != 0.0, |a, b| a & b)
        }
        (ReduceKind::Any, Float32, Bool) => {
            layout.run(t, out, ANY, |v: f32| v != 0.0, |a, b| a | b)
        }
        (ReduceKind::All, Int64, Bool) => layout.run(t, out, ALL, |v: i64| v != 0, |a, b| a & b),
        (ReduceKind::Any, Int64, Bool) => layout.run(t, out, ANY, |v: i64| v != 0, |a, b| a | b),
        (ReduceKind::All, Int32, Bool) => layout.run(t, out, ALL, |v: i32| v != 0, |a, b| a & b),
        (ReduceKind::Any, Int32, Bool) => layout.run(t, out, ANY, |v: i32| v != 0, |a, b| a | b),
        _ => false,
    }
}

/// `all` starts true and stops at false; `any` the other way round.
const ALL: (bool, Option<bool>) = (true, Some(false));
const ANY: (bool, Option<bool>) = (false, Some(true));

/// Where the reduced values of a C-contiguous input lie.
struct Layout {
    /// Values per output.
    count: usize,
    /// Lanes (the reduced axes last) or columns (first).
    trailing: bool,
    avx2: bool,
}

impl Layout {
    fn run<T: Element, A: Element + PartialEq>(
        &self,
        t: &Tensor,
        out: &mut Tensor,
        (init, absorbing): (A, Option<A>),
        map: impl Fn(T) -> A + Sync,
        f: impl Fn(A, A) -> A + Sync,
    ) -> bool {
        let (Some(x), Some(y)) = (t.as_slice::<T>(), out.as_mut_slice::<A>()) else {
            return false;
        };
        let fold = Fold {
            init,
            map,
            f,
            absorbing,
            _t: std::marker::PhantomData,
        };
        match self.trailing {
            true => fold.lanes(x, self.count, y, self.avx2),
            false => fold.columns(x, y, self.avx2),
        }
        true
    }
}

#[cfg(test)]
#[path = "mapped_tests.rs"]
mod tests;
