//! A summed program that is exactly `sum(sqr(a - b))` over two leaves (what
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
//!
//! # Measured
//!
//! Summed groups of exactly `sum(sqr(a - b))` (`var`/`std`'s second pass,
//! this module) skip the block kernels: one loop per block
//! computes `d = a - b`, `d * d` in the group's dtype (what the kernels
//! compute) and adds into the accumulator; for a kept last axis (`var(x,
//! axis=0)`) the blocks are walked a column of blocks at a time, four runs per
//! loop, so an accumulator stretch and the mean row stay in L1 and the
//! accumulator is read and written once per four rows. A reduced last axis
//! folds as the general path does (same bits); kept-axis sums add each
//! element's rows in order but split the parallel ranges elsewhere (within
//! summation error, fixed per shape; calls of at most a block still take the
//! materialise-and-reduce path, bit-identical to the unfused run). perf, one
//! thread, 4000² float64 `var(axis=0)`: the fused pass took 1.5x the `Sum`
//! kernel's samples one row per loop and 1.15x with four (the block-kernel
//! path: about 4x). Wall time (release, 2 cores, load 3.4, NumPy in the same
//! process): `var` axis 0/1/None 15.9–19.8 / 15.4–20.1 / 16.7–19.1 ms against
//! NumPy 47–58 / 51–61 / 51–58 ms (2.9–3.4x; before, at load 1.2:
//! 22.5/21.1/19.1 ms, 2.0–2.3x). Since then `var`/`std` over more than 2048
//! elements no longer reach this path when their graph has PyTensor's form: the
//! specialize rewrite `local_sum_sqr_deviations` makes the mean's `Sum` and the
//! squared deviations one `CentredSquares` op (`kernels/reduce/variance.rs`, one
//! memory pass); this path remains for `sum(sqr(a - b))` groups of other
//! origins.

use super::plan::{Arg, FusedKernel};
use super::sum::{Target, LANES};
use super::walk::Walk;
use crate::error::{Error, Result};
use crate::kernels::cpu::avx2_build;
use crate::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};
use num_traits::Float;
use smallvec::SmallVec;
use std::ops::Range;

#[cfg(test)]
thread_local! {
    /// Calls on this thread that took this path, so tests can tell.
    pub(super) static SQ_DIFF_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl FusedKernel {
    /// The leaves `(a, b)` when the program (before its `Sum`) is exactly
    /// `sqr(a - b)` of two leaves.
    pub(super) fn sq_diff(&self) -> Option<(usize, usize)> {
        let [sub, sqr] = &self.instrs[..] else {
            return None;
        };
        let [Arg::Leaf(a), Arg::Leaf(b)] = sub.args[..] else {
            return None;
        };
        let squares_sub = sqr.kind == ScalarKind::Sqr && sqr.args[..] == [Arg::Tmp(0)];
        (sub.kind == ScalarKind::Sub && squares_sub).then_some((a, b))
    }

    /// Blocks `range` of `sum(sqr(a - b))`, `(a, b)` the leaves
    /// [`FusedKernel::sq_diff`] found, summed into a fresh accumulator.
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
            .map(|i| {
                walk.gathers(i)
                    .then(|| Tensor::uninit(T::DTYPE, &[cap]))
                    .transpose()
            })
            .collect::<Result<_>>()?;
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
        let same_place = b.at > first.at && (b.at - first.at).is_multiple_of(walk.run_len());
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

avx2_build! {
    /// `ys[i] += sq(x[i], y[i])`, with an AVX2 build chosen at run time as
    /// `sum.rs`'s `add_into` has.
    fn add_sq[T: Float, A: Float + From<T>](ys: &mut [A], x: Src<T>, y: Src<T>)
        => add_sq_plain, "avx2";
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

avx2_build! {
    /// `ys[i] += sq(xs[r][i], y[i])` for each row `r` in turn, with an AVX2
    /// build as [`add_sq`] has.
    fn add_sq_rows[T: Float, A: Float + From<T>](ys: &mut [A], xs: [&[T]; ROWS], y: Src<T>)
        => add_sq_rows_plain, "avx2";
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

avx2_build! {
    /// The sum of `sq(x[i], y[i])` over `n` positions, with an AVX2 build as
    /// [`add_sq`] has.
    fn fold_sq[T: Float, A: Float + From<T>](x: Src<T>, y: Src<T>, n: usize) -> A
        => fold_sq_plain, "avx2";
}

#[inline(always)]
fn fold_sq_plain<T: Float, A: Float + From<T>>(x: Src<T>, y: Src<T>, n: usize) -> A {
    with_lanes!(x, y, |x, y| fold_lanes(x, y, n))
}

/// As `sum.rs`'s `fold_plain` over the squares: `LANES` interleaved
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
#[path = "sqdiff_tests.rs"]
mod tests;
