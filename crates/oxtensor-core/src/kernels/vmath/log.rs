//! `log`, `log2`, `log10` and `log1p` of one `f64`, branch-free so that a
//! loop of them vectorises, and their guarded loops (libm for the edges). `x = 2^e (1 + f)` with `1 + f` in
//! [sqrt(1/2), sqrt(2)), then `log(1 + f) = 2 atanh(s)`, `s = f / (2 + f)`,
//! its leading terms in double-double, so the sum with `e ln2` (or the
//! change of base) is within 2^-56 before the one rounding: all four are
//! within 0.62 ulp (measured against mpmath), exact at powers of the base.
//! `pow` uses a more precise core (2^-64), since `y` multiplies the error.

use super::dd::{fast_two_sum, residual, two_prod, two_sum};
use super::exp::{fma, SHIFTER};
use super::exp::{pair, LN2_HI, LN2_LO};
use super::guarded::guarded_kind;

/// The bits of sqrt(1/2): `x` is split so that `1 + f` starts here.
const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;
const ONE_BITS: u64 = 0x3ff0_0000_0000_0000;
/// 2^52 as the bits of a double: `TWO52_BITS | n` is `2^52 + n`.
const TWO52_BITS: u64 = 0x4330_0000_0000_0000;
const TWO52: f64 = 4_503_599_627_370_496.0;
/// 2/3 as a double-double.
const TWO_THIRDS: f64 = 0.666_666_666_666_666_6;
const TWO_THIRDS_LO: f64 = 3.700_743_415_417_188e-17;
/// 1/ln2 and 1/ln10 (log2(e), log10(e)) as double-doubles.
const INV_LN2: f64 = std::f64::consts::LOG2_E;
const INV_LN2_LO: f64 = 2.035_527_374_093_103_3e-17;
const INV_LN10: f64 = std::f64::consts::LOG10_E;
const INV_LN10_LO: f64 = 1.098_319_650_216_765e-17;
/// log10(2) in two parts, the first with 21 trailing zero bits (so `e`
/// times it is exact).
const LG2_HI: f64 = f64::from_bits(0x3fd3_4413_5080_0000);
const LG2_LO: f64 = 1.145_110_089_802_183_8e-10;
/// `P(z) = (2 atanh(s)/s - 2 - 2z/3) / z^2` with `z = s^2` on [0, 0.0295]:
/// a Chebyshev fit (mpmath `chebyfit`, 200-bit arithmetic) whose error,
/// times `s^5`, is below 2^-66 of `log(1 + f)`.
const P: [f64; 8] = [
    0.4,
    0.285_714_285_714_293_64,
    0.222_222_222_216_558_85,
    0.181_818_183_353_928_02,
    0.153_845_949_625_184_3,
    0.133_348_046_938_473_1,
    0.117_062_363_394_912_06,
    0.117_231_786_238_765_18,
];
/// `log1p` is `x` (rounded) below this.
const LOG1P_TINY: f64 = 1.0 / (1u64 << 54) as f64;

/// `x = 2^e (1 + f)`, `1 + f` in [sqrt(1/2), sqrt(2)): `(e, f)` for
/// positive normal finite `x` (other inputs give finite garbage, for the
/// caller to select away or leave to libm). `f` is exact.
#[inline(always)]
pub(super) fn split_normal(x: f64) -> (f64, f64) {
    let bits = x.to_bits();
    // The biased exponent of x / sqrt(1/2), without a signed shift (AVX2
    // has none for 64-bit lanes).
    let eb = bits.wrapping_add(ONE_BITS - SQRT_HALF_BITS) >> 52;
    let m = f64::from_bits(bits.wrapping_sub((eb << 52).wrapping_sub(ONE_BITS)));
    // `eb` (at most 12 bits) to a double without a 64-bit integer convert.
    let e = f64::from_bits(TWO52_BITS | eb) - (TWO52 + 1023.0);
    (e, m - 1.0)
}

/// `P(z)` in Estrin's scheme.
#[inline(always)]
fn poly<const F: bool>(z: f64) -> f64 {
    let z2 = z * z;
    let a = fma::<F>(pair::<F>(&P, 2, z), z2, pair::<F>(&P, 0, z));
    let b = fma::<F>(pair::<F>(&P, 6, z), z2, pair::<F>(&P, 4, z));
    fma::<F>(b, z2 * z2, a)
}

