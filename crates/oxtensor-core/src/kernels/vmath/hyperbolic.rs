//! `sinh`, `cosh`, `tanh`, `arcsinh`, `arccosh` and `arctanh` of one
//! `f64`, branch-free on the exp and log primitives (`exp`, `expm1`,
//! `log1p`): the `expm1`/`log1p` forms keep full accuracy near 0 (no
//! `e^x - e^-x` or `log(1 + x)` cancellation), and huge arguments never
//! overflow an intermediate (sinh and cosh past 709 go to libm, the
//! inverse functions take `log(x) + ln2` past 2^28).

use super::dd::{residual, two_sum};
use super::exp::fma;
use super::exp::{clamp, exp, expm1};
use super::guarded::guarded_kind;
use super::log::log1p_inside;
use super::simd::unary_kernels;

const LN2: f64 = std::f64::consts::LN_2;
/// Past this `e^|x|` (or `expm1`) overflows before sinh and cosh do
/// (at 710.47): those elements go to libm.
const EXP_SAFE: f64 = 709.0;
/// `tanh` is ±1 in f64 from 19.1 on; clamping there keeps `expm1` finite.
const TANH_SATURATE: f64 = 22.0;
/// Past this `sqrt(1 + x^2)` is `x` to double precision: asinh and acosh
/// are `log(x) + ln2`, taken as `log1p(x - 1) + ln2` (`x - 1` is exact
/// below 2^53 and the `+1` is far below an ulp above), one log for both.
const BIG: f64 = 268_435_456.0; // 2^28

/// Past this `m / (m + 1)` rounds to 1: `m` is clamped there, which keeps
/// Dekker's products in [`residual`] from overflowing.
const RATIO_ONE: f64 = 1_152_921_504_606_846_976.0; // 2^60

/// `m / (m + k)` for `m >= 0` and `k` 1 or 2, within about half an ulp:
/// the quotient of the exact sum `m + k` (as hi + lo), corrected by its
/// remainder times `1 / (m + k) = (1 - q) / k` (no second division).
#[inline(always)]
fn ratio<const F: bool>(m: f64, k: f64) -> f64 {
    let (d, d_lo) = two_sum(k, m);
    let q = m / d;
    let rem = residual::<F>(q, d, m) - q * d_lo;
    fma::<F>(rem, (1.0 - q) / k, q)
}

guarded_kind! {
    /// `np.sinh`: `(m + m/(m + 1)) / 2` with `m = expm1|x|`, both terms of
    /// the sign of `x` (`e^x - e^-x` would cancel near 0).
    pub(crate) struct Sinh;
    fast<F>(x) {
        let m = expm1::<F>(x.abs());
        (0.5 * (m + ratio::<F>(clamp(m, 0.0, RATIO_ONE), 1.0))).copysign(x)
    }
    outside(x) { x.abs() > EXP_SAFE }
    slow(x) { x.sinh() }
}

guarded_kind! {
    /// `np.cosh`: `e/2 + 1/(2e)` with `e = e^|x|`.
    pub(crate) struct Cosh;
    fast<F>(x) {
        let e = exp::<F>(x.abs());
        0.5 * e + 0.5 / e
    }
    outside(x) { x.abs() > EXP_SAFE }
    slow(x) { x.cosh() }
}

unary_kernels!(f64:
    /// `np.tanh` on float64: `m / (m + 2)` with `m = expm1(2|x|)`.
    pub(crate) Tanh => tanh,
);

/// [`Tanh`]'s element function.
#[inline(always)]
fn tanh<const F: bool>(x: f64) -> f64 {
    // `clamp` keeps a NaN, which then propagates.
    let m = expm1::<F>(2.0 * clamp(x.abs(), 0.0, TANH_SATURATE));
    ratio::<F>(m, 2.0).copysign(x)
}

guarded_kind! {
    /// `np.arcsinh`: `log1p(a + a^2 / (1 + sqrt(1 + a^2)))`, `a = |x|`; inf
    /// and NaN to libm (the logarithm then needs no edge selects).
    pub(crate) struct ArcSinh;
    fast<F>(x) {
        let a = x.abs();
        let big = a > BIG;
        // a^2 overflows for the big elements: that branch is not taken.
        let y = if big {
            a - 1.0
        } else {
            a + a * a / (1.0 + (1.0 + a * a).sqrt())
        };
        (log1p_inside::<F>(y) + if big { LN2 } else { 0.0 }).copysign(x)
    }
    outside(x) { !x.is_finite() }
    slow(x) { x.asinh() }
}

guarded_kind! {
    /// `np.arccosh`: `log1p(t + sqrt(2t + t^2))`, `t = x - 1` (exact); below
    /// 1, inf and NaN to libm.
    pub(crate) struct ArcCosh;
    fast<F>(x) {
        let t = x - 1.0;
        let big = x > BIG;
        let y = if big { t } else { t + (2.0 * t + t * t).sqrt() };
        log1p_inside::<F>(y) + if big { LN2 } else { 0.0 }
    }
    outside(x) { !(1.0..f64::INFINITY).contains(&x) }
    slow(x) { x.acosh() }
}

guarded_kind! {
    /// `np.arctanh`: `log1p(2a + 2a^2/(1 - a)) / 2` below 1/2, where the
    /// correction is small, and `log1p(2a / (1 - a)) / 2` above (`1 - a`
    /// exact); ±1, beyond and NaN to libm.
    pub(crate) struct ArcTanh;
    fast<F>(x) {
        let a = x.abs();
        let d = 1.0 - a;
        let y = if a < 0.5 {
            2.0 * a + 2.0 * a * a / d
        } else {
            2.0 * a / d
        };
        (0.5 * log1p_inside::<F>(y)).copysign(x)
    }
    outside(x) { x.abs() >= 1.0 || x.is_nan() }
    slow(x) { x.atanh() }
}
