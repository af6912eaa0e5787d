//! `exp`, `exp2` and `expm1` of one `f32` in float32 arithmetic (sixteen
//! lanes a vector on AVX-512, as NumPy's float32 loops): the float64
//! reduction and scaling of `exp.rs` with a degree-7 Taylor polynomial.
//! Within 2 ulp (measured against the correctly rounded result).

use super::log32::fma32;

/// 1.5 * 2^23: adding it rounds to an integer held in the low mantissa bits.
const SHIFTER: f32 = 12_582_912.0;
/// ln 2 in two parts, `k * LN2_HI` exact for every `|k| < 2^15`.
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// float32's `exp` is +inf above 88.73 and 0 below -103.98.
const HI: f32 = 89.0;
const LO: f32 = -104.0;
/// `1/(i+2)!` for i = 0..=5: `e^r = 1 + r + r^2 (1/2 + r/6 + ...)` to r^7,
/// whose truncation error is below 2^-27 for |r| <= ln2/2.
const Q: [f32; 6] = [
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
];

/// `x` limited to `[lo, hi]`, a NaN kept.
#[inline(always)]
pub(super) fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x > hi { hi } else { x };
    if x < lo {
        lo
    } else {
        x
    }
}

/// `expm1(r)` for |r| <= ln2/2: `r + r^2 q(r)`, `q` in Estrin's scheme.
#[inline(always)]
pub(super) fn expm1_poly<const F: bool>(r: f32) -> f32 {
    let r2 = r * r;
    let a = fma32::<F>(Q[1], r, Q[0]);
    let b = fma32::<F>(Q[3], r, Q[2]);
    let c = fma32::<F>(Q[5], r, Q[4]);
    let q = fma32::<F>(fma32::<F>(c, r2, b), r2, a);
    fma32::<F>(r2, q, r)
}

/// `(t, r)`: `x = k ln2 + r`, `t = SHIFTER + k`, `|r| <= ln2/2`.
#[inline(always)]
pub(super) fn reduce<const F: bool>(x: f32) -> (f32, f32) {
    let t = fma32::<F>(x, std::f32::consts::LOG2_E, SHIFTER);
    let k = t - SHIFTER;
    (t, fma32::<F>(-k, LN2_LO, fma32::<F>(-k, LN2_HI, x)))
}

/// `p * 2^k` for `t = SHIFTER + k`, `k` in [-151, 129], as two normal
/// factors (the first product exact), so subnormal results and overflow
/// round once.
#[inline(always)]
pub(super) fn scale(p: f32, t: f32) -> f32 {
    let b = t.to_bits();
    let s1 = f32::from_bits((b.wrapping_add(254) >> 1) << 23);
    let s2 = f32::from_bits((b.wrapping_add(255) >> 1) << 23);
    p * s1 * s2
}

#[inline(always)]
pub(super) fn exp<const F: bool>(x: f32) -> f32 {
    let (t, r) = reduce::<F>(clamp(x, LO, HI));
    scale(1.0 + expm1_poly::<F>(r), t)
}

/// `x = k + f` with `|f| <= 1/2` exact, then `e^(f ln2)`: exact for
/// integer `x`.
#[inline(always)]
pub(super) fn exp2<const F: bool>(x: f32) -> f32 {
    let x = clamp(x, -151.0, 129.0);
    let t = x + SHIFTER;
    let f = x - (t - SHIFTER);
    scale(1.0 + expm1_poly::<F>(f * std::f32::consts::LN_2), t)
}

/// `2^k (1 + q) - 1 = 2 (h q + (h - 1/2))`, `h = 2^(k-1)`, as the float64
/// `expm1`; -0 and tiny `x` give `x`.
#[inline(always)]
pub(super) fn expm1<const F: bool>(x: f32) -> f32 {
    let (t, r) = reduce::<F>(clamp(x, -20.0, HI));
    let q = expm1_poly::<F>(r);
    let h = f32::from_bits(t.to_bits().wrapping_add(126) << 23);
    let y = 2.0 * fma32::<F>(h, q, h - 0.5);
    if x.abs() < 1.0 / 33_554_432.0 {
        x
    } else {
        y
    }
}

/// `1 / (1 + e^-x)` as the float64 `sigmoid` (`t = e^-|x|`, `t / (1 + t)`
/// below 0), the quotient in float64 so that only `t`'s error and one
/// rounding remain: within 1.6 ulp.
#[inline(always)]
pub(super) fn sigmoid<const F: bool>(x: f32) -> f32 {
    let t = f64::from(exp::<F>(-x.abs()));
    let num = if x >= 0.0 { 1.0 } else { t };
    (num / (1.0 + t)) as f32
}
