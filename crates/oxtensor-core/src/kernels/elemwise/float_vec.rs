//! A float type's x86 vectors for the extreme and `argmax` passes of
//! `argmax_simd.rs`: one trait, [`FloatVec`], over the AVX2 (`__m256`,
//! `__m256d`) and AVX-512 (`__m512`, `__m512d`) registers, so those
//! passes are written once and compiled for each width. AVX2 keeps a lane
//! test as a vector (all-ones lanes); AVX-512 as a mask register, one bit
//! per lane.

#![cfg(target_arch = "x86_64")]

use crate::tensor::Element;
use std::arch::x86_64::*;

/// Most elements a vector holds (sixteen float32 in AVX-512).
pub(crate) const MAX_LANES: usize = 16;

/// float32 or float64, with its vector in each build.
pub(crate) trait SimdFloat: Element + PartialOrd {
    /// The AVX2 vector of this type.
    type W256: FloatVec<T = Self>;
    /// The AVX-512 vector of this type.
    type W512: FloatVec<T = Self>;
    /// The value every number replaces or equals: -inf (+inf with `MIN`).
    fn start<const MIN: bool>() -> Self;
    /// A count as this type (exact below 2^24 for float32).
    fn from_count(k: usize) -> Self;
    /// This value, a count made by `from_count`, back.
    fn to_count(self) -> usize;
}

/// A vector of [`FloatVec::T`] and its lane test. Every method needs the
/// vector's instruction set: they are only called, inlined, from code
/// built with it (`#[target_feature]`, see `argmax_simd::Width`).
pub(crate) trait FloatVec: Copy {
    type T: SimdFloat;
    /// A test per lane: the vector itself (AVX2) or a mask register.
    type Mask: Copy;
    /// Elements per vector, at most [`MAX_LANES`].
    const LANES: usize;
    /// SAFETY: `p` points at `LANES` readable elements.
    unsafe fn load(p: *const Self::T) -> Self;
    fn splat(v: Self::T) -> Self;
    /// `v` where it beats `a`, else `a` (`a` where either is NaN).
    fn pick<const MIN: bool>(v: Self, a: Self) -> Self;
    /// No lane marked.
    fn clear() -> Self::Mask;
    /// Lanes where `a` or `b` is NaN, or'ed into `mask`: one unordered
    /// compare tests two vectors.
    fn nan_into(mask: Self::Mask, a: Self, b: Self) -> Self::Mask;
    fn any(mask: Self::Mask) -> bool;
    /// The elements, in the first `LANES` places.
    fn lanes(v: Self) -> [Self::T; MAX_LANES];
    /// One bit per lane where `v` equals `m`.
    fn eq_bits(v: Self, m: Self) -> u32;
    /// One bit per lane where `v` is NaN.
    fn nan_bits(v: Self) -> u32;
    /// Lanes where `v` beats `a` (see `argmax::beats`).
    fn beats_mask<const MIN: bool>(v: Self, a: Self) -> Self::Mask;
    /// `b` in the lanes `mask` marks, else `a`.
    fn blend(a: Self, b: Self, mask: Self::Mask) -> Self;
    /// Lanes where `v` would replace the best value `b` by NumPy's rule
    /// (`v` beats `b`, or `v` is the first NaN), or'ed into `mask`.
    fn replaces_into<const MIN: bool>(mask: Self::Mask, v: Self, b: Self) -> Self::Mask;
}

macro_rules! simd_float {
    ($t:ty, $w256:ty, $w512:ty) => {
        impl SimdFloat for $t {
            type W256 = $w256;
            type W512 = $w512;
            fn start<const MIN: bool>() -> Self {
                if MIN {
                    <$t>::INFINITY
                } else {
                    <$t>::NEG_INFINITY
                }
            }
            fn from_count(k: usize) -> Self {
                k as $t
            }
            fn to_count(self) -> usize {
                self as usize
            }
        }
    };
}

