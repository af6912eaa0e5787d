//! float32 `softplus` and `pow`, computed in float64 with
//! shorter series than the float64 functions (relative error near 2^-40 before the one rounding to
//! float32, so results are the correctly rounded float32 but within about
//! 2^-16 ulp of a tie, and within 1 ulp always). A float32 argument is
//! exact in float64 and never subnormal there, which drops the subnormal
//! and double-double paths.

use super::exp::{clamp, pair, LN2_HI, LN2_LO};
use super::exp::{fma, LOG2E, SHIFTER};
use super::pow::pow_with;

const LN2: f64 = std::f64::consts::LN_2;
/// float32's `exp` is +inf above 88.73 and 0 below -103.98: with the clamp
/// at 90 and -110, `2^k` stays a normal double.
const HI: f64 = 90.0;
const LO: f64 = -110.0;
/// `(e^r - 1 - r) / r^2` for |r| <= ln2/2: a Chebyshev fit (mpmath
/// `chebyfit`) whose error times `r` is below 2^-42 relative.
const Q: [f64; 8] = [
    0.499_999_999_999_543_8,
    0.166_666_666_666_625_22,
    0.041_666_666_787_708_986,
    0.008_333_333_344_334_136,
    0.001_388_883_871_082_009_5,
    0.000_198_412_242_363_827_54,
    2.486_813_590_982_404_8e-5,
    2.761_780_626_558_505_8e-6,
];
/// `(2 atanh(s)/s - 2) / s^2` in `z = s^2` on [0, 0.0295]: a Chebyshev fit
/// whose error, times `s^3`, is below 2^-43 of `log(1 + f)`.
const R: [f64; 5] = [
    0.666_666_666_673_754_5,
    0.399_999_987_968_486_74,
    0.285_717_546_357_327_6,
    0.221_913_944_931_750_57,
    0.193_627_768_367_475_33,
];

/// `expm1(r) - r` divided by `r^2`, for |r| <= ln2/2, in Estrin's scheme.
#[inline(always)]
fn series<const F: bool>(r: f64, r2: f64) -> f64 {
    let a = fma::<F>(pair::<F>(&Q, 2, r), r2, pair::<F>(&Q, 0, r));
    let b = fma::<F>(pair::<F>(&Q, 6, r), r2, pair::<F>(&Q, 4, r));
    fma::<F>(b, r2 * r2, a)
}

/// `(t, r)` with `w = k ln2 + r` and `t = SHIFTER + k`, `|r| <= ln2/2`.
#[inline(always)]
fn reduce<const F: bool>(w: f64) -> (f64, f64) {
    let t = fma::<F>(w, LOG2E, SHIFTER);
    let k = t - SHIFTER;
    (t, fma::<F>(-k, LN2_LO, fma::<F>(-k, LN2_HI, w)))
}

/// `2^k` for `t = SHIFTER + k`, `k` in [-1022, 1023].
#[inline(always)]
fn two_to(t: f64) -> f64 {
    f64::from_bits(t.to_bits().wrapping_add(1023) << 52)
}

/// `e^w` to about 2^-40 relative, for `w` clamped to [-110, 90] (a NaN
/// kept).
#[inline(always)]
pub(super) fn exp_lite<const F: bool>(w: f64) -> f64 {
    let (t, r) = reduce::<F>(clamp(w, LO, HI));
    let r2 = r * r;
    (1.0 + fma::<F>(r2, series::<F>(r, r2), r)) * two_to(t)
}

/// `log(w)` to about 2^-43 relative for positive normal `w` (NaN for
/// others but +inf, which the callers' selects handle): `w = 2^e (1 + f)`,
/// `log(1 + f) = 2s + s^3 R(s^2)` with `s = f / (2 + f)`.
#[inline(always)]
pub(super) fn log_lite<const F: bool>(w: f64) -> f64 {
    let bits = w.to_bits();
    let eb = bits.wrapping_add(0x3ff0_0000_0000_0000 - 0x3fe6_a09e_667f_3bcd) >> 52;
    let m = f64::from_bits(bits.wrapping_sub((eb << 52).wrapping_sub(0x3ff0_0000_0000_0000)));
    let e = f64::from_bits(0x4330_0000_0000_0000 | eb) - (4_503_599_627_370_496.0 + 1023.0);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let z2 = z * z;
    let rz = fma::<F>(
        R[4],
        z2 * z2,
        fma::<F>(pair::<F>(&R, 2, z), z2, pair::<F>(&R, 0, z)),
    );
    fma::<F>(e, LN2, fma::<F>(s * z, rz, 2.0 * s))
}

/// `log(1 + w)` to about 2^-40 relative for `w > -1`: below 2^-12 the
/// series `w - w^2/2 + w^3/3` (its error, `w^4/4`, is below 2^-38 of it),
/// above it `1 + w` loses at most 2^-53, under 2^-41 of the result.
#[inline(always)]
pub(super) fn log1p_lite<const F: bool>(w: f64) -> f64 {
    let small = w * fma::<F>(w, fma::<F>(w, 1.0 / 3.0, -0.5), 1.0);
    if w.abs() < 1.0 / 4096.0 {
        small
    } else {
        log_lite::<F>(1.0 + w)
    }
}

/// `max(x, 0) + log1p(e^-|x|)`; `1 + t` (t in (0, 1]) loses nothing that
/// float32 can see.
#[inline(always)]
pub(super) fn softplus<const F: bool>(x: f32) -> f32 {
    let w = f64::from(x);
    let t = exp_lite::<F>(-w.abs());
    let pos = if w < 0.0 { 0.0 } else { w };
    (pos + log1p_lite::<F>(t)) as f32
}

/// `|x| ** y` for positive finite `|x|`: `y log|x|` is at most about 150 in
/// magnitude where the float32 result is finite and nonzero, so the
/// logarithm's 2^-43 relative error stays below 2^-35 of the result.
#[inline(always)]
fn pow_abs<const F: bool>(ax: f64, y: f64) -> f64 {
    exp_lite::<F>(y * log_lite::<F>(ax))
}

#[inline(always)]
pub(super) fn pow<const F: bool>(x: f32, y: f32) -> f32 {
    let (x, y) = (f64::from(x), f64::from(y));
    pow_with(x, y, pow_abs::<F>(x.abs(), y)) as f32
}
