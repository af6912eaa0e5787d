//! The AVX2 loops of `map_bool`: 32 elements compared into masks (eight
//! vectors of float64 or four of float32), packed with saturating packs to
//! one byte per element, put back in order by one cross-lane permute (and
//! for float64 one byte shuffle), and stored as 32 bools at once.

use super::{plain, BoolOp, Operand, OPS};
use crate::dtype::DType;
use crate::tensor::Element;
use num_traits::Float;
use std::arch::x86_64::*;

/// Elements per packed block.
const BLOCK: usize = 32;

// The tests as const-generic codes, so each loop is compiled for one test
// and the choice is made once per call, not per element.
const NAN: u8 = 0;
const INF: u8 = 1;
const LT: u8 = 2;
const GT: u8 = 3;
const LE: u8 = 4;
const GE: u8 = 5;
const EQ: u8 = 6;
const NEQ: u8 = 7;

/// `ys[i] = op(xs[i], b)` for float64 or float32 `T` (anything else runs
/// element by element).
///
/// # Safety
/// The CPU must have AVX2.
pub(super) unsafe fn run<T: Float + Element>(
    op: BoolOp,
    ys: &mut [bool],
    xs: &[T],
    b: Operand<'_, T>,
) {
    let code = match op {
        BoolOp::IsNan => NAN,
        BoolOp::IsInf => INF,
        BoolOp::Lt => LT,
        BoolOp::Gt => GT,
        BoolOp::Le => LE,
        BoolOp::Ge => GE,
        BoolOp::Eq => EQ,
        BoolOp::Neq => NEQ,
    };
    // SAFETY: (both arms) `T::DTYPE` names `T`, so `T` is that float type
    // and the slices can be viewed as it; the CPU has AVX2 (caller).
    match T::DTYPE {
        // SAFETY: as above: `T` is this float type and the CPU has AVX2.
        DType::Float64 => unsafe {
            by_code_pd(code, ys, retype(xs), b.map(|s| retype(s), |v| v.to_f64()))
        },
        // SAFETY: as above: `T` is this float type and the CPU has AVX2.
        DType::Float32 => unsafe {
            by_code_ps(code, ys, retype(xs), b.map(|s| retype(s), |v| v.to_f32()))
        },
        _ => plain(op, ys, xs, b),
    }
}

impl<'a, T: Copy> Operand<'a, T> {
    /// The operand with its slice and scalar converted.
    fn map<U>(
        self,
        slice: impl Fn(&'a [T]) -> &'a [U],
        scalar: impl Fn(T) -> Option<U>,
    ) -> Operand<'a, U> {
        match self {
            Operand::Same => Operand::Same,
            Operand::Slice(s) => Operand::Slice(slice(s)),
            Operand::Scalar(v) => match scalar(v) {
                Some(v) => Operand::Scalar(v),
                None => unreachable!("a float converts to its own type"),
            },
        }
    }
}

impl<'a, T: Copy> Operand<'a, T> {
    /// The operand for elements `[start, end)`.
    fn range(self, start: usize, end: usize) -> Operand<'a, T> {
        match self {
            Operand::Slice(s) => Operand::Slice(&s[start..end]),
            other => other,
        }
    }
}

/// `xs` seen as `U`.
///
/// # Safety
/// `T` and `U` must be the same type (callers check `T::DTYPE`).
unsafe fn retype<T, U>(xs: &[T]) -> &[U] {
    // SAFETY: the same type (caller's contract), so the same layout.
    unsafe { std::slice::from_raw_parts(xs.as_ptr() as *const U, xs.len()) }
}

macro_rules! by_code {
    ($name:ident, $looper:ident, $t:ty) => {
        /// Runs the loop compiled for test `code`.
        ///
        /// # Safety
        /// The CPU must have AVX2.
        unsafe fn $name(code: u8, ys: &mut [bool], xs: &[$t], b: Operand<'_, $t>) {
            // SAFETY: the caller's contract.
            unsafe {
                match code {
                    NAN => $looper::<NAN>(ys, xs, b),
                    INF => $looper::<INF>(ys, xs, b),
                    LT => $looper::<LT>(ys, xs, b),
                    GT => $looper::<GT>(ys, xs, b),
                    LE => $looper::<LE>(ys, xs, b),
                    GE => $looper::<GE>(ys, xs, b),
                    EQ => $looper::<EQ>(ys, xs, b),
                    _ => $looper::<NEQ>(ys, xs, b),
                }
            }
        }
    };
}

by_code!(by_code_pd, loop_pd, f64);
by_code!(by_code_ps, loop_ps, f32);

/// `name::<OP>(a, b)`: all-ones lanes where test `OP` holds (Rust's rules:
/// only `!=` is true when a NaN is involved), from the float type `t`'s
/// vector `v` intrinsics.
macro_rules! mask {
    ($name:ident, $t:ty, $v:ty, $cmp:ident, $andnot:ident, $set1:ident) => {
        #[target_feature(enable = "avx2")]
        #[inline]
        fn $name<const OP: u8>(a: $v, b: $v) -> $v {
            match OP {
                NAN => $cmp::<_CMP_UNORD_Q>(a, a),
                INF => {
                    let abs = $andnot($set1(-0.0), a);
                    $cmp::<_CMP_EQ_OQ>(abs, $set1(<$t>::INFINITY))
                }
                LT => $cmp::<_CMP_LT_OQ>(a, b),
                GT => $cmp::<_CMP_GT_OQ>(a, b),
                LE => $cmp::<_CMP_LE_OQ>(a, b),
                GE => $cmp::<_CMP_GE_OQ>(a, b),
                EQ => $cmp::<_CMP_EQ_OQ>(a, b),
                _ => $cmp::<_CMP_NEQ_UQ>(a, b),
            }
        }
    };
}

