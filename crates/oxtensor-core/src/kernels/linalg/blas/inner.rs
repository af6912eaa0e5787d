//! The inner product of two contiguous float vectors (`dot` of vectors;
//! `norm`'s sum of squares is `dot(x, x)`, as in NumPy). faer's product of
//! a 1×k by a k×1 matrix ran at half NumPy's speed on 4·10⁶ elements
//! (NumPy calls OpenBLAS's threaded `ddot`). The host's `cblas_?dot` runs
//! it when a host library serves the `dot` family ([`crate::kernels::linalg::engine`]);
//! otherwise pieces of [`PIECE`]
//! elements are summed on rayon threads, each in 16 independent lanes
//! (vectorised, AVX2 chosen at run time) with the data prefetched 8 KiB
//! ahead (one thread summed 4·10⁶ float64 in 0.53 ms instead of 0.75:
//! the hardware prefetcher alone does not keep up), and the pieces' sums
//! are added in order, so the result does not depend on the number of
//! threads.
//!
//! # Why a kernel of its own
//!
//! Inner products have a kernel of their own, and go to the host's `?dot`
//! when there is one. `norm(x)` (and `"fro"` of a matrix) is `sqrt(dot(x,
//! x))` of the flattened input, as NumPy computes it (`"fro"` summed squares in
//! a fused reduction before); faer's 1×k by k×1 product ran at 0.3–0.5x NumPy's
//! `ddot`. This kernel sums 16 lanes per piece with the data prefetched
//! 8 KiB ahead, equal to OpenBLAS's kernel on one thread (4·10⁶ float64, one
//! process, 3 rounds: 0.30–0.43 ms against NumPy's 0.28–0.47); on two cores
//! shared with other jobs OpenBLAS's spinning threads still answered in 0.2 ms
//! where rayon's sleeping ones took 0.3–0.6, so the `dot` family goes to the
//! host whenever one is installed (the same routine as NumPy: the same bits),
//! and to this kernel otherwise.

use crate::kernels::linalg::blas;
use crate::kernels::linalg::engine::Family;
use rayon::prelude::*;
use std::ops::{Add, Mul};

/// Elements per parallel piece (256 KiB of float64 per operand).
const PIECE: usize = 1 << 15;

/// Independent accumulators per piece: enough to hide the adds' latency.
const LANES: usize = 16;

/// How far ahead of the loop the data is prefetched.
const AHEAD_BYTES: usize = 8 << 10;

/// The float types with an inner-product kernel.
pub(super) trait Inner:
    Copy + Send + Sync + Default + Add<Output = Self> + Mul<Output = Self>
{
    /// The CBLAS routine's name: `sdot` or `ddot`.
    const CBLAS: &'static str;
    /// The matrix-vector routine's name: `sgemv` or `dgemv`.
    const GEMV: &'static str;
    /// One.
    const ONE: Self;
    /// `self · a + b` rounded once (one instruction only in builds with
    /// FMA enabled; a library call elsewhere).
    fn fused(self, a: Self, b: Self) -> Self;
}
/// The impl for one float type and its two routines' names.
macro_rules! inner {
    ($t:ty, $cblas:literal, $gemv:literal) => {
        impl Inner for $t {
            const CBLAS: &'static str = $cblas;
            const GEMV: &'static str = $gemv;
            const ONE: $t = 1.0;
            #[inline(always)]
            fn fused(self, a: $t, b: $t) -> $t {
                self.mul_add(a, b)
            }
        }
    };
}
inner!(f32, "sdot", "sgemv");
inner!(f64, "ddot", "dgemv");

/// `cblas_?dot(n, x, incx, y, incy)` with integers `I`.
type CblasDot<T, I> = unsafe extern "C" fn(I, *const T, I, *const T, I) -> T;

/// `Σ a[i] · b[i]` by the host's `cblas_?dot`, if a host library serves
/// inner products and has it (and `a.len()` fits its integers).
fn host_dot<T: Inner>(a: &[T], b: &[T]) -> Option<T> {
    fn call<T: Inner, I: TryFrom<usize> + From<u8>>(addr: usize, a: &[T], b: &[T]) -> Option<T> {
        let n = I::try_from(a.len()).ok()?;
        // SAFETY: `open`'s caller vouched that the library's `cblas_?dot`
        // for `T` takes `I`; both slices hold `n` elements at unit stride.
        let dot: CblasDot<T, I> = unsafe { std::mem::transmute(addr) };
        // SAFETY: as above.
        Some(unsafe { dot(n, a.as_ptr(), I::from(1), b.as_ptr(), I::from(1)) })
    }
    blas::serving(Family::Dot, |lib| match lib.cblas(T::CBLAS) {
        0 => None,
        addr if lib.ilp64() => call::<T, i64>(addr, a, b),
        addr => call::<T, i32>(addr, a, b),
    })
    .flatten()
}

