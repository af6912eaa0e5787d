//! A summed group that is exactly `sum(sqr(a - b))` over two leaves (what
//! `var` and `std` compile to, `b` the broadcast mean): each block's
//! differences are squared and added into the accumulator in one loop over
//! the leaves, so no block of values is written and read back (the general
//! path runs the `Sub` and `Sqr` kernels into scratch and then adds it).
//!
//! Per element the loop computes what the kernels do, `d = a - b` then
//! `d * d` in the group's dtype. A reduced last axis is folded as the
//! general path folds it (the same bits). Summing into the output's rows
//! (`var(x, axis=0)`), blocks are taken a column of blocks at a time and
//! four rows at once, so a stretch of the accumulator and of the mean row
//! stays in registers and L1 (perf, one thread, 4000² float64: this loop
//! takes 1.15x the `Sum` kernel's time over the same matrix, 1.5x one row
//! at a time); each output element still adds its rows in order, but the
//! parallel ranges split the rows elsewhere than the general path's, so
//! large calls agree with it within summation error (fixed per shape).

use super::fusion::Operand;
use super::fusion_sum::{Target, LANES};
use super::fusion_thunk::FusedThunk;
use super::fusion_walk::Walk;
use crate::error::{Error, Result};
use crate::ops::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};
use num_traits::Float;
use smallvec::SmallVec;
use std::ops::Range;

