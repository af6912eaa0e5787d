//! The vectorised loops' three builds. Each loop is compiled three times
//! from the same element function: for AVX-512F (8 doubles a vector) and
//! for AVX2 (4), both with FMA, and for baseline x86-64 (SSE2, no FMA, so
//! rounded differently: within the same ulp bounds, not the same bits).
//! The AVX2 and AVX-512 builds give the same bits: each element is
//! computed alone, by the same operations. Which build runs is
//! [`crate::kernels::cpu::level`]'s choice (`OXTENSOR_SIMD` caps it).

use crate::kernels::cpu::three_builds;
use crate::kernels::elemwise::map::Part;

/// A function of one element, generic over whether FMA is available.
pub trait Unary {
    /// The element type.
    type T: Copy;
    /// The function, compiled with FMA when `F`.
    fn eval<const F: bool>(x: Self::T) -> Self::T;
}

/// A function of two elements, generic over whether FMA is available.
pub trait Binary {
    /// The element type.
    type T: Copy;
    /// The function, compiled with FMA when `F`.
    fn eval<const F: bool>(x: Self::T, y: Self::T) -> Self::T;
}

/// A function of one element in two stages, which [`staged_at`] runs as
/// two loops over each block of [`STAGE_BLOCK`] elements: each stage's
/// chain of dependent operations is half as long, so the out-of-order
/// window holds twice as many elements' work (measured on float32
/// `arcsinh`: 0.53 ns an element in one loop, 0.40 in two).
pub trait Staged {
    /// The element type, also that of the two intermediate values.
    type T: Copy + Default;
    /// The first stage: two intermediate values of `x`.
    fn first<const F: bool>(x: Self::T) -> (Self::T, Self::T);
    /// The second stage: the result from `x` and its intermediates.
    fn second<const F: bool>(x: Self::T, u: Self::T, v: Self::T) -> Self::T;
}

/// Element functions as [`Unary`] kernels on `t`: for each `Name => f`, a
/// unit struct whose `eval` is `f::<F>` (inlined into the loops, the same
/// code as writing the impl out).
macro_rules! unary_kernels {
    ($t:ty: $($(#[$doc:meta])* $vis:vis $name:ident => $($f:ident)::+),* $(,)?) => {$(
        $(#[$doc])*
        $vis struct $name;
        impl $crate::kernels::vmath::simd::Unary for $name {
            type T = $t;
            #[inline(always)]
            fn eval<const F: bool>(x: $t) -> $t {
                $($f)::+::<F>(x)
            }
        }
    )*};
}
pub(crate) use unary_kernels;

/// Elements per block of a [`Staged`] loop: its two intermediate buffers
/// (1 KiB each in float32) stay in L1.
const STAGE_BLOCK: usize = 256;

three_builds! {
    /// `ys[i] = U(xs[i])` with the build at `lvl` (lowered to
    /// [`crate::kernels::cpu::level`]).
    pub fn unary_at<U: Unary>(lvl: Level, ys: &mut [U::T], xs: &[U::T]) => unary_body;
}

/// Index loops, not iterator adaptors: `Zip::fold` is a function of its
/// own that LLVM may leave out of line, compiled without the caller's
/// features, where every FMA becomes a libm call (measured: log 50x slower).
#[inline(always)]
fn unary_body<U: Unary, const F: bool>(ys: &mut [U::T], xs: &[U::T]) {
    let n = ys.len().min(xs.len());
    let (ys, xs) = (&mut ys[..n], &xs[..n]);
    for i in 0..n {
        ys[i] = U::eval::<F>(xs[i]);
    }
}

three_builds! {
    /// `ys[i] = S(xs[i])`, block by block, with the build at `lvl` (lowered to
    /// what the CPU runs).
    pub fn staged_at<S: Staged>(lvl: Level, ys: &mut [S::T], xs: &[S::T]) => staged_body;
}

/// Index loops, as in [`unary_body`].
#[inline(always)]
fn staged_body<S: Staged, const F: bool>(ys: &mut [S::T], xs: &[S::T]) {
    let mut us = [S::T::default(); STAGE_BLOCK];
    let mut vs = [S::T::default(); STAGE_BLOCK];
    let n = ys.len().min(xs.len());
    let mut start = 0;
    while start < n {
        let m = STAGE_BLOCK.min(n - start);
        let (yb, xb) = (&mut ys[start..start + m], &xs[start..start + m]);
        let (ub, vb) = (&mut us[..m], &mut vs[..m]);
        for i in 0..m {
            (ub[i], vb[i]) = S::first::<F>(xb[i]);
        }
        for i in 0..m {
            yb[i] = S::second::<F>(xb[i], ub[i], vb[i]);
        }
        start += m;
    }
}

three_builds! {
    /// `zs[i] = B(xs[i], ys[i])`, each operand a slice as long as `zs` or one
    /// value, with the build at `lvl` (lowered to [`crate::kernels::cpu::level`]).
    pub fn binary_at<B: Binary>(
        lvl: Level,
        zs: &mut [B::T],
        xs: Part<'_, B::T>,
        ys: Part<'_, B::T>,
    ) => binary_body;
}

/// One index loop per operand form, so each vectorises (and stays inline,
/// as in [`unary_body`]).
#[inline(always)]
fn binary_body<B: Binary, const F: bool>(zs: &mut [B::T], xs: Part<'_, B::T>, ys: Part<'_, B::T>) {
    let n = zs.len();
    match (xs, ys) {
        (Part::Full(xs), Part::Full(ys)) => {
            let (xs, ys) = (&xs[..n], &ys[..n]);
            for i in 0..n {
                zs[i] = B::eval::<F>(xs[i], ys[i]);
            }
        }
        (Part::Full(xs), Part::One(y)) => {
            let xs = &xs[..n];
            for i in 0..n {
                zs[i] = B::eval::<F>(xs[i], y);
            }
        }
        (Part::One(x), Part::Full(ys)) => {
            let ys = &ys[..n];
            for i in 0..n {
                zs[i] = B::eval::<F>(x, ys[i]);
            }
        }
        (Part::One(x), Part::One(y)) => {
            let z = B::eval::<F>(x, y);
            for v in zs.iter_mut() {
                *v = z;
            }
        }
    }
}