simd_float!(f32, __m256, __m512);
simd_float!(f64, __m256d, __m512d);

/// The methods both widths write alike; `$cmp` gives `$mask`.
macro_rules! common_methods {
    ($t:ty, $v:ty, $load:ident, $set1:ident, $max:ident, $min:ident, $store:ident,
     $cmp:ident, $mask:ty) => {
        type T = $t;
        type Mask = $mask;
        const LANES: usize = std::mem::size_of::<$v>() / std::mem::size_of::<$t>();
        #[inline(always)]
        unsafe fn load(p: *const $t) -> $v {
            // SAFETY: the caller's contract, and built code (trait docs).
            unsafe { $load(p) }
        }
        #[inline(always)]
        fn splat(v: $t) -> $v {
            // SAFETY: called from built code only (trait docs).
            unsafe { $set1(v) }
        }
        #[inline(always)]
        fn pick<const MIN: bool>(v: $v, a: $v) -> $v {
            // SAFETY: called from built code only (trait docs). The
            // instructions return their second operand when either is NaN.
            unsafe {
                if MIN {
                    $min(v, a)
                } else {
                    $max(v, a)
                }
            }
        }
        #[inline(always)]
        fn beats_mask<const MIN: bool>(v: $v, a: $v) -> $mask {
            // SAFETY: called from built code only (trait docs).
            unsafe {
                if MIN {
                    $cmp::<_CMP_LT_OQ>(v, a)
                } else {
                    $cmp::<_CMP_GT_OQ>(v, a)
                }
            }
        }
        #[inline(always)]
        fn lanes(v: $v) -> [$t; MAX_LANES] {
            let mut out = [<$t>::NAN; MAX_LANES];
            // SAFETY: `out` holds at least `LANES` elements; built code.
            unsafe { $store(out.as_mut_ptr(), v) };
            out
        }
    };
}

macro_rules! avx2_vec {
    ($t:ty, $v:ty, $load:ident, $set1:ident, $max:ident, $min:ident, $store:ident,
     $cmp:ident, $zero:ident, $or:ident, $and:ident, $movemask:ident, $blendv:ident) => {
        impl FloatVec for $v {
            common_methods!($t, $v, $load, $set1, $max, $min, $store, $cmp, $v);
            #[inline(always)]
            fn clear() -> $v {
                // SAFETY: called from AVX2 code only (trait docs).
                unsafe { $zero() }
            }
            #[inline(always)]
            fn nan_into(mask: $v, a: $v, b: $v) -> $v {
                // SAFETY: called from AVX2 code only (trait docs).
                unsafe { $or(mask, $cmp::<_CMP_UNORD_Q>(a, b)) }
            }
            #[inline(always)]
            fn any(mask: $v) -> bool {
                // SAFETY: called from AVX2 code only (trait docs).
                unsafe { $movemask(mask) != 0 }
            }
            #[inline(always)]
            fn eq_bits(v: $v, m: $v) -> u32 {
                // SAFETY: called from AVX2 code only (trait docs).
                unsafe { $movemask($cmp::<_CMP_EQ_OQ>(v, m)) as u32 }
            }
            #[inline(always)]
            fn nan_bits(v: $v) -> u32 {
                // SAFETY: called from AVX2 code only (trait docs).
                unsafe { $movemask($cmp::<_CMP_UNORD_Q>(v, v)) as u32 }
            }
            #[inline(always)]
            fn blend(a: $v, b: $v, mask: $v) -> $v {
                // SAFETY: called from AVX2 code only (trait docs).
                unsafe { $blendv(a, b, mask) }
            }
            #[inline(always)]
            fn replaces_into<const MIN: bool>(mask: $v, v: $v, b: $v) -> $v {
                // "Not below or equal" holds where `v` beats `b` or either
                // is NaN; the ordered test drops the lanes whose best is
                // NaN already (nothing replaces it).
                // SAFETY: called from AVX2 code only (trait docs).
                unsafe {
                    let beats_or_nan = match MIN {
                        true => $cmp::<_CMP_NGE_UQ>(v, b),
                        false => $cmp::<_CMP_NLE_UQ>(v, b),
                    };
                    $or(mask, $and(beats_or_nan, $cmp::<_CMP_ORD_Q>(b, b)))
                }
            }
        }
    };
}