#[cfg(test)]
thread_local! {
    /// Calls on this thread that took this path, so tests can tell.
    pub(super) static SQ_DIFF_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl FusedThunk {
    /// The leaves `(a, b)` when the group (before its `Sum`) is exactly
    /// `sqr(a - b)` of two leaves.
    pub(super) fn sq_diff(&self) -> Option<(usize, usize)> {
        let [sub, sqr] = &self.instrs[..] else {
            return None;
        };
        let [Operand::Leaf(a), Operand::Leaf(b)] = sub.args[..] else {
            return None;
        };
        let squares_sub = sqr.kind == ScalarKind::Sqr && sqr.args[..] == [Operand::Tmp(0)];
        (sub.kind == ScalarKind::Sub && squares_sub).then_some((a, b))
    }

    /// Blocks `range` of `sum(sqr(a - b))`, `(a, b)` the leaves
    /// [`FusedThunk::sq_diff`] found, summed into a fresh accumulator.
    pub(super) fn sq_diff_range<T: Element + Float, A: Float + From<T>>(
        &self,
        walk: &Walk,
        target: &Target,
        leaves: &[&Tensor],
        range: Range<usize>,
        (a, b): (usize, usize),
    ) -> Result<Vec<A>> {
        let mut acc = vec![A::zero(); target.len];
        let cap = walk.max_block();
        let mut gathered: SmallVec<[Option<Tensor>; 4]> = (0..leaves.len())
            .map(|i| walk.gathers(i).then(|| Tensor::uninit(T::DTYPE, &[cap])))
            .collect();
        // Summing into the output's rows, blocks are taken a column at a
        // time, and `ROWS` blocks at the same place of consecutive runs add
        // into the same stretch of the output in one loop: the accumulator
        // is read and written once per `ROWS` rows (each element still adds
        // its rows one after the other, in order).
        let by_columns = target.keeps_last();
        let stack = by_columns && !walk.gathers(a) && !walk.gathers(b);
        let block_at = |k| match by_columns {
            true => walk.block_by_columns(k),
            false => walk.block(k),
        };
        let mut k = range.start;
        while k < range.end {
            let block = block_at(k);
            if stack && stacks(walk, target, k, range.end) {
                let ops = (k..k + ROWS)
                    .map(|j| walk.operands::<T>(leaves, walk.block_by_columns(j), &mut gathered))
                    .collect::<Result<SmallVec<[_; ROWS]>>>()?;
                let xs = ops
                    .iter()
                    .map(|o| read::<T>(&o[a]))
                    .collect::<Result<SmallVec<[_; ROWS]>>>()?;
                let ys = ops
                    .iter()
                    .map(|o| read::<T>(&o[b]))
                    .collect::<Result<SmallVec<[_; ROWS]>>>()?;
                if let Some(rows) = same_y(&xs, &ys) {
                    target.stretches(block.at, block.len, |o, part, _| {
                        let x = rows.0.map(|x| &x[part.clone()]);
                        add_sq_rows(&mut acc[o..o + part.len()], x, rows.1.part(&part));
                    });
                    k += ROWS;
                    continue;
                }
            }
            let ops = walk.operands::<T>(leaves, block, &mut gathered)?;
            let (xs, ys) = (read::<T>(&ops[a])?, read::<T>(&ops[b])?);
            target.stretches(block.at, block.len, |o, part, reduced| {
                let (x, y) = (xs.part(&part), ys.part(&part));
                if reduced {
                    acc[o] = acc[o] + fold_sq(x, y, part.len());
                } else {
                    add_sq(&mut acc[o..o + part.len()], x, y);
                }
            });
            k += 1;
        }
        Ok(acc)
    }
}

/// Blocks added into the same stretch of the output in one loop.
const ROWS: usize = 4;

/// Whether blocks `k..k + ROWS` (a column at a time, all before `end`) lie
/// at the same place of their runs and add into the same outputs (block
/// `k`'s stretches then stand for all of theirs: positions inside a run
/// add into the same outputs in every run that starts at the same one).
fn stacks(walk: &Walk, target: &Target, k: usize, end: usize) -> bool {
    if k + ROWS > end {
        return false;
    }
    let first = walk.block_by_columns(k);
    let o = target.offset(first.at);
    (k + 1..k + ROWS).all(|j| {
        let b = walk.block_by_columns(j);
        let same_place = b.at > first.at && (b.at - first.at) % walk.run_len() == 0;
        b.len == first.len && same_place && target.offset(b.at) == o
    })
}

/// The stacked blocks' `a` operands and their shared `b` operand, when
/// every `a` is a slice and every `b` the same.
fn same_y<'a, T: Copy + PartialEq>(
    xs: &[Src<'a, T>],
    ys: &[Src<'a, T>],
) -> Option<([&'a [T]; ROWS], Src<'a, T>)> {
    let y = ys[0];
    let same = |o: &Src<'a, T>| match (o, &y) {
        (Src::Slice(p), Src::Slice(q)) => std::ptr::eq(*p, *q),
        (Src::One(p), Src::One(q)) => p == q,
        _ => false,
    };
    let mut rows = [&[][..]; ROWS];
    for (row, x) in rows.iter_mut().zip(xs) {
        let Src::Slice(x) = x else { return None };
        *row = x;
    }
    ys.iter().all(same).then_some((rows, y))
}

/// A block operand: `len` values, or one value standing for all of them.
#[derive(Clone, Copy)]
enum Src<'a, T> {
    Slice(&'a [T]),
    One(T),
}

impl<'a, T: Copy> Src<'a, T> {
    /// Positions `part` of the block.
    fn part(self, part: &Range<usize>) -> Src<'a, T> {
        match self {
            Src::Slice(xs) => Src::Slice(&xs[part.clone()]),
            one => one,
        }
    }
}

/// A block operand as [`Walk::operands`] made it (a single element, or a
/// contiguous view of the block).
fn read<T: Element>(t: &Tensor) -> Result<Src<'_, T>> {
    let xs = t
        .as_slice::<T>()
        .ok_or_else(|| Error::Value("a fused block operand is not contiguous".into()))?;
    Ok(match xs {
        [one] => Src::One(*one),
        _ => Src::Slice(xs),
    })
}

/// What the two kernels compute for one element: `Sub`, then `Sqr`.
#[inline(always)]
fn sq<T: Float>(a: T, b: T) -> T {
    let d = a - b;
    d * d
}

/// Values of a block operand, read the same way at every position: a
/// slice by index, a single value as itself (so each pairing of the two
/// compiles to its own loop).
trait Lane<T>: Copy {
    /// Positions `[at, at + n)`.
    fn sub(self, at: usize, n: usize) -> Self;
    fn at(self, i: usize) -> T;
}

impl<T: Copy> Lane<T> for &[T] {
    #[inline(always)]
    fn sub(self, at: usize, n: usize) -> Self {
        &self[at..at + n]
    }
    #[inline(always)]
    fn at(self, i: usize) -> T {
        self[i]
    }
}

/// One value for every position.
#[derive(Clone, Copy)]
struct Same<T>(T);

impl<T: Copy> Lane<T> for Same<T> {
    #[inline(always)]
    fn sub(self, _: usize, _: usize) -> Self {
        self
    }
    #[inline(always)]
    fn at(self, _: usize) -> T {
        self.0
    }
}

