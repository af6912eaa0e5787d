//! The builds of an element-function loop: AVX-512F and AVX2 (both with
//! FMA, both giving the same bits) and baseline x86-64 (no FMA, within
//! the same ulp bounds), one chosen once per process from the CPU's
//! features, capped by the `OXTENSOR_VMATH` variable (`avx2` or `baseline`,
//! to measure or test the narrower builds on a wider machine).
//!
//! An element function has a branch-free fast path, written once and
//! inlined into each build, and may leave some inputs (huge, NaN, ...) to
//! libm: a block with any of them is redone for those elements afterwards.

use std::sync::OnceLock;

/// Elements per block of the loops: the fast path runs over a block, then
/// its rare outside elements are redone. Several vectors per block keep the
/// polynomial chains of consecutive vectors independent.
const BLOCK: usize = 256;

/// An instruction-set level a loop is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// Baseline x86-64 (SSE2), or another architecture: no FMA.
    Baseline,
    /// AVX2 with FMA.
    Avx2,
    /// AVX-512F with FMA (512-bit vectors).
    Avx512,
}

/// The highest level this CPU runs.
fn best() -> Level {
    static BEST: OnceLock<Level> = OnceLock::new();
    *BEST.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            return if std::is_x86_feature_detected!("avx512f") {
                Level::Avx512
            } else {
                Level::Avx2
            };
        }
        Level::Baseline
    })
}

/// The levels this CPU runs, lowest first (the tests compare them all).
#[cfg(test)]
pub(crate) fn supported() -> Vec<Level> {
    [Level::Baseline, Level::Avx2, Level::Avx512]
        .into_iter()
        .filter(|&l| l <= best())
        .collect()
}

/// The level the loops run at: the CPU's best, capped by `OXTENSOR_VMATH`.
pub(crate) fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = match std::env::var("OXTENSOR_VMATH").as_deref() {
            Ok("baseline") => Level::Baseline,
            Ok("avx2") => Level::Avx2,
            _ => Level::Avx512,
        };
        best().min(cap)
    })
}

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

/// A function of one element.
pub(crate) trait Unary {
    /// The value for inputs not [`Unary::outside`], without branches;
    /// `F`: compiled with FMA.
    fn fast<const F: bool>(x: f64) -> f64;
    /// Inputs the fast path does not cover.
    #[inline(always)]
    fn outside(_x: f64) -> bool {
        false
    }
    /// The value for outside inputs (libm).
    fn slow(x: f64) -> f64;
}

/// A function of one float32 element computed in float32 (twice the lanes
/// of the `f64` path, where float32 accuracy allows).
pub(crate) trait Unary32 {
    /// The value, without branches; `F`: compiled with FMA.
    fn fast<const F: bool>(x: f32) -> f32;
}

/// A function of two elements, as [`Unary`].
pub(crate) trait Binary {
    /// The value for inputs not [`Binary::outside`], without branches.
    fn fast<const F: bool>(a: f64, b: f64) -> f64;
    /// Inputs the fast path does not cover.
    fn outside(a: f64, b: f64) -> bool;
    /// The value for outside inputs (libm).
    fn slow(a: f64, b: f64) -> f64;
}

