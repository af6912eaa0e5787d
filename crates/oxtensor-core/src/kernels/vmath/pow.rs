//! `x ** y` for `f64`, branch-free: `exp(y log|x|)` with `log|x|` and its
//! product with `y` in double-double (the exponent's error is multiplied by
//! `|y log x|`, up to 745), and the sign of a negative `x` by selects; the
//! loop leaves zeros, subnormals, infinities and NaN to libm (C99's special
//! cases, NumPy's). [`pow_with`] has those cases as selects, for float32.

use super::dd::two_prod;
use super::exp::exp_dd;
use super::exp::fma;
use super::guarded::Guarded2;
use super::log::{add_e_ln2, log1p_dd, split_normal};
use super::pow_small::{fits, pow_small_scalar};

const TWO52: f64 = 4_503_599_627_370_496.0;
const TWO53: f64 = 9_007_199_254_740_992.0;
/// `|y|` from here on (where `x ** y` is 0, 1 or inf: every double but 1
/// is at least 2^-53 from it) goes to libm: Dekker's product (the build without FMA)
/// would overflow in `y log(1) = y * 0`, and nothing is gained in the
/// vector code.
const Y_MAX: f64 = 18_446_744_073_709_551_616.0; // 2^64

/// `|x| ** y` for positive normal finite `|x|` and finite `y`, within 1
/// ulp plus `|y log x|` times 2^-64.
#[inline(always)]
fn pow_abs<const F: bool>(ax: f64, y: f64) -> f64 {
    let (e, f) = split_normal(ax);
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

/// `x ** y` as NumPy (C99 `pow`) computes it, for `|x|` normal and finite
/// and `|y|` below [`Y_MAX`]: a negative `x` only to an integer power (else NaN),
/// `pow(x, 1) = x`.
#[inline(always)]
fn pow_normal<const F: bool>(x: f64, y: f64) -> f64 {
    let (int, odd) = parity(y);
    let mag = pow_abs::<F>(x.abs(), y);
    let r = f64::from_bits(mag.to_bits() | u64::from(x < 0.0 && odd) << 63);
    let r = if x < 0.0 && !int { f64::NAN } else { r };
    if y == 1.0 {
        x
    } else {
        r
    }
}

/// `np.power` on float64; the selects of [`pow_with`] left to libm, and
/// small integer and half-integer exponents to [`pow_small`](super::pow_small)
/// (which the loop for one such exponent runs over the whole slice).
pub(super) struct Pow;

impl Guarded2 for Pow {
    #[inline(always)]
    fn fast<const F: bool>(x: f64, y: f64) -> f64 {
        pow_normal::<F>(x, y)
    }
    #[inline(always)]
    fn outside(x: f64, y: f64) -> bool {
        let ax = x.abs();
        !((f64::MIN_POSITIVE..f64::INFINITY).contains(&ax) && y.abs() < Y_MAX) || fits(y)
    }
    fn slow(x: f64, y: f64) -> f64 {
        if fits(y) {
            pow_small_scalar(x, y)
        } else {
            x.powf(y)
        }
    }
}

/// C99 `pow`'s special cases around `mag`, `|x| ** y` computed as for
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