/// `$body` with `$x` and `$y` bound to the two operands as [`Lane`]s of
/// their own kind (the body compiles once per pairing).
macro_rules! with_lanes {
    ($xs:expr, $ys:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($xs, $ys) {
            (Src::Slice($x), Src::Slice($y)) => $body,
            (Src::Slice($x), Src::One(y)) => {
                let $y = Same(y);
                $body
            }
            (Src::One(x), Src::Slice($y)) => {
                let $x = Same(x);
                $body
            }
            (Src::One(x), Src::One(y)) => {
                let ($x, $y) = (Same(x), Same(y));
                $body
            }
        }
    };
}

/// `ys[i] += sq(x[i], y[i])`, with an AVX2 build chosen at run time as
/// `fusion_sum.rs`'s `add_into` has.
fn add_sq<T: Float, A: Float + From<T>>(ys: &mut [A], x: Src<T>, y: Src<T>) {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::lanes::has_avx2() {
        // SAFETY: the CPU runs AVX2, checked just above.
        return unsafe { add_sq_avx2(ys, x, y) };
    }
    add_sq_plain(ys, x, y);
}

/// [`add_sq_plain`] compiled with AVX2 enabled.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sq_avx2<T: Float, A: Float + From<T>>(ys: &mut [A], x: Src<T>, y: Src<T>) {
    add_sq_plain(ys, x, y);
}

#[inline(always)]
fn add_sq_plain<T: Float, A: Float + From<T>>(ys: &mut [A], x: Src<T>, y: Src<T>) {
    with_lanes!(x, y, |x, y| add_lanes(ys, x, y));
}

#[inline(always)]
fn add_lanes<T: Float, A: Float + From<T>>(ys: &mut [A], x: impl Lane<T>, y: impl Lane<T>) {
    let n = ys.len();
    let (x, y) = (x.sub(0, n), y.sub(0, n));
    for (i, acc) in ys.iter_mut().enumerate() {
        *acc = *acc + sq(x.at(i), y.at(i)).into();
    }
}

/// `ys[i] += sq(xs[r][i], y[i])` for each row `r` in turn, with an AVX2
/// build as [`add_sq`] has.
fn add_sq_rows<T: Float, A: Float + From<T>>(ys: &mut [A], xs: [&[T]; ROWS], y: Src<T>) {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::lanes::has_avx2() {
        // SAFETY: the CPU runs AVX2, checked just above.
        return unsafe { add_sq_rows_avx2(ys, xs, y) };
    }
    add_sq_rows_plain(ys, xs, y);
}

/// [`add_sq_rows_plain`] compiled with AVX2 enabled.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sq_rows_avx2<T: Float, A: Float + From<T>>(
    ys: &mut [A],
    xs: [&[T]; ROWS],
    y: Src<T>,
) {
    add_sq_rows_plain(ys, xs, y);
}

#[inline(always)]
fn add_sq_rows_plain<T: Float, A: Float + From<T>>(ys: &mut [A], xs: [&[T]; ROWS], y: Src<T>) {
    let n = ys.len();
    let xs = xs.map(|x| &x[..n]);
    match y {
        Src::Slice(y) => rows_lanes(ys, xs, &y[..n]),
        Src::One(y) => rows_lanes(ys, xs, Same(y)),
    }
}

#[inline(always)]
fn rows_lanes<T: Float, A: Float + From<T>>(ys: &mut [A], xs: [&[T]; ROWS], y: impl Lane<T>) {
    let [x0, x1, x2, x3] = xs;
    for (i, acc) in ys.iter_mut().enumerate() {
        let m = y.at(i);
        let s = *acc + sq(x0[i], m).into();
        let s = s + sq(x1[i], m).into();
        let s = s + sq(x2[i], m).into();
        *acc = s + sq(x3[i], m).into();
    }
}

/// The sum of `sq(x[i], y[i])` over `n` positions, with an AVX2 build as
/// [`add_sq`] has.
fn fold_sq<T: Float, A: Float + From<T>>(x: Src<T>, y: Src<T>, n: usize) -> A {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::lanes::has_avx2() {
        // SAFETY: the CPU runs AVX2, checked just above.
        return unsafe { fold_sq_avx2(x, y, n) };
    }
    fold_sq_plain(x, y, n)
}

/// [`fold_sq_plain`] compiled with AVX2 enabled.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_sq_avx2<T: Float, A: Float + From<T>>(x: Src<T>, y: Src<T>, n: usize) -> A {
    fold_sq_plain(x, y, n)
}

