//! `Argmax` along lanes: the index of the first maximum of each lane, with
//! NumPy's rule that a NaN is the maximum (the first NaN wins). The same
//! code with the comparison reversed (`MIN`) is `argmin`, whose NaN rule is
//! the same: the specialize rewrite `local_argmax_of_reversed` turns
//! `Argmax(Neg(x))`, PyTensor's `argmin`, into `Argmin(x)`, which runs it
//! instead of writing the negated copy.

mod columns;
mod int64;
pub(crate) mod simd;
pub(crate) mod split;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::{output, Pool};
use crate::kernels::argmax::columns::{argmax_columns, argmax_float_columns, leading_columns};
use crate::kernels::argmax::int64::argmax_lane_i64;
#[cfg(target_arch = "x86_64")]
use crate::kernels::argmax::simd::{argmax_tracked, width_for};
use crate::kernels::argmax::split::{argmax_split, worth_splitting};
use crate::kernels::cpu::has_avx2;
#[cfg(target_arch = "x86_64")]
use crate::kernels::float_vec::SimdFloat;
use crate::kernels::lanes::{for_each_lane, Lanes};
use crate::tensor::{Element, Tensor};
use half::f16;

/// Elements per block of the first pass: 16 independent accumulators
/// (four AVX2 registers of float64) keep the max pass memory-bound.
const BLOCK: usize = 16;

/// Elements per block for one-byte types. With 16 one-byte accumulators
/// (half an AVX2 register) uint8 rows of 2000x2000 ran at 0.69x NumPy on
/// one thread, with 128 at 2.0x. The other sizes keep 16: with a block's
/// worth of 128 bytes int32 and int16 rows took twice as long (LLVM
/// vectorised across blocks with gathers).
const BYTE_BLOCK: usize = 128;

/// Whether `v` beats `a`: is greater (argmax) or smaller (argmin, `MIN`).
/// False whenever either is NaN.
#[inline(always)]
pub(super) fn beats<T: PartialOrd, const MIN: bool>(v: T, a: T) -> bool {
    if MIN {
        v < a
    } else {
        v > a
    }
}

/// Pass one: the lane's maximum (minimum with `MIN`; NaNs skipped) and
/// whether it holds a NaN (`v != v` is true only for NaN), with
/// branch-free blocks the compiler vectorises (`v > a ? v : a` is one
/// `maxpd`).
#[inline(always)]
fn max_and_nan<T: Element + PartialOrd, const MIN: bool>(x: &[T]) -> (T, bool) {
    match std::mem::size_of::<T>() {
        1 => max_and_nan_in::<T, MIN, BYTE_BLOCK>(x),
        _ => max_and_nan_in::<T, MIN, BLOCK>(x),
    }
}

/// [`max_and_nan`] with `L` running maxima.
#[allow(clippy::eq_op)]
#[inline(always)]
fn max_and_nan_in<T: Element + PartialOrd, const MIN: bool, const L: usize>(x: &[T]) -> (T, bool) {
    let mut acc = [x[0]; L];
    let mut nan = [false; L];
    let mut chunks = x.chunks_exact(L);
    for c in &mut chunks {
        for ((a, f), &v) in acc.iter_mut().zip(&mut nan).zip(c) {
            *f |= v != v;
            *a = if beats::<T, MIN>(v, *a) { v } else { *a };
        }
    }
    let tail = chunks.remainder();
    let any_nan = nan.iter().any(|&f| f) || tail.iter().any(|v| v != v);
    let m = acc
        .iter()
        .chain(tail)
        .fold(x[0], |m, &a| if beats::<T, MIN>(a, m) { a } else { m });
    (m, any_nan)
}

/// Pass two: the first position where `hit` holds, a block at a time (a
/// whole block is tested without branches before its elements are looked
/// at one by one).
#[inline(always)]
fn first_where<T: Copy>(x: &[T], hit: impl Fn(T) -> bool) -> Option<usize> {
    let mut start = 0;
    for c in x.chunks(BLOCK) {
        if c.iter().fold(false, |f, &v| f | hit(v)) {
            return c.iter().position(|&v| hit(v)).map(|i| start + i);
        }
        start += c.len();
    }
    None
}

/// Elements per span of the single pass over a lane (4 KiB of float64,
/// in L1 when it is scanned again).
const SPAN: usize = 512;