mask!(
    mask_pd,
    f64,
    __m256d,
    _mm256_cmp_pd,
    _mm256_andnot_pd,
    _mm256_set1_pd
);
mask!(
    mask_ps,
    f32,
    __m256,
    _mm256_cmp_ps,
    _mm256_andnot_ps,
    _mm256_set1_ps
);

/// Stores 32 packed bytes (0 or -1 each, in element order after the
/// permute `order`) as bools.
#[target_feature(enable = "avx2")]
#[inline]
fn store(out: &mut [bool], bytes: __m256i) {
    assert!(out.len() >= BLOCK);
    let ones = _mm256_and_si256(bytes, _mm256_set1_epi8(1));
    // SAFETY: `out` holds at least 32 bools (asserted), and 0 and 1 are
    // valid bools.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, ones) };
}

/// Eight float64 masks `a..h` to bytes. The packs keep 128-bit halves
/// apart: after them the low half holds elements 0-1 of each mask and the
/// high half 2-3, two bytes per mask in order a..h; the permute and the
/// shuffle put each mask's four bytes together.
#[target_feature(enable = "avx2")]
#[inline]
fn pack_pd(out: &mut [bool], m: [__m256d; 8]) {
    let i = |k: usize| _mm256_castpd_si256(m[k]);
    let ab = _mm256_packs_epi32(i(0), i(1));
    let cd = _mm256_packs_epi32(i(2), i(3));
    let ef = _mm256_packs_epi32(i(4), i(5));
    let gh = _mm256_packs_epi32(i(6), i(7));
    let all = _mm256_packs_epi16(_mm256_packs_epi16(ab, cd), _mm256_packs_epi16(ef, gh));
    let all = _mm256_permutevar8x32_epi32(all, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    #[rustfmt::skip]
    let order = _mm256_setr_epi8(
        0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15,
        0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15,
    );
    store(out, _mm256_shuffle_epi8(all, order));
}

/// Four float32 masks to bytes: after the packs the low half holds
/// elements 0-3 of each mask and the high half 4-7; the permute puts each
/// mask's eight bytes together.
#[target_feature(enable = "avx2")]
#[inline]
fn pack_ps(out: &mut [bool], m: [__m256; 4]) {
    let i = |k: usize| _mm256_castps_si256(m[k]);
    let ab = _mm256_packs_epi32(i(0), i(1));
    let cd = _mm256_packs_epi32(i(2), i(3));
    let all = _mm256_packs_epi16(ab, cd);
    store(
        out,
        _mm256_permutevar8x32_epi32(all, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)),
    );
}

macro_rules! block_loop {
    ($name:ident, $t:ty, $v:ty, $width:expr, $load:ident, $set1:ident, $mask:ident, $pack:ident) => {
        /// `ys[i] = OP(xs[i], b)`, a packed block of 32 at a time, the
        /// tail element by element.
        #[target_feature(enable = "avx2")]
        fn $name<const OP: u8>(ys: &mut [bool], xs: &[$t], b: Operand<'_, $t>) {
            let n = xs.len().min(ys.len());
            if let Operand::Slice(bs) = b {
                assert!(bs.len() >= n, "operands of one length");
            }
            // SAFETY: `i + j < n` for every load below (`i + BLOCK <= n`).
            let load = |s: &[$t], at: usize| -> $v { unsafe { $load(s.as_ptr().add(at)) } };
            let op = OPS[OP as usize];
            // Blocks start where `xs` is 32-byte aligned, so no load
            // straddles two cache lines (NumPy's buffers are usually 16
            // bytes past one; measured 7% faster on 1e6 float64).
            let head = xs.as_ptr().align_offset(32).min(n);
            plain(op, &mut ys[..head], &xs[..head], b.range(0, head));
            let mut i = head;
            while i + BLOCK <= n {
                let m: [$v; BLOCK / $width] = std::array::from_fn(|k| {
                    let j = i + k * $width;
                    let a = load(xs, j);
                    let second = match b {
                        Operand::Same => a,
                        Operand::Slice(bs) => load(bs, j),
                        Operand::Scalar(v) => $set1(v),
                    };
                    $mask::<OP>(a, second)
                });
                $pack(&mut ys[i..i + BLOCK], m);
                i += BLOCK;
            }
            plain(op, &mut ys[i..n], &xs[i..n], b.range(i, n));
        }
    };
}

block_loop!(
    loop_pd,
    f64,
    __m256d,
    4,
    _mm256_loadu_pd,
    _mm256_set1_pd,
    mask_pd,
    pack_pd
);
block_loop!(
    loop_ps,
    f32,
    __m256,
    8,
    _mm256_loadu_ps,
    _mm256_set1_ps,
    mask_ps,
    pack_ps
);
