//! Loops for element functions whose branch-free fast path covers most
//! inputs but not all (`tan` past its Cody–Waite range, `arctan2` at far
//! scales, the float64 logarithms at their edge values): the fast path runs over a block, then the block's rare outside
//! elements, if any, are redone with libm. Built per instruction set as
//! [`simd`](super::simd)'s loops are, at the same [`Level`]s.

use crate::kernels::cpu::{level, three_builds, Level};
use crate::kernels::elemwise::map::Part;
use num_complex::Complex;
use std::marker::PhantomData;

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

/// A [`Guarded`] kind: its unit struct and the impl, the fast path and the
/// outside test inlined into the loops (the same code as writing the impl
/// out). Each part names its input: `fast<F>(x) { ... }` (`F`: built with
/// FMA), `outside(x) { ... }`, `slow(x) { ... }`.
macro_rules! guarded_kind {
    (
        $(#[$doc:meta])*
        $vis:vis struct $name:ident;
        fast<$f:ident>($x:ident) $fast:block
        outside($xo:ident) $outside:block
        slow($xs:ident) $slow:block
    ) => {
        $(#[$doc])*
        $vis struct $name;

        impl $crate::kernels::vmath::guarded::Guarded for $name {
            #[inline(always)]
            fn fast<const $f: bool>($x: f64) -> f64 $fast
            #[inline(always)]
            fn outside($xo: f64) -> bool $outside
            fn slow($xs: f64) -> f64 $slow
        }
    };
}
pub(crate) use guarded_kind;

/// A function of one element with a guarded fast path in the element's
/// own arithmetic (float32 in float32: twice the lanes of [`Guarded`]'s
/// float64), as the loops run it.
pub(crate) trait GuardedIn {
    /// The element type, read, computed in and written.
    type T: Copy + Send + Sync;
    /// As [`Guarded::fast`].
    fn fast<const F: bool>(x: Self::T) -> Self::T;
    /// As [`Guarded::outside`].
    fn outside(x: Self::T) -> bool;
    /// As [`Guarded::slow`].
    fn slow(x: Self::T) -> Self::T;
}

/// The [`Guarded`] function `K` on elements `E`: each widened to `f64`
/// (exactly) and its result rounded once.
pub(crate) struct Widened<K, E>(PhantomData<(K, E)>);

impl<K: Guarded, E: Lane> GuardedIn for Widened<K, E> {
    type T = E;
    #[inline(always)]
    fn fast<const F: bool>(x: E) -> E {
        E::narrow(K::fast::<F>(x.wide()))
    }
    #[inline(always)]
    fn outside(x: E) -> bool {
        K::outside(x.wide())
    }
    fn slow(x: E) -> E {
        E::narrow(K::slow(x.wide()))
    }
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

/// Index loops, not iterator adaptors: an adaptor's `fold` may be left out
/// of line, compiled without the build's features (every FMA a libm call).
#[inline(always)]
fn unary_body<G: GuardedIn, const F: bool>(ys: &mut [G::T], xs: &[G::T]) {
    let n = ys.len().min(xs.len());
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        let (yb, xb) = (&mut ys[start..end], &xs[start..end]);
        let mut redo = false;
        for i in 0..yb.len() {
            yb[i] = G::fast::<F>(xb[i]);
            redo |= G::outside(xb[i]);
        }
        if redo {
            for i in 0..yb.len() {
                if G::outside(xb[i]) {
                    yb[i] = G::slow(xb[i]);
                }
            }
        }
        start = end;
    }
}

/// One block of a binary function over two slices of the block's length.
#[inline(always)]
fn binary_block<K: Guarded2, E: Lane, const F: bool>(zs: &mut [E], xs: &[E], ys: &[E]) {
    let n = zs.len().min(xs.len()).min(ys.len());
    let (zs, xs, ys) = (&mut zs[..n], &xs[..n], &ys[..n]);
    let mut redo = false;
    for i in 0..n {
        zs[i] = E::narrow(K::fast::<F>(xs[i].wide(), ys[i].wide()));
        redo |= K::outside(xs[i].wide(), ys[i].wide());
    }
    if redo {
        for i in 0..n {
            if K::outside(xs[i].wide(), ys[i].wide()) {
                zs[i] = E::narrow(K::slow(xs[i].wide(), ys[i].wide()));
            }
        }
    }
}

/// Blocks of a binary function; a single-element operand is repeated into
/// a block-sized buffer (once per call), so one loop serves every form.
/// Two full slices take no buffer (the strided path's one-element calls
/// would pay its fill per element).
#[inline(always)]
fn binary_body<K: Guarded2, E: Lane, const F: bool>(
    zs: &mut [E],
    xs: Part<'_, E>,
    ys: Part<'_, E>,
) {
    if let (Part::Full(xv), Part::Full(yv)) = (xs, ys) {
        let mut at = 0;
        while at < zs.len() {
            let end = (at + BLOCK).min(zs.len());
            binary_block::<K, E, F>(&mut zs[at..end], &xv[at..end], &yv[at..end]);
            at = end;
        }
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
    let mut at = 0;
    while at < zs.len() {
        let n = BLOCK.min(zs.len() - at);
        let xb = match xs {
            Part::Full(v) => &v[at..at + n],
            Part::One(_) => &sx[..n],
        };
        let yb = match ys {
            Part::Full(v) => &v[at..at + n],
            Part::One(_) => &sy[..n],
        };
        binary_block::<K, E, F>(&mut zs[at..at + n], xb, yb);
        at += n;
    }
}

/// `ys[i] = K(zs[i].im, zs[i].re)`: each block's parts are split into two
/// buffers (in L1) and run through [`binary_block`], so interleaved complex
/// data takes the same vector loop as two float slices.
#[inline(always)]
fn pairs_body<K: Guarded2, E: Lane, const F: bool>(ys: &mut [E], zs: &[Complex<E>]) {
    let zero = E::narrow(0.0);
    let (mut re, mut im) = ([zero; BLOCK], [zero; BLOCK]);
    let n = ys.len().min(zs.len());
    let mut at = 0;
    while at < n {
        let m = BLOCK.min(n - at);
        for (i, z) in zs[at..at + m].iter().enumerate() {
            (re[i], im[i]) = (z.re, z.im);
        }
        binary_block::<K, E, F>(&mut ys[at..at + m], &im[..m], &re[..m]);
        at += m;
    }
}

three_builds! {
    /// `ys[i] = G(xs[i])` with the build at `lvl` (lowered to `cpu::level`).
    pub(crate) fn unary_in_at<G: GuardedIn>(
        lvl: Level,
        ys: &mut [G::T],
        xs: &[G::T],
    ) => unary_body;
}

/// `ys[i] = K(xs[i])`, computed in float64, with the build at `lvl`.
pub(crate) fn unary_at<K: Guarded, E: Lane>(lvl: Level, ys: &mut [E], xs: &[E]) {
    unary_in_at::<Widened<K, E>>(lvl, ys, xs);
}

three_builds! {
    /// `zs[i] = K(xs[i], ys[i])`, each operand a slice as long as `zs` or one
    /// value, with the build at `lvl` (lowered to `cpu::level`).
    pub(crate) fn binary_at<K: Guarded2, E: Lane>(
        lvl: Level,
        zs: &mut [E],
        xs: Part<'_, E>,
        ys: Part<'_, E>,
    ) => binary_body;
}

/// [`unary_in_at`] at the process's level.
pub(crate) fn unary_in<G: GuardedIn>(ys: &mut [G::T], xs: &[G::T]) {
    unary_in_at::<G>(level(), ys, xs);
}

/// [`binary_at`] at the process's level.
pub(crate) fn binary<K: Guarded2, E: Lane>(zs: &mut [E], xs: Part<'_, E>, ys: Part<'_, E>) {
    binary_at::<K, E>(level(), zs, xs, ys);
}

three_builds! {
    /// `ys[i] = K(zs[i].im, zs[i].re)` with the build at `lvl` (lowered to
    /// what the CPU runs).
    pub(crate) fn pairs_at<K: Guarded2, E: Lane>(
        lvl: Level,
        ys: &mut [E],
        zs: &[Complex<E>],
    ) => pairs_body;
}
