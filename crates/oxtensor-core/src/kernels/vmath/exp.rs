//! `exp`, `exp2` and `expm1` of one `f64`, branch-free so that a loop of
//! them vectorises (special values by selects, no table look-ups). Each
//! reduces `x = k ln2 + r` with `|r| <= ln2/2`, takes `expm1(r)` from its
//! Taylor series and scales by `2^k` in the exponent bits. `exp_dd` takes
//! its argument as a double-double, for `pow`.

use super::dd::{fast_two_sum, two_prod, two_sum};

pub(crate) const LOG2E: f64 = std::f64::consts::LOG2_E;
/// Adding 1.5 * 2^52 rounds to an integer held in the low mantissa bits.
pub(crate) const SHIFTER: f64 = 6_755_399_441_055_744.0;
/// 1/k! for k = 0..=13: the Taylor series of exp(r) to r^13, whose
/// truncation error is below 1e-17 for |r| <= ln2/2.
pub(crate) const INV_FACTORIALS: [f64; 14] = [
    1.0,
    1.0,
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5_040.0,
    1.0 / 40_320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// `fn name<F>(a, b, c)` on `t`: `a * b + c`, fused when the caller was
/// compiled with FMA (`F`; unfused, `mul_add` would call libm's software
/// `fma`, far slower than two ops).
macro_rules! fused_multiply_add {
    ($vis:vis fn $name:ident($t:ty)) => {
        #[inline(always)]
        $vis fn $name<const F: bool>(a: $t, b: $t, c: $t) -> $t {
            if F {
                a.mul_add(b, c)
            } else {
                a * b + c
            }
        }
    };
}
pub(super) use fused_multiply_add;

// `fma`: the float64 one (`log32::fma32` is the float32 one).
fused_multiply_add!(pub(crate) fn fma(f64));

/// ln 2 in two parts (Cody–Waite): `LN2_HI` has 21 trailing zero bits, so
/// `k * LN2_HI` is exact for every `|k| < 2^21`.
pub(super) const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
pub(super) const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LN2: f64 = std::f64::consts::LN_2;
/// The rounding error of [`LN2`]: `LN2 + LN2_TAIL` is ln 2 to 2^-106.
const LN2_TAIL: f64 = 2.319_046_813_846_299_6e-17;
/// `exp` is +inf above this (exp(710) > f64::MAX) and 0 below the other
/// bound (exp(-746) < 2^-1075): clamping there keeps `k` in the range
/// [`scale`] handles without changing any result.
const EXP_HI: f64 = 710.0;
const EXP_LO: f64 = -746.0;
/// `expm1(x)` rounds to -1 below -38; -40 keeps `2^k` normal.
const EXPM1_LO: f64 = -40.0;
/// Below this `expm1(x)` rounds to `x` (its next term is `x^2/2`).
const EXPM1_TINY: f64 = 1.0 / (1u64 << 54) as f64;
/// `1/(i+2)!` for i = 0..=11: `expm1(r) = r + r^2 (1/2 + r/6 + ...)` to
/// r^13, whose truncation error is below 2^-56 relative for |r| <= ln2/2.
const Q: [f64; 12] = {
    let mut q = [0.0; 12];
    let mut i = 0;
    while i < q.len() {
        q[i] = INV_FACTORIALS[i + 2];
        i += 1;
    }
    q
};

/// `x` limited to `[lo, hi]`, a NaN kept (it then propagates through the
/// arithmetic); compiles to two selects.
#[inline(always)]
pub(super) fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if x > hi { hi } else { x };
    if x < lo {
        lo
    } else {
        x
    }
}

/// `c[i] + c[i + 1] x`, a leaf of Estrin's scheme (a function, not a
/// closure, so that it is always inlined into the caller's build).
#[inline(always)]
pub(super) fn pair<const F: bool>(c: &[f64], i: usize, x: f64) -> f64 {
    fma::<F>(c[i + 1], x, c[i])
}

/// `(e^r - 1 - r) / r^2` for `|r|` up to a little over ln2/2, in Estrin's
/// scheme (a dependency chain of 5 steps instead of Horner's 12).
#[inline(always)]
fn series<const F: bool>(r: f64, r2: f64) -> f64 {
    let r4 = r2 * r2;
    let q0 = fma::<F>(pair::<F>(&Q, 2, r), r2, pair::<F>(&Q, 0, r));
    let q1 = fma::<F>(pair::<F>(&Q, 6, r), r2, pair::<F>(&Q, 4, r));
    let q2 = fma::<F>(pair::<F>(&Q, 10, r), r2, pair::<F>(&Q, 8, r));
    fma::<F>(fma::<F>(q2, r4, q1), r4, q0)
}

/// `expm1(r)` as `r + r^2 q(r)`, `r` added last in the one rounding of an
/// FMA: within 0.6 ulp.
#[inline(always)]
pub(super) fn expm1_poly<const F: bool>(r: f64) -> f64 {
    let r2 = r * r;
    fma::<F>(r2, series::<F>(r, r2), r)
}

/// `expm1(r + lo)` for a small correction `lo` (below an ulp of `r`):
/// `r + (r^2 q(r) + lo)`, dropping `lo r`, far below an ulp.
#[inline(always)]
fn expm1_poly_lo<const F: bool>(r: f64, lo: f64) -> f64 {
    let r2 = r * r;
    r + fma::<F>(r2, series::<F>(r, r2), lo)
}