avx2_vec!(
    f32,
    __m256,
    _mm256_loadu_ps,
    _mm256_set1_ps,
    _mm256_max_ps,
    _mm256_min_ps,
    _mm256_storeu_ps,
    _mm256_cmp_ps,
    _mm256_setzero_ps,
    _mm256_or_ps,
    _mm256_and_ps,
    _mm256_movemask_ps,
    _mm256_blendv_ps
);
avx2_vec!(
    f64,
    __m256d,
    _mm256_loadu_pd,
    _mm256_set1_pd,
    _mm256_max_pd,
    _mm256_min_pd,
    _mm256_storeu_pd,
    _mm256_cmp_pd,
    _mm256_setzero_pd,
    _mm256_or_pd,
    _mm256_and_pd,
    _mm256_movemask_pd,
    _mm256_blendv_pd
);

macro_rules! avx512_vec {
    ($t:ty, $v:ty, $load:ident, $set1:ident, $max:ident, $min:ident, $store:ident,
     $cmp:ident, $mask:ty, $blend:ident) => {
        impl FloatVec for $v {
            common_methods!($t, $v, $load, $set1, $max, $min, $store, $cmp, $mask);
            #[inline(always)]
            fn clear() -> $mask {
                0
            }
            #[inline(always)]
            fn nan_into(mask: $mask, a: $v, b: $v) -> $mask {
                // SAFETY: called from AVX-512 code only (trait docs).
                mask | unsafe { $cmp::<_CMP_UNORD_Q>(a, b) }
            }
            #[inline(always)]
            fn any(mask: $mask) -> bool {
                mask != 0
            }
            #[inline(always)]
            fn eq_bits(v: $v, m: $v) -> u32 {
                // SAFETY: called from AVX-512 code only (trait docs).
                u32::from(unsafe { $cmp::<_CMP_EQ_OQ>(v, m) })
            }
            #[inline(always)]
            fn nan_bits(v: $v) -> u32 {
                // SAFETY: called from AVX-512 code only (trait docs).
                u32::from(unsafe { $cmp::<_CMP_UNORD_Q>(v, v) })
            }
            #[inline(always)]
            fn blend(a: $v, b: $v, mask: $mask) -> $v {
                // SAFETY: called from AVX-512 code only (trait docs).
                unsafe { $blend(mask, a, b) }
            }
            #[inline(always)]
            fn replaces_into<const MIN: bool>(mask: $mask, v: $v, b: $v) -> $mask {
                // As the AVX2 form: beats or unordered, where `b` is not NaN.
                // SAFETY: called from AVX-512 code only (trait docs).
                unsafe {
                    let beats_or_nan = match MIN {
                        true => $cmp::<_CMP_NGE_UQ>(v, b),
                        false => $cmp::<_CMP_NLE_UQ>(v, b),
                    };
                    mask | (beats_or_nan & $cmp::<_CMP_ORD_Q>(b, b))
                }
            }
        }
    };
}

avx512_vec!(
    f32,
    __m512,
    _mm512_loadu_ps,
    _mm512_set1_ps,
    _mm512_max_ps,
    _mm512_min_ps,
    _mm512_storeu_ps,
    _mm512_cmp_ps_mask,
    __mmask16,
    _mm512_mask_blend_ps
);
avx512_vec!(
    f64,
    __m512d,
    _mm512_loadu_pd,
    _mm512_set1_pd,
    _mm512_max_pd,
    _mm512_min_pd,
    _mm512_storeu_pd,
    _mm512_cmp_pd_mask,
    __mmask8,
    _mm512_mask_blend_pd
);