/// The first index of the lane's maximum, the first NaN's if it has any
/// (NumPy's rule). The lane is read once, a span at a time: `span_max`
/// gives a span's maximum and whether it holds a NaN, and only the first
/// span holding the lane's maximum (strictly greater than all earlier
/// spans') or a NaN is scanned again, from L1. Reading whole lanes twice
/// took 1.2x as long on 4000x4000 float64 rows (32 KiB lanes).
#[allow(clippy::eq_op)]
#[inline(always)]
pub(super) fn argmax_body<T: Element + PartialOrd, const MIN: bool>(
    x: &[T],
    span_max: impl Fn(&[T]) -> (T, bool),
) -> i64 {
    let mut best: Option<(T, usize)> = None;
    for (k, span) in x.chunks(SPAN).enumerate() {
        let (m, nan) = span_max(span);
        if nan {
            let at = first_where(span, |v| v != v).unwrap_or(0);
            return (k * SPAN + at) as i64;
        }
        if best.is_none_or(|(b, _)| beats::<T, MIN>(m, b)) {
            best = Some((m, k * SPAN));
        }
    }
    let Some((m, start)) = best else {
        return 0;
    };
    let span = &x[start..x.len().min(start + SPAN)];
    (start + first_where(span, |v| v == m).unwrap_or(0)) as i64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn argmax_avx2<T: Element + PartialOrd, const MIN: bool>(x: &[T]) -> i64 {
    argmax_body::<T, MIN>(x, max_and_nan::<T, MIN>)
}

/// [`argmax_lane`] for float32 and float64: with AVX2 (AVX-512 for
/// float64 where the CPU has it, `width_for`) one pass that tracks
/// where each vector lane's maximum was first met (`argmax_tracked`).
/// Float64 lanes four at a time (`lane_group`'s spans, AVX2) took 1.4x
/// to 1.6x as long on one thread on 2000x2000 and 4000x4000 rows.
fn argmax_lane_float<T: SimdFloat, const MIN: bool>(x: &[T], avx2: bool) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if let Some(w) = width_for::<T>().filter(|_| avx2) {
        if let Some(at) = argmax_tracked::<T, MIN>(x, w) {
            return at as i64;
        }
    }
    argmax_lane::<T, MIN>(x, avx2)
}

/// [`argmax_body`] for a non-empty lane, AVX2 code when `avx2`.
pub(super) fn argmax_lane<T: Element + PartialOrd, const MIN: bool>(x: &[T], avx2: bool) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has it (`has_avx2`).
        return unsafe { argmax_avx2::<T, MIN>(x) };
    }
    let _ = avx2;
    argmax_body::<T, MIN>(x, max_and_nan::<T, MIN>)
}

fn run<T: Element + PartialOrd, const MIN: bool>(lanes: &Lanes, out: &mut Tensor) {
    run_with(lanes, out, argmax_lane::<T, MIN>);
}

fn run_with<T: Element>(
    lanes: &Lanes,
    out: &mut Tensor,
    lane: impl Fn(&[T], bool) -> i64 + Sync + Send,
) {
    let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
    let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
    let avx2 = has_avx2();
    for_each_lane(x, lanes.n, y, 1, |a, b| b[0] = lane(a, avx2));
}

/// The int64 indices of the maxima of `x` over `axes` (sorted, in range),
/// counted in the C order of the reduced axes.
pub fn argmax(x: &Tensor, axes: &[usize], pool: Option<&mut Pool>) -> Result<Tensor> {
    arg_extreme::<false>(x, axes, pool)
}

/// The int64 indices of the minima of `x` over `axes` (the first NaN's
/// where a lane holds one): `argmax` of the order-reversed values.
pub fn argmin(x: &Tensor, axes: &[usize], pool: Option<&mut Pool>) -> Result<Tensor> {
    arg_extreme::<true>(x, axes, pool)
}

fn arg_extreme<const MIN: bool>(
    x: &Tensor,
    axes: &[usize],
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    if let Some(cols) = leading_columns(x, axes) {
        let mut out = output(pool, DType::Int64, &x.shape()[axes.len()..])?;
        columns::<MIN>(x, cols, &mut out)?;
        return Ok(out);
    }
    let lanes = Lanes::new(x, axes)?;
    let kept = lanes.shape()[..x.ndim() - axes.len()].to_vec();
    let mut out = output(pool, DType::Int64, &kept)?;
    if lanes.n == 0 {
        let name = if MIN { "argmin" } else { "argmax" };
        return Err(Error::Value(format!(
            "attempt to get {name} of an empty sequence"
        )));
    }
    if lanes.rows == 1 && worth_splitting(lanes.n) {
        return one_long_lane::<MIN>(&lanes, out);
    }
    use DType::*;
    match x.dtype() {
        Bool => run::<bool, MIN>(&lanes, &mut out),
        Int8 => run::<i8, MIN>(&lanes, &mut out),
        Int16 => run::<i16, MIN>(&lanes, &mut out),
        Int32 => run::<i32, MIN>(&lanes, &mut out),
        Int64 => run_with(&lanes, &mut out, argmax_lane_i64::<MIN>),
        UInt8 => run::<u8, MIN>(&lanes, &mut out),
        UInt16 => run::<u16, MIN>(&lanes, &mut out),
        UInt32 => run::<u32, MIN>(&lanes, &mut out),
        UInt64 => run::<u64, MIN>(&lanes, &mut out),
        Float16 => run::<f16, MIN>(&lanes, &mut out),
        Float32 => run_with(&lanes, &mut out, argmax_lane_float::<f32, MIN>),
        Float64 => run_with(&lanes, &mut out, argmax_lane_float::<f64, MIN>),
        other => {
            return Err(Error::OutOfScope(format!(
                "Argmax of {other} is not supported"
            )))
        }
    }
    Ok(out)
}

