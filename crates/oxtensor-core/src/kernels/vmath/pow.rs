//! `x ** y` for `f64`, branch-free: `exp(y log|x|)` with `log|x|` and its
//! product with `y` in double-double (the exponent's error is multiplied by
//! `|y log x|`, up to 745), then C99's special cases (NumPy's) by selects.

use super::dd::two_prod;
use super::exp::exp_dd;
use super::log::{add_e_ln2, decompose, log1p_dd};
use crate::kernels::fast_exp::fma;

const TWO52: f64 = 4_503_599_627_370_496.0;
const TWO53: f64 = 9_007_199_254_740_992.0;

/// `|x| ** y` for positive finite `|x|` (other values give something the
/// selects of [`pow`] replace), within 1 ulp plus `|y log x|` times 2^-64.
#[inline(always)]
fn pow_abs<const F: bool>(ax: f64, y: f64) -> f64 {
    let (e, f) = decompose(ax);
    let (h, l) = log1p_dd::<F>(f, 0.0);
    let (h, l) = add_e_ln2::<F>(e, h, l);
    let (p, p_lo) = two_prod::<F>(y, h);
    exp_dd::<F>(p, fma::<F>(y, l, p_lo))
}

/// Whether `y` is an integer, and an odd one (NaN: neither).
#[inline(always)]
fn parity(y: f64) -> (bool, bool) {
    let ay = y.abs();
    // Below 2^52, adding 2^52 rounds to an integer whose last bit is the
    // parity; from 2^52 on every double is an integer, even from 2^53.
    let t = if ay < TWO52 { ay + TWO52 } else { ay };
    let int = ay >= TWO52 || t - TWO52 == ay;
    (int, int && ay < TWO53 && t.to_bits() & 1 == 1)
}

/// `x ** y` as NumPy (C99 `pow`) computes it, for every pair of `f64`:
/// `pow(x, 0) = pow(1, y) = 1` even for NaN, a negative `x` only to an
/// integer power (else NaN), signed zeros and infinities at `x = ±0, ±inf`.
#[inline(always)]
pub(crate) fn pow<const F: bool>(x: f64, y: f64) -> f64 {
    pow_with(x, y, pow_abs::<F>(x.abs(), y))
}

/// [`pow`]'s special cases around `mag`, `|x| ** y` computed as for
/// positive finite `|x|` (whatever it is for other values is selected
/// away). A value, not a function: a function argument may stay out of
/// line, compiled without the caller's FMA.
#[inline(always)]
pub(super) fn pow_with(x: f64, y: f64, mag: f64) -> f64 {
    let ax = x.abs();
    let (int, odd) = parity(y);
    let mut r = mag;
    // |x| = 0 or inf, or y = ±inf: 0 or inf, as the sign of y log|x|.
    let infinite = ax == 0.0 || ax == f64::INFINITY || y.abs() == f64::INFINITY;
    let big = if (y > 0.0) == (ax > 1.0) {
        f64::INFINITY
    } else {
        0.0
    };
    r = if infinite { big } else { r };
    r = if ax == 1.0 { 1.0 } else { r };
    // The sign of x to an odd power (-0 included).
    let flip = u64::from(x.is_sign_negative() && odd) << 63;
    r = f64::from_bits(r.to_bits() | flip);
    r = if x < 0.0 && x > f64::NEG_INFINITY && !int {
        f64::NAN
    } else {
        r
    };
    r = if x.is_nan() || y.is_nan() { x + y } else { r };
    r = if y == 1.0 { x } else { r };
    if y == 0.0 || x == 1.0 {
        1.0
    } else {
        r
    }
}
