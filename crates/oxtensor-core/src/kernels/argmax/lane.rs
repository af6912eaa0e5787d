//! One lane's argmax, the generic path every dtype can take: a pass for
//! the maximum and a NaN flag, then a search for its first position, a
//! span at a time so the second look reads from L1. The SIMD passes
//! (`simd.rs`, `int64.rs`) plug their span maxima into [`argmax_body`].

use crate::tensor::Element;

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
pub(in crate::kernels) fn beats<T: PartialOrd, const MIN: bool>(v: T, a: T) -> bool {
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