/// [`argmax_columns`] for every dtype `argmax` takes.
fn columns<const MIN: bool>(x: &Tensor, cols: usize, out: &mut Tensor) -> Result<()> {
    fn run<T: Element + PartialOrd, const MIN: bool>(x: &Tensor, cols: usize, out: &mut Tensor) {
        let x = x.as_slice::<T>().expect("C-contiguous input");
        let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
        argmax_columns::<T, MIN>(x, cols, y);
    }
    fn float<T: SimdFloat, const MIN: bool>(x: &Tensor, cols: usize, out: &mut Tensor) {
        let x = x.as_slice::<T>().expect("C-contiguous input");
        let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
        argmax_float_columns::<T, MIN>(x, cols, y);
    }
    use DType::*;
    match x.dtype() {
        Bool => run::<bool, MIN>(x, cols, out),
        Int8 => run::<i8, MIN>(x, cols, out),
        Int16 => run::<i16, MIN>(x, cols, out),
        Int32 => run::<i32, MIN>(x, cols, out),
        Int64 => run::<i64, MIN>(x, cols, out),
        UInt8 => run::<u8, MIN>(x, cols, out),
        UInt16 => run::<u16, MIN>(x, cols, out),
        UInt32 => run::<u32, MIN>(x, cols, out),
        UInt64 => run::<u64, MIN>(x, cols, out),
        Float16 => run::<f16, MIN>(x, cols, out),
        Float32 => float::<f32, MIN>(x, cols, out),
        Float64 => float::<f64, MIN>(x, cols, out),
        other => {
            return Err(Error::OutOfScope(format!(
                "Argmax of {other} is not supported"
            )))
        }
    }
    Ok(())
}

/// [`argmax_split`] of the single lane, for every dtype `argmax` takes.
fn one_long_lane<const MIN: bool>(lanes: &Lanes, mut out: Tensor) -> Result<Tensor> {
    fn split<T: Element + PartialOrd, const MIN: bool>(
        lanes: &Lanes,
        out: &mut Tensor,
        lane: impl Fn(&[T], bool) -> i64 + Sync + Send,
    ) {
        let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
        let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
        y[0] = argmax_split::<T, MIN>(x, has_avx2(), lane);
    }
    use DType::*;
    match lanes.data.dtype() {
        Bool => split::<_, MIN>(lanes, &mut out, argmax_lane::<bool, MIN>),
        Int8 => split::<_, MIN>(lanes, &mut out, argmax_lane::<i8, MIN>),
        Int16 => split::<_, MIN>(lanes, &mut out, argmax_lane::<i16, MIN>),
        Int32 => split::<_, MIN>(lanes, &mut out, argmax_lane::<i32, MIN>),
        Int64 => split::<_, MIN>(lanes, &mut out, argmax_lane_i64::<MIN>),
        UInt8 => split::<_, MIN>(lanes, &mut out, argmax_lane::<u8, MIN>),
        UInt16 => split::<_, MIN>(lanes, &mut out, argmax_lane::<u16, MIN>),
        UInt32 => split::<_, MIN>(lanes, &mut out, argmax_lane::<u32, MIN>),
        UInt64 => split::<_, MIN>(lanes, &mut out, argmax_lane::<u64, MIN>),
        Float16 => split::<_, MIN>(lanes, &mut out, argmax_lane::<f16, MIN>),
        Float32 => split::<_, MIN>(lanes, &mut out, argmax_lane_float::<f32, MIN>),
        Float64 => split::<_, MIN>(lanes, &mut out, argmax_lane_float::<f64, MIN>),
        other => {
            return Err(Error::OutOfScope(format!(
                "Argmax of {other} is not supported"
            )))
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "tests.rs"]
pub(super) mod tests;