/// `log(1 + f + f_lo)` for `1 + f` in [sqrt(1/2), sqrt(2)) and `|f_lo|`
/// below an ulp of 1, as a double-double `(h, l)` within 2^-64 relative:
/// `2s + 2s^3/3 + s^5 P(s^2)`, the first two terms in double-double.
#[inline(always)]
pub(super) fn log1p_dd<const F: bool>(f: f64, f_lo: f64) -> (f64, f64) {
    // s = (f + f_lo) / (2 + f + f_lo) = s + s_lo; `2 + f = u + u_lo`.
    let u = 2.0 + f;
    let u_lo = (f - (u - 2.0)) + f_lo;
    let d = 1.0 / u;
    let s = f * d;
    let s_lo = (residual::<F>(s, u, f) + (f_lo - s * u_lo)) * d;
    // (2/3) s^3 = t + t_lo, from s^2 = z + z_lo and s^3 = c + c_lo.
    let (z, z_lo) = two_prod::<F>(s, s);
    let (c, c_lo) = two_prod::<F>(s, z);
    let c_lo = c_lo + fma::<F>(s, z_lo, 3.0 * z * s_lo);
    let (t, t_lo) = two_prod::<F>(c, TWO_THIRDS);
    let t_lo = t_lo + fma::<F>(c, TWO_THIRDS_LO, c_lo * TWO_THIRDS);
    let (h, h_lo) = fast_two_sum(2.0 * s, t);
    let rest = (s * z) * (z * poly::<F>(z));
    (h, h_lo + (2.0 * s_lo + (t_lo + rest)))
}

/// `log(1 + f + f_lo)` as [`log1p_dd`] takes it, as a double-double within
/// about 2^-56 relative, for the logarithms themselves (`pow` needs
/// [`log1p_dd`]'s 2^-64): `f - f^2/2 + s (f^2/2 + R(s^2))` (fdlibm's
/// arrangement), the first two terms exact, the rest at most 4% of the sum.
/// `LO`: whether `f_lo` may be nonzero (`log1p`); without, its correction
/// is left out, not computed as a product with 0 (LLVM may not drop it).
#[inline(always)]
pub(super) fn log1p_fast<const F: bool, const LO: bool>(f: f64, f_lo: f64) -> (f64, f64) {
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * fma::<F>(z, poly::<F>(z), TWO_THIRDS);
    let (hf, hf_lo) = two_prod::<F>(0.5 * f, f);
    // |f| > f^2/2 for |f| < 2, so the sum and its error are exact.
    let (hi, lo) = fast_two_sum(f, -hf);
    let tail = if LO {
        // f_lo / (1 + f), with 1 / (1 + f) = (1 - s)^2 (1 + z) to z^2 < 2^-10.
        let t = 1.0 - s;
        fma::<F>(s, hf + r, f_lo * (t * t) * (1.0 + z))
    } else {
        s * (hf + r)
    };
    (hi, (lo - hf_lo) + tail)
}

/// `e ln2 + (h + l)` as a double-double, `e` an integer below 2^21.
#[inline(always)]
pub(super) fn add_e_ln2<const F: bool>(e: f64, h: f64, l: f64) -> (f64, f64) {
    // |e LN2_HI| >= ln2 > |h| unless e = 0, when the sum is exact.
    let (s, s_lo) = fast_two_sum(e * LN2_HI, h);
    (s, s_lo + fma::<F>(e, LN2_LO, l))
}

/// The result for `x` outside (0, inf): -inf at ±0, NaN below 0, `x` at
/// +inf and NaN; `y` inside.
#[inline(always)]
fn edges(x: f64, y: f64) -> f64 {
    let edge = if x == 0.0 {
        f64::NEG_INFINITY
    } else if x < 0.0 {
        f64::NAN
    } else {
        x
    };
    if x > 0.0 && x < f64::INFINITY {
        y
    } else {
        edge
    }
}

/// The natural logarithm within 0.62 ulp, of a positive normal finite `x`.
#[inline(always)]
pub(super) fn log_normal<const F: bool>(x: f64) -> f64 {
    let (e, f) = split_normal(x);
    let (h, l) = log1p_fast::<F, false>(f, 0.0);
    let (s, s_lo) = add_e_ln2::<F>(e, h, l);
    s + s_lo
}

