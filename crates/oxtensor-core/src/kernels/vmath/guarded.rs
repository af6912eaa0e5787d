//! Loops for element functions whose branch-free fast path covers most
//! inputs but not all (`tan` past its Cody–Waite range, `arctan2` at far
//! scales): the fast path runs over a block, then the block's rare outside
//! elements, if any, are redone with libm. Built per instruction set as
//! [`simd`](super::simd)'s loops are, at the same [`Level`]s.

use super::simd::{detected, level, Level};
use crate::kernels::map::Part;

/// Elements per block: a few vectors, so consecutive polynomial chains
/// stay independent, and the outside test costs one OR per element.
const BLOCK: usize = 256;

/// A float type the loops read and write; the math is done in `f64`.
pub(crate) trait Lane: Copy + Send + Sync {
    /// The value as `f64` (exact).
    fn wide(self) -> f64;
    /// An `f64` result rounded to this type.
    fn narrow(v: f64) -> Self;
}

impl Lane for f64 {
    #[inline(always)]
    fn wide(self) -> f64 {
        self
    }
    #[inline(always)]
    fn narrow(v: f64) -> f64 {
        v
    }
}

impl Lane for f32 {
    #[inline(always)]
    fn wide(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn narrow(v: f64) -> f32 {
        v as f32
    }
}

/// A function of one element with a guarded fast path.
pub(crate) trait Guarded {
    /// The value for inputs not [`Guarded::outside`], without branches;
    /// `F`: compiled with FMA.
    fn fast<const F: bool>(x: f64) -> f64;
    /// Inputs the fast path does not cover.
    fn outside(x: f64) -> bool;
    /// The value for outside inputs (libm).
    fn slow(x: f64) -> f64;
}

/// A function of two elements with a guarded fast path, as [`Guarded`].
pub(crate) trait Guarded2 {
    /// The value for inputs not [`Guarded2::outside`], without branches.
    fn fast<const F: bool>(a: f64, b: f64) -> f64;
    /// Inputs the fast path does not cover.
    fn outside(a: f64, b: f64) -> bool;
    /// The value for outside inputs (libm).
    fn slow(a: f64, b: f64) -> f64;
}

#[inline(always)]
fn unary_body<K: Guarded, E: Lane, const F: bool>(ys: &mut [E], xs: &[E]) {
    for (yb, xb) in ys.chunks_mut(BLOCK).zip(xs.chunks(BLOCK)) {
        let mut redo = false;
        for (y, &x) in yb.iter_mut().zip(xb) {
            *y = E::narrow(K::fast::<F>(x.wide()));
            redo |= K::outside(x.wide());
        }
        if redo {
            for (y, &x) in yb.iter_mut().zip(xb) {
                if K::outside(x.wide()) {
                    *y = E::narrow(K::slow(x.wide()));
                }
            }
        }
    }
}

/// One block of a binary function over two slices of the block's length.
#[inline(always)]
fn binary_block<K: Guarded2, E: Lane, const F: bool>(zs: &mut [E], xs: &[E], ys: &[E]) {
    let mut redo = false;
    for ((z, &x), &y) in zs.iter_mut().zip(xs).zip(ys) {
        *z = E::narrow(K::fast::<F>(x.wide(), y.wide()));
        redo |= K::outside(x.wide(), y.wide());
    }
    if redo {
        for ((z, &x), &y) in zs.iter_mut().zip(xs).zip(ys) {
            if K::outside(x.wide(), y.wide()) {
                *z = E::narrow(K::slow(x.wide(), y.wide()));
            }
        }
    }
}

/// Blocks of a binary function; a single-element operand is repeated into
/// a block-sized buffer (once per call), so one loop serves every form.
#[inline(always)]
fn binary_body<K: Guarded2, E: Lane, const F: bool>(
    zs: &mut [E],
    xs: Part<'_, E>,
    ys: Part<'_, E>,
) {
    if let (Part::Full(xv), Part::Full(yv)) = (xs, ys) {
        let blocks = zs
            .chunks_mut(BLOCK)
            .zip(xv.chunks(BLOCK))
            .zip(yv.chunks(BLOCK));
        blocks.for_each(|((zb, xb), yb)| binary_block::<K, E, F>(zb, xb, yb));
        return;
    }
    let first = |p: &Part<'_, E>| match *p {
        Part::Full(v) => v.first().copied(),
        Part::One(v) => Some(v),
    };
    let (Some(x0), Some(y0)) = (first(&xs), first(&ys)) else {
        return; // nothing to compute
    };
    let (sx, sy) = ([x0; BLOCK], [y0; BLOCK]);
    for (i, zb) in zs.chunks_mut(BLOCK).enumerate() {
        let (at, n) = (i * BLOCK, zb.len());
        let xb = match xs {
            Part::Full(v) => &v[at..at + n],
            Part::One(_) => &sx[..n],
        };
        let yb = match ys {
            Part::Full(v) => &v[at..at + n],
            Part::One(_) => &sy[..n],
        };
        binary_block::<K, E, F>(zb, xb, yb);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn unary_avx2<K: Guarded, E: Lane>(ys: &mut [E], xs: &[E]) {
    unary_body::<K, E, true>(ys, xs);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
fn unary_avx512<K: Guarded, E: Lane>(ys: &mut [E], xs: &[E]) {
    unary_body::<K, E, true>(ys, xs);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn binary_avx2<K: Guarded2, E: Lane>(zs: &mut [E], xs: Part<'_, E>, ys: Part<'_, E>) {
    binary_body::<K, E, true>(zs, xs, ys);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
fn binary_avx512<K: Guarded2, E: Lane>(zs: &mut [E], xs: Part<'_, E>, ys: Part<'_, E>) {
    binary_body::<K, E, true>(zs, xs, ys);
}

/// `ys[i] = K(xs[i])` with the build at `lvl` (lowered to what the CPU runs).
pub(crate) fn unary_at<K: Guarded, E: Lane>(lvl: Level, ys: &mut [E], xs: &[E]) {
    match lvl.min(detected()) {
        // SAFETY: `detected` found the features these builds enable.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { unary_avx512::<K, E>(ys, xs) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { unary_avx2::<K, E>(ys, xs) },
        _ => unary_body::<K, E, false>(ys, xs),
    }
}

/// `zs[i] = K(xs[i], ys[i])`, each operand a slice as long as `zs` or one
/// value, with the build at `lvl` (lowered to what the CPU runs).
pub(crate) fn binary_at<K: Guarded2, E: Lane>(
    lvl: Level,
    zs: &mut [E],
    xs: Part<'_, E>,
    ys: Part<'_, E>,
) {
    match lvl.min(detected()) {
        // SAFETY: `detected` found the features these builds enable.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { binary_avx512::<K, E>(zs, xs, ys) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { binary_avx2::<K, E>(zs, xs, ys) },
        _ => binary_body::<K, E, false>(zs, xs, ys),
    }
}

/// [`unary_at`] at the process's level.
pub(crate) fn unary<K: Guarded, E: Lane>(ys: &mut [E], xs: &[E]) {
    unary_at::<K, E>(level(), ys, xs);
}

/// [`binary_at`] at the process's level.
pub(crate) fn binary<K: Guarded2, E: Lane>(zs: &mut [E], xs: Part<'_, E>, ys: Part<'_, E>) {
    binary_at::<K, E>(level(), zs, xs, ys);
}