/// Asks for the cache lines `AHEAD_BYTES` past `p` (a hint: it never
/// faults, so it may point past the slice).
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let at = (p as *const i8).wrapping_add(AHEAD_BYTES);
        // SAFETY: `prefetch` reads nothing and cannot fault (SSE is
        // part of every x86-64 CPU).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at) };
        // SAFETY: as above.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(64)) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[inline(always)]
fn piece_body<T: Inner>(a: &[T], b: &[T]) -> T {
    let mut acc = [T::default(); LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail = ca.remainder().iter().zip(cb.remainder());
    for (x, y) in ca.zip(cb) {
        prefetch(x.as_ptr());
        prefetch(y.as_ptr());
        for i in 0..LANES {
            acc[i] = acc[i] + x[i] * y[i];
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            acc[i] = acc[i] + acc[i + width];
        }
    }
    tail.fold(acc[0], |s, (&x, &y)| s + x * y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn piece_avx2<T: Inner>(a: &[T], b: &[T]) -> T {
    piece_body(a, b)
}

/// `Σ a[i] · b[i]` in one thread, 16 lanes (an AVX2 build when `avx2`).
pub(super) fn piece<T: Inner>(a: &[T], b: &[T], avx2: bool) -> T {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has AVX2.
        return unsafe { piece_avx2(a, b) };
    }
    let _ = avx2;
    piece_body(a, b)
}

/// `Σ a[i] · b[i]` of two equally long slices: by the host's BLAS when
/// it serves inner products, else by [`own_dot`].
pub(super) fn dot<T: Inner>(a: &[T], b: &[T]) -> T {
    debug_assert_eq!(a.len(), b.len());
    host_dot(a, b).unwrap_or_else(|| own_dot(a, b))
}

/// `Σ a[i] · b[i]` by this file's kernel.
fn own_dot<T: Inner>(a: &[T], b: &[T]) -> T {
    let avx2 = crate::kernels::cpu::has_avx2();
    if a.len() < crate::kernels::PARALLEL_MIN {
        return a
            .chunks(PIECE)
            .zip(b.chunks(PIECE))
            .fold(T::default(), |s, (x, y)| s + piece(x, y, avx2));
    }
    let sums: Vec<T> = a
        .par_chunks(PIECE)
        .zip(b.par_chunks(PIECE))
        .map(|(x, y)| piece(x, y, avx2))
        .collect();
    sums.into_iter().fold(T::default(), |s, p| s + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_of_products_at_every_length() {
        for n in [0, 1, 15, 16, 17, 100, PIECE - 1, PIECE + 3, 3 * PIECE + 7] {
            let a: Vec<f64> = (0..n).map(|i| ((i % 7) as f64) - 3.0).collect();
            let b: Vec<f64> = (0..n).map(|i| ((i % 5) as f64) * 0.5).collect();
            // Small integers and halves: every partial sum is exact.
            let want: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert_eq!(own_dot(&a, &b), want, "{n}");
            let (a32, b32): (Vec<f32>, Vec<f32>) = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| (x as f32, y as f32))
                .unzip();
            assert_eq!(f64::from(own_dot(&a32, &b32)), want, "{n}");
        }
        let nan = [1.0, f64::NAN, 2.0];
        assert!(own_dot(&nan, &[1.0; 3]).is_nan());
        assert_eq!(own_dot(&[f64::INFINITY], &[2.0]), f64::INFINITY);
    }

    #[test]
    fn the_answer_does_not_depend_on_the_threads() {
        let n = 5 * PIECE + 11;
        let a: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let serial = a
            .chunks(PIECE)
            .fold(0.0, |s, x| s + piece(x, x, crate::kernels::cpu::has_avx2()));
        assert_eq!(own_dot(&a, &a).to_bits(), serial.to_bits());
    }
}