/// `e c + (h + l) m` rounded, for `c = c_hi + c_lo` (`c_hi` with 21 trailing
/// zero bits) and `m = m_hi + m_lo` the change of base.
#[inline(always)]
fn rebase<const F: bool>(e: f64, (h, l): (f64, f64), c: (f64, f64), m: (f64, f64)) -> f64 {
    let (p, p_lo) = two_prod::<F>(h, m.0);
    let p_lo = p_lo + fma::<F>(h, m.1, l * m.0);
    // |e c_hi| > |p| unless e = 0 (then exact), as in `add_e_ln2`.
    let (s, s_lo) = fast_two_sum(e * c.0, p);
    s + (s_lo + fma::<F>(e, c.1, p_lo))
}

/// The base-2 logarithm within 0.62 ulp, exact at powers of two, of a
/// positive normal finite `x`.
#[inline(always)]
fn log2_normal<const F: bool>(x: f64) -> f64 {
    let (e, f) = split_normal(x);
    let h = log1p_fast::<F, false>(f, 0.0);
    rebase::<F>(e, h, (1.0, 0.0), (INV_LN2, INV_LN2_LO))
}

/// The base-10 logarithm within 0.62 ulp, of a positive normal finite `x`.
#[inline(always)]
fn log10_normal<const F: bool>(x: f64) -> f64 {
    let (e, f) = split_normal(x);
    let h = log1p_fast::<F, false>(f, 0.0);
    rebase::<F>(e, h, (LG2_HI, LG2_LO), (INV_LN10, INV_LN10_LO))
}

/// `log(1 + x)` for `x` in (-1, inf) (other inputs give garbage, for the
/// callers to select away); `+0` and `-0` both give `+0`, tiny `x` gives
/// `x` (`x` is then the correction `f_lo`, and the rest 0).
#[inline(always)]
pub(super) fn log1p_inside<const F: bool>(x: f64) -> f64 {
    // 1 + x = u + c exactly; u = 2^e (1 + f), so 1 + x = 2^e (1 + f + c 2^-e).
    // u is at least 2^-53 (x > -1 is at most 1 - 2^-53): normal.
    let (u, c) = two_sum(1.0, x);
    let (e, f) = split_normal(u);
    // 2^-e from its exponent bits (SHIFTER's trick); past e = 64, c/u is
    // far below an ulp of the result, and 2^-e may not be a normal double.
    let inv = f64::from_bits((SHIFTER + (1023.0 - e)).to_bits() << 52);
    let f_lo = if e > 64.0 { 0.0 } else { c * inv };
    let (h, l) = log1p_fast::<F, true>(f, f_lo);
    let (s, s_lo) = add_e_ln2::<F>(e, h, l);
    s + s_lo
}

/// `x` where `log1p(x)` rounds to it (`-0` included), else `y`.
#[inline(always)]
fn log1p_tiny(x: f64, y: f64) -> f64 {
    if x.abs() < LOG1P_TINY {
        x
    } else {
        y
    }
}

/// `log(1 + x)` within 0.62 ulp, for every `f64` (`-0` and tiny `x` give
/// `x`), for functions built on it.
#[inline(always)]
pub(crate) fn log1p<const F: bool>(x: f64) -> f64 {
    log1p_tiny(x, edges(1.0 + x, log1p_inside::<F>(x)))
}

/// Whether `x` is outside the positive normal finite doubles.
#[inline(always)]
fn not_normal(x: f64) -> bool {
    !(f64::MIN_POSITIVE..f64::INFINITY).contains(&x)
}

/// The logarithms' loops: the branch-free paths above over positive normal
/// finite inputs, the C library's function for the rest (subnormals, zeros,
/// negatives, inf and NaN). Taking the edges out of the vector code is
/// about a third of its work (measured: log 0.87 to 0.57 ns an element).
macro_rules! guarded_logs {
    ($($name:ident: $fast:ident, $outside:expr, $slow:expr;)*) => {$(
        guarded_kind! {
            pub(super) struct $name;
            fast<F>(x) { $fast::<F>(x) }
            outside(x) { $outside(x) }
            slow(x) { $slow(x) }
        }
    )*};
}

/// `log1p` for `x > -1` finite (the tiny selected inside: zeros are
/// common, and stay in the vector code).
#[inline(always)]
fn log1p_fast_path<const F: bool>(x: f64) -> f64 {
    log1p_tiny(x, log1p_inside::<F>(x))
}

guarded_logs! {
    Ln: log_normal, not_normal, f64::ln;
    Log2: log2_normal, not_normal, f64::log2;
    Log10: log10_normal, not_normal, f64::log10;
    Log1p: log1p_fast_path, |x: f64| !(x > -1.0 && x < f64::INFINITY), f64::ln_1p;
}