#[inline(always)]
fn fold_sq_plain<T: Float, A: Float + From<T>>(x: Src<T>, y: Src<T>, n: usize) -> A {
    with_lanes!(x, y, |x, y| fold_lanes(x, y, n))
}

/// As `fusion_sum.rs`'s `fold_plain` over the squares: `LANES` interleaved
/// partial sums, the tail summed on its own, then all added in order.
#[inline(always)]
fn fold_lanes<T: Float, A: Float + From<T>>(x: impl Lane<T>, y: impl Lane<T>, n: usize) -> A {
    let mut lanes = [A::zero(); LANES];
    let full = n - n % LANES;
    for c in (0..full).step_by(LANES) {
        let (xc, yc) = (x.sub(c, LANES), y.sub(c, LANES));
        for (l, lane) in lanes.iter_mut().enumerate() {
            *lane = *lane + sq(xc.at(l), yc.at(l)).into();
        }
    }
    let tail = (full..n).fold(A::zero(), |s, i| s + sq(x.at(i), y.at(i)).into());
    lanes.iter().fold(tail, |s, &l| s + l)
}

#[cfg(test)]
mod tests {
    use super::super::program::{LinkOptions, Program};
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph, VarId};
    use crate::kernels::cast::cast;
    use crate::tensor::Scalar;
    use crate::types::TensorType;
    use std::collections::HashMap;

    /// `sum(f(x, r), axes)` for `x` of rank 2 and `r` of static shape
    /// `r_ones` (which dimensions are 1), fused and unfused.
    fn programs(
        dtype: DType,
        r_ones: [bool; 2],
        axes: Option<&[i64]>,
        f: fn(&mut Graph, VarId, VarId) -> VarId,
    ) -> (Program, Program) {
        let mut g = Graph::new();
        let x = g.input(TensorType::new(dtype, [None, None]).unwrap(), Some("x"));
        let r_shape = r_ones.map(|one| one.then_some(1));
        let r = g.input(TensorType::new(dtype, r_shape).unwrap(), Some("r"));
        let v = f(&mut g, x, r);
        let out = build::sum(&mut g, v, axes).unwrap();
        let fg = FunctionGraph::new(g, vec![x, r], vec![out]).unwrap();
        let link = |fuse| {
            let opts = LinkOptions {
                fuse,
                ..LinkOptions::default()
            };
            Program::link(&fg, HashMap::new(), &opts).unwrap()
        };
        (link(true), link(false))
    }

    fn sqr_sub(g: &mut Graph, x: VarId, r: VarId) -> VarId {
        let d = build::sub(g, x, r).unwrap();
        build::sqr(g, d).unwrap()
    }

    /// `rows x cols` values with a NaN and an infinity when there is room;
    /// C-ordered, or the transpose of a C-ordered `cols x rows`.
    fn matrix(dtype: DType, rows: usize, cols: usize, transposed: bool) -> Tensor {
        let n = rows * cols;
        let mut xs: Vec<f64> = (0..n)
            .map(|i| (i as f64 * 0.37).sin() * 3.0 + 2.0)
            .collect();
        if n > 40 {
            (xs[7], xs[n - 3]) = (f64::NAN, f64::INFINITY);
        }
        let shape = if transposed {
            [cols, rows]
        } else {
            [rows, cols]
        };
        let t = cast(&Tensor::from_vec(shape.to_vec(), xs).unwrap(), dtype);
        if !transposed {
            return t;
        }
        let size = dtype.itemsize() as isize;
        t.view(&[rows, cols], &[size, size * rows as isize], 0)
            .unwrap()
    }

    fn floats(t: &Tensor) -> Vec<f64> {
        (0..t.len())
            .map(|i| match t.get(i) {
                Scalar::Float(x, _) => x,
                other => panic!("not a float: {other:?}"),
            })
            .collect()
    }

    /// Within summation error of the unfused run: NaN where it is NaN.
    fn assert_close(a: &Tensor, b: &Tensor, rtol: f64, case: &str) {
        assert_eq!((a.dtype(), a.shape()), (b.dtype(), b.shape()), "{case}");
        for (i, (x, y)) in floats(a).into_iter().zip(floats(b)).enumerate() {
            let ok = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= rtol * y.abs();
            assert!(ok, "{case}: element {i}: {x} vs {y}");
        }
    }

    #[test]
    fn squared_differences_match_unfused_runs() {
        let shapes = [
            (4000, 30),
            (30, 4000),
            (257, 301),
            (700, 10),
            (2, 2049),
            (5, 0),
        ];
        let axes: [Option<&[i64]>; 3] = [Some(&[0]), Some(&[1]), None];
        let leaves = [[true, false], [false, true], [true, true], [false, false]];
        for dtype in [DType::Float64, DType::Float32] {
            let rtol = if dtype == DType::Float64 { 1e-12 } else { 1e-5 };
            for (axes, r_ones) in axes.iter().flat_map(|a| leaves.map(|r| (*a, r))) {
                let (fused, plain) = programs(dtype, r_ones, axes, sqr_sub);
                assert_eq!(fused.steps.len(), 1, "one fused step");
                for ((rows, cols), transposed) in
                    shapes.iter().flat_map(|&s| [(s, false), (s, true)])
                {
                    let r_rows = if r_ones[0] { 1 } else { rows };
                    let r_cols = if r_ones[1] { 1 } else { cols };
                    let args = [
                        matrix(dtype, rows, cols, transposed).into(),
                        matrix(dtype, r_rows, r_cols, false).into(),
                    ];
                    let before = SQ_DIFF_RUNS.with(|c| c.get());
                    let a = fused.run(&args).unwrap()[0].tensor().unwrap().clone();
                    let ranges = SQ_DIFF_RUNS.with(|c| c.get()) - before;
                    let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
                    let case =
                        format!("{dtype} {rows}x{cols} r {r_ones:?} {axes:?} T {transposed}");
                    assert_close(&a, &b, rtol, &case);
                    let large = rows * cols > super::super::fusion_walk::BLOCK;
                    assert_eq!(ranges > 0, large, "{case}: ranges {ranges}");
                }
            }
        }
    }

    #[test]
    fn only_the_exact_shape_takes_this_path() {
        fn sub_sqr_swapped(g: &mut Graph, x: VarId, r: VarId) -> VarId {
            let s = build::sqr(g, x).unwrap();
            build::sub(g, s, r).unwrap()
        }
        fn scaled(g: &mut Graph, x: VarId, r: VarId) -> VarId {
            let s = sqr_sub(g, x, r);
            build::mul(g, s, r).unwrap()
        }
        let args = [
            matrix(DType::Float64, 300, 300, false).into(),
            matrix(DType::Float64, 1, 300, false).into(),
        ];
        for f in [sub_sqr_swapped, scaled] {
            let (fused, plain) = programs(DType::Float64, [true, false], Some(&[0]), f);
            let before = SQ_DIFF_RUNS.with(|c| c.get());
            let a = fused.run(&args).unwrap()[0].tensor().unwrap().clone();
            assert_eq!(SQ_DIFF_RUNS.with(|c| c.get()), before);
            let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
            assert_close(&a, &b, 1e-12, "general path");
        }
    }

    #[test]
    fn folds_and_adds_match_the_general_loops() {
        let xs: Vec<f64> = (0..37).map(|i| f64::from(i) * 0.5).collect();
        let ys: Vec<f64> = (0..37).map(|i| f64::from(i % 5)).collect();
        let squares: Vec<f64> = xs.iter().zip(&ys).map(|(a, b)| (a - b) * (a - b)).collect();
        let want: f64 = super::super::fusion_sum::fold_for_tests(&squares);
        let got: f64 = fold_sq(Src::Slice(&xs[..]), Src::Slice(&ys[..]), 37);
        assert_eq!(got.to_bits(), want.to_bits());
        let got: f64 = fold_sq(Src::Slice(&xs[..]), Src::One(2.0), 37);
        let want = xs.iter().map(|a| (a - 2.0) * (a - 2.0)).collect::<Vec<_>>();
        assert_eq!(
            got.to_bits(),
            super::super::fusion_sum::fold_for_tests(&want).to_bits()
        );
        let got: f64 = fold_sq(Src::One(3.0f32), Src::One(1.0), 20);
        assert_eq!(got, 80.0);
        let mut acc = vec![1.0f64; 37];
        add_sq(&mut acc, Src::One(1.0f32), Src::Slice(&[0.5f32; 37][..]));
        assert!(acc.iter().all(|&a| a == 1.25));
        let mut nan = xs.clone();
        nan[30] = f64::NAN;
        assert!(fold_sq::<f64, f64>(Src::Slice(&nan[..]), Src::One(0.0), 37).is_nan());
    }
}