/// `x = k ln2 + r`: `(t, r)`, where `t` holds `k` in its low mantissa bits
/// (`t = SHIFTER + k`) and `|r| <= ln2/2` (a little over when rounding
/// ties), for `|x| < 2^20`.
#[inline(always)]
pub(super) fn reduce<const F: bool>(x: f64) -> (f64, f64) {
    let t = fma::<F>(x, LOG2E, SHIFTER);
    let k = t - SHIFTER;
    (t, fma::<F>(-k, LN2_LO, fma::<F>(-k, LN2_HI, x)))
}

/// `p * 2^k` for `k` in [-1077, 1025] held in `t` as [`reduce`] leaves it,
/// and `p` in [0.5, 2]. Two factors `2^(k/2)` keep each one normal, and
/// `p` times the first is exact, so the one rounding of the second product
/// gives correctly rounded subnormals and overflow to infinity.
#[inline(always)]
pub(super) fn scale(p: f64, t: f64) -> f64 {
    // The low bits of `t` are 2^51 + k; adding 2 * 1023 (+1) and halving
    // leaves floor (ceil) of k/2 + 1023 in the bits shifted to the exponent.
    let b = t.to_bits();
    let s1 = f64::from_bits((b.wrapping_add(2046) >> 1) << 52);
    let s2 = f64::from_bits((b.wrapping_add(2047) >> 1) << 52);
    p * s1 * s2
}

/// `e^x` within 1 ulp, for every `f64` (NaN, ±inf, overflow to +inf,
/// subnormal results); `F`: compiled with FMA, as [`fma`].
#[inline(always)]
pub(crate) fn exp<const F: bool>(x: f64) -> f64 {
    let (t, r) = reduce::<F>(clamp(x, EXP_LO, EXP_HI));
    scale(1.0 + expm1_poly::<F>(r), t)
}

/// `e^x` for `x` in [-708, 709], where `2^k` is a normal number: [`exp`]
/// without its clamp and with one scaling factor, so the same bits there
/// at a little less work (softmax's blocks check the range themselves).
#[inline(always)]
pub(crate) fn exp_normal<const F: bool>(x: f64) -> f64 {
    let (t, r) = reduce::<F>(x);
    // The low bits of `t` hold k + 2^51; adding the bias and shifting puts
    // k + 1023 in the exponent field (valid for k in [-1022, 1023]).
    let scale = f64::from_bits(t.to_bits().wrapping_add(1023) << 52);
    (1.0 + expm1_poly::<F>(r)) * scale
}

/// `x + lo = k ln2 + r + r_lo`: `(t, r, r_lo)` as [`reduce`] gives, with
/// the reduced argument as a double-double (for `|lo|` below 1e-6).
#[inline(always)]
fn reduce_dd<const F: bool>(x: f64, lo: f64) -> (f64, f64, f64) {
    let t = fma::<F>(x, LOG2E, SHIFTER);
    let k = t - SHIFTER;
    // Exact: k LN2_HI is, and x is within a factor 2 of it (or k = 0).
    let r = fma::<F>(-k, LN2_HI, x);
    let (r, r_lo) = two_sum(r, fma::<F>(-k, LN2_LO, lo));
    (t, r, r_lo)
}

/// `e^(hi + lo)` for a double-double argument (`|lo|` at most a few ulp of
/// `hi`; `hi` NaN or ±inf is not handled: `pow` selects those away).
#[inline(always)]
pub(super) fn exp_dd<const F: bool>(hi: f64, lo: f64) -> f64 {
    // Outside the clamp (or NaN) the correction is dropped: it may be
    // ±inf or NaN there, from an overflowing product.
    let inside = hi.abs() <= -EXP_LO;
    let lo = if inside { lo } else { 0.0 };
    let (t, r, r_lo) = reduce_dd::<F>(clamp(hi, EXP_LO, EXP_HI), lo);
    scale(1.0 + expm1_poly_lo::<F>(r, r_lo), t)
}

/// `2^x` within 1 ulp, for every `f64`; exact for integer `x`. `x = k + f`
/// with `|f| <= 1/2` exact, then `e^(f ln2)` with `f ln2` as a
/// double-double.
#[inline(always)]
pub(crate) fn exp2<const F: bool>(x: f64) -> f64 {
    let x = clamp(x, -1080.0, 1030.0);
    let t = x + SHIFTER;
    let f = x - (t - SHIFTER);
    let (r, lo) = two_prod::<F>(f, LN2);
    let lo = fma::<F>(f, LN2_TAIL, lo);
    scale(1.0 + expm1_poly_lo::<F>(r, lo), t)
}

/// `e^x - 1` within 1 ulp, for every `f64` (`-0` and tiny `x` give `x`).
#[inline(always)]
pub(crate) fn expm1<const F: bool>(x: f64) -> f64 {
    let (t, r, r_lo) = reduce_dd::<F>(clamp(x, EXPM1_LO, EXP_HI), 0.0);
    // expm1(r + r_lo) = q + q_lo, dropping r_lo^2 and r^2 r_lo.
    let r2 = r * r;
    let tail = fma::<F>(r2, series::<F>(r, r2), fma::<F>(r, r_lo, r_lo));
    let (q, q_lo) = fast_two_sum(r, tail);
    // 2^k (1 + q) - 1 = 2 (h q + (h - 1/2)) with h = 2^(k-1), which stays
    // normal for k up to 1024; `h - 1/2` is exact for k in [-52, 53], and
    // for k = 0 the result is `q` rounded once.
    let h = f64::from_bits(t.to_bits().wrapping_add(1022) << 52);
    let y = 2.0 * (fma::<F>(h, q, h - 0.5) + h * q_lo);
    if x.abs() < EXPM1_TINY {
        x
    } else {
        y
    }
}