#[inline(always)]
fn unary_body<K: Unary, E: Lane, const F: bool>(ys: &mut [E], xs: &[E]) {
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

#[inline(always)]
fn unary32_body<K: Unary32, const F: bool>(ys: &mut [f32], xs: &[f32]) {
    ys.iter_mut()
        .zip(xs)
        .for_each(|(y, &x)| *y = K::fast::<F>(x));
}

#[inline(always)]
fn binary_body<K: Binary, E: Lane, const F: bool>(zs: &mut [E], xs: &[E], ys: &[E]) {
    let blocks = zs
        .chunks_mut(BLOCK)
        .zip(xs.chunks(BLOCK))
        .zip(ys.chunks(BLOCK));
    for ((zb, xb), yb) in blocks {
        let mut redo = false;
        for ((z, &x), &y) in zb.iter_mut().zip(xb).zip(yb) {
            *z = E::narrow(K::fast::<F>(x.wide(), y.wide()));
            redo |= K::outside(x.wide(), y.wide());
        }
        if redo {
            for ((z, &x), &y) in zb.iter_mut().zip(xb).zip(yb) {
                if K::outside(x.wide(), y.wide()) {
                    *z = E::narrow(K::slow(x.wide(), y.wide()));
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn unary_avx2<K: Unary, E: Lane>(ys: &mut [E], xs: &[E]) {
    unary_body::<K, E, true>(ys, xs);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn unary_avx512<K: Unary, E: Lane>(ys: &mut [E], xs: &[E]) {
    unary_body::<K, E, true>(ys, xs);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn unary32_avx2<K: Unary32>(ys: &mut [f32], xs: &[f32]) {
    unary32_body::<K, true>(ys, xs);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn unary32_avx512<K: Unary32>(ys: &mut [f32], xs: &[f32]) {
    unary32_body::<K, true>(ys, xs);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn binary_avx2<K: Binary, E: Lane>(zs: &mut [E], xs: &[E], ys: &[E]) {
    binary_body::<K, E, true>(zs, xs, ys);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn binary_avx512<K: Binary, E: Lane>(zs: &mut [E], xs: &[E], ys: &[E]) {
    binary_body::<K, E, true>(zs, xs, ys);
}

/// `ys[i] = K(xs[i])` built for `at`, or the CPU's best below it.
pub(crate) fn unary_at<K: Unary, E: Lane>(at: Level, ys: &mut [E], xs: &[E]) {
    match at.min(best()) {
        // SAFETY: the level is at most `best()`, so the CPU has the
        // features this build was compiled for.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { unary_avx512::<K, E>(ys, xs) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { unary_avx2::<K, E>(ys, xs) },
        _ => unary_body::<K, E, false>(ys, xs),
    }
}

/// [`unary_at`] for a float32 function computed in float32.
pub(crate) fn unary32_at<K: Unary32>(at: Level, ys: &mut [f32], xs: &[f32]) {
    match at.min(best()) {
        // SAFETY: as in `unary_at`.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { unary32_avx512::<K>(ys, xs) },
        // SAFETY: as in `unary_at`.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { unary32_avx2::<K>(ys, xs) },
        _ => unary32_body::<K, false>(ys, xs),
    }
}

/// `zs[i] = K(xs[i], ys[i])` built for `at`, or the CPU's best below it.
pub(crate) fn binary_at<K: Binary, E: Lane>(at: Level, zs: &mut [E], xs: &[E], ys: &[E]) {
    match at.min(best()) {
        // SAFETY: as in `unary_at`.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { binary_avx512::<K, E>(zs, xs, ys) },
        // SAFETY: as in `unary_at`.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { binary_avx2::<K, E>(zs, xs, ys) },
        _ => binary_body::<K, E, false>(zs, xs, ys),
    }
}

/// `ys[i] = K(xs[i])` at the process's [`level`].
pub(crate) fn unary<K: Unary, E: Lane>(ys: &mut [E], xs: &[E]) {
    unary_at::<K, E>(level(), ys, xs);
}

/// `zs[i] = K(xs[i], ys[i])` at the process's [`level`].
pub(crate) fn binary<K: Binary, E: Lane>(zs: &mut [E], xs: &[E], ys: &[E]) {
    binary_at::<K, E>(level(), zs, xs, ys);
}

/// [`unary32_at`] at the process's [`level`].
pub(crate) fn unary32<K: Unary32>(ys: &mut [f32], xs: &[f32]) {
    unary32_at::<K>(level(), ys, xs);
}

/// [`unary_one`] for a float32 function computed in float32.
pub(crate) fn unary32_one<K: Unary32>(x: f32) -> f32 {
    let mut y = [x];
    unary32::<K>(&mut y, &[x]);
    y[0]
}

/// `K(x)` through the same loop as whole slices (the strided and small
/// paths), so every path gives the same bits.
pub(crate) fn unary_one<K: Unary, E: Lane>(x: E) -> E {
    let mut y = [x];
    unary::<K, E>(&mut y, &[x]);
    y[0]
}

/// `K(x, y)` through the same loop as whole slices.
pub(crate) fn binary_one<K: Binary, E: Lane>(x: E, y: E) -> E {
    let mut z = [x];
    binary::<K, E>(&mut z, &[x], &[y]);
    z[0]
}
