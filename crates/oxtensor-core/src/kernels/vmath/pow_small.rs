//! `x ** y` for `y` an integer or half-integer with `|y| <= 16` (`x ** 2`,
//! `x ** 0.5`, `x ** -1.5`, ...): `x^n` by binary powering and `sqrt(x)`
//! for the half, in double-double, then a double-double reciprocal for
//! `y < 0`, rounded once: within 0.5 ulp plus 2^-100 relative, several
//! times cheaper than `exp(y log x)`. Only exact transformations and
//! correctly rounded operations are used (no FMA-dependent step), so every
//! build gives the same bits, and the scalar path of the general loop can
//! redo such elements with the same values. Inputs whose powers could
//! leave the normal range (`|x|` outside [2^-60, 2^60]), zeros, infinities
//! and NaN take the C library's `pow`.

use super::dd::{fast_two_sum, two_prod};
use super::exp::SHIFTER;
use super::guarded::Guarded2;

/// The largest `|y|` taken here: five squarings.
const Y_MAX: f64 = 16.0;
/// `|x|` range: `|x|^16` stays within [2^-960, 2^960], where every
/// double-double product and its error term are normal.
const X_LO: f64 = 8.673_617_379_884_035e-19; // 2^-60
const X_HI: f64 = 1_152_921_504_606_846_976.0; // 2^60

/// Whether `y` is an integer or half-integer with `|y| <= 16`.
#[inline(always)]
pub(super) fn fits(y: f64) -> bool {
    let t = 2.0 * y.abs();
    // Adding 1.5 * 2^52 rounds `t` to an integer; equal when it was one.
    y.abs() <= Y_MAX && (t + SHIFTER) - SHIFTER == t
}

/// Whether `x`'s powers up to the 16th stay normal.
#[inline(always)]
pub(super) fn in_range(x: f64) -> bool {
    (X_LO..=X_HI).contains(&x.abs())
}

/// `(a + a_lo)(b + b_lo)` as a double-double; plain operations after the
/// exact product, so no build fuses them differently.
#[inline(always)]
fn mul_dd<const F: bool>((a, a_lo): (f64, f64), (b, b_lo): (f64, f64)) -> (f64, f64) {
    let (p, e) = two_prod::<F>(a, b);
    fast_two_sum(p, e + (a * b_lo + a_lo * b))
}

/// `sqrt(x)` as a double-double: the residual `x - s^2` is a double, so
/// `(x - p) - e` computes it exactly in every build.
#[inline(always)]
fn sqrt_dd<const F: bool>(x: f64) -> (f64, f64) {
    let s = x.sqrt();
    let (p, e) = two_prod::<F>(s, s);
    (s, ((x - p) - e) / (2.0 * s))
}

/// `1 / (h + l)` rounded to a double, as `q + q r` with `r` the residual.
#[inline(always)]
fn recip<const F: bool>((h, l): (f64, f64)) -> f64 {
    let q = 1.0 / h;
    let (p, e) = two_prod::<F>(q, h);
    // 1 - q h is exactly representable, so this is exact too.
    let r = ((1.0 - p) - e) - q * l;
    q + q * r
}

/// `x ** y` for [`fits`] `y` and [`in_range`] `x` (NaN for a negative
/// `x` to a half-integer power, as C's `pow`), `|y| < 2^K`: `K` squarings
/// (more give the same bits; fewer drop the high bits of `|y|`).
#[inline(always)]
pub(super) fn pow_small<const F: bool, const K: u32>(x: f64, y: f64) -> f64 {
    // 2|y| is an integer up to 32: its bits are the half, then n's bits.
    let bits = (2.0 * y.abs() + SHIFTER).to_bits();
    // Computed whatever the half, then selected (work in a select's arm
    // may stay a branch, which keeps the loop from vectorising).
    let root = sqrt_dd::<F>(x);
    let half = bits & 1 == 1;
    let mut acc = (
        if half { root.0 } else { 1.0 },
        if half { root.1 } else { 0.0 },
    );
    let mut base = (x, 0.0);
    // A `Range` (an inclusive one may unroll too late to vectorise).
    for k in 0..K {
        let with = mul_dd::<F>(acc, base);
        let set = (bits >> (k + 1)) & 1 == 1;
        acc = (
            if set { with.0 } else { acc.0 },
            if set { with.1 } else { acc.1 },
        );
        if k + 1 < K {
            base = mul_dd::<F>(base, base);
        }
    }
    let pos = acc.0 + acc.1;
    let neg = recip::<F>(acc);
    if y < 0.0 {
        neg
    } else {
        pos
    }
}

/// The bit length of `floor(|y|)`: the `K` [`pow_small`] needs for `y`.
pub(super) fn bit_length(y: f64) -> u32 {
    u64::BITS - (y.abs() as u64).leading_zeros()
}

/// `x ** y` for [`fits`] `y`, `|y| < 2^K`, and float32 `x` nonzero and
/// finite, in plain float64 (the float32 loops'): each product and the
/// root rounded once, so within `(K + 2) 2^-53` relative before the
/// rounding to float32, which is then correct but within 2^-26 ulp of a
/// tie. Correctly rounded operations only: every build gives the same bits.
/// Overflow and underflow in float64 are overflow and underflow in float32.
#[inline(always)]
pub(super) fn pow_small32<const K: u32>(x: f64, y: f64) -> f64 {
    let bits = (2.0 * y.abs() + SHIFTER).to_bits();
    let root = x.sqrt();
    let mut acc = if bits & 1 == 1 { root } else { 1.0 };
    let mut base = x;
    for k in 0..K {
        let with = acc * base;
        acc = if (bits >> (k + 1)) & 1 == 1 {
            with
        } else {
            acc
        };
        base *= base;
    }
    let inv = 1.0 / acc;
    if y < 0.0 {
        inv
    } else {
        acc
    }
}

/// Whether the float32 `x` (widened) takes [`pow_small32`]: zeros, inf and
/// NaN take C's `pow` (`pow(-0, 1/2)` is +0, `sqrt(-0)` -0).
#[inline(always)]
pub(super) fn in_range32(x: f64) -> bool {
    x != 0.0 && x.abs() < f64::INFINITY
}

/// [`pow_small_scalar`] for float32 values.
pub(super) fn pow_small32_scalar(x: f64, y: f64) -> f64 {
    if in_range32(x) {
        pow_small32::<5>(x, y)
    } else {
        x.powf(y)
    }
}

/// The value of `x ** y` for [`fits`] `y`, scalar: [`pow_small`] in
/// range, the C library's `pow` elsewhere (as [`PowSmall`]'s loop).
pub(super) fn pow_small_scalar(x: f64, y: f64) -> f64 {
    if in_range(x) {
        pow_small::<false, 5>(x, y)
    } else {
        x.powf(y)
    }
}

/// The loop for one exponent that [`fits`] with [`bit_length`] at most `K`,
/// repeated over the block: [`pow_small`] for float64 (`DD`),
/// [`pow_small32`] for float32.
pub(super) struct PowSmall<const K: u32, const DD: bool>;

impl<const K: u32, const DD: bool> Guarded2 for PowSmall<K, DD> {
    #[inline(always)]
    fn fast<const F: bool>(x: f64, y: f64) -> f64 {
        if DD {
            pow_small::<F, K>(x, y)
        } else {
            pow_small32::<K>(x, y)
        }
    }
    #[inline(always)]
    fn outside(x: f64, _y: f64) -> bool {
        if DD {
            !in_range(x)
        } else {
            !in_range32(x)
        }
    }
    fn slow(x: f64, y: f64) -> f64 {
        x.powf(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::cpu::levels;
    use crate::kernels::elemwise::map::Part;
    use crate::kernels::vmath::test_support::{ulps, ulps32, Rng};
    use crate::kernels::vmath::Elem;

    #[test]
    fn exponents_taken() {
        for y in [0.0, -0.0, 0.5, 1.0, 2.0, 2.5, -1.0, -1.5, 15.5, 16.0, -16.0] {
            assert!(fits(y), "{y}");
        }
        for y in [0.25, 16.5, -17.0, 1e300, f64::NAN, f64::INFINITY, 1.0 / 3.0] {
            assert!(!fits(y), "{y}");
        }
        assert_eq!(
            (bit_length(0.5), bit_length(2.5), bit_length(-16.0)),
            (0, 2, 5)
        );
    }

    /// `pow_at` with one exponent (the small loop) and with a slice of it
    /// (the general loop, which leaves such elements to its scalar path).
    fn both(lvl: crate::kernels::cpu::Level, xs: &[f64], y: f64) -> [Vec<f64>; 2] {
        let mut one = vec![0.0; xs.len()];
        f64::pow_at(lvl, &mut one, Part::Full(xs), Part::One(y));
        let mut full = vec![0.0; xs.len()];
        let ys = vec![y; xs.len()];
        f64::pow_at(lvl, &mut full, Part::Full(xs), Part::Full(&ys));
        [one, full]
    }

    #[test]
    fn within_an_ulp_of_libm_and_the_same_bits_everywhere() {
        let mut rng = Rng(71);
        let mut xs = rng.log_uniforms(4_000, -75.0, 75.0);
        xs.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            5e-324,
            -1e-310,
            f64::MAX,
            f64::INFINITY,
        ]);
        xs.extend([f64::NEG_INFINITY, f64::NAN, X_LO, X_HI, -X_HI]);
        for k in -32..=32 {
            let y = f64::from(k) / 2.0;
            let mut first: Option<Vec<u64>> = None;
            for lvl in levels() {
                for out in both(lvl, &xs, y) {
                    for (x, z) in xs.iter().zip(&out) {
                        let want = x.powf(y);
                        assert!(
                            ulps(*z, want) <= 1,
                            "{x:e} ** {y} = {z:e} at {lvl:?}, libm {want:e}"
                        );
                    }
                    let bits: Vec<u64> = out.iter().map(|z| z.to_bits()).collect();
                    assert!(first.get_or_insert(bits.clone()) == &bits, "{y} at {lvl:?}");
                }
            }
        }
    }

    #[test]
    fn float32_within_an_ulp_and_the_same_bits_everywhere() {
        let mut rng = Rng(72);
        let mut xs = rng.log_uniforms32(4_000, -149.0, 127.0);
        xs.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ]);
        for k in -32..=32 {
            let y = k as f32 / 2.0;
            let mut one = vec![0.0f32; xs.len()];
            f32::pow_at(levels()[0], &mut one, Part::Full(&xs), Part::One(y));
            for lvl in levels() {
                let mut full = vec![0.0f32; xs.len()];
                f32::pow_at(
                    lvl,
                    &mut full,
                    Part::Full(&xs),
                    Part::Full(&vec![y; xs.len()]),
                );
                for ((x, a), b) in xs.iter().zip(&one).zip(&full) {
                    let want = f64::from(*x).powf(f64::from(y)) as f32;
                    assert!(ulps32(*a, want) <= 1, "{x:e} ** {y} = {a:e}, libm {want:e}");
                    assert!(
                        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                        "{x:e} ** {y} at {lvl:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn exact_powers_are_exact() {
        for (x, y, want) in [
            (3.0, 5.0, 243.0),
            (4.0, 2.5, 32.0),
            (2.0, -1.5, 0.353_553_390_593_273_8),
        ] {
            assert_eq!(pow_small::<true, 3>(x, y), want);
            assert_eq!(pow_small_scalar(x, y), want);
        }
        assert!(pow_small::<true, 2>(-4.0, 2.5).is_nan());
        assert_eq!(pow_small::<true, 2>(-2.0, 3.0), -8.0);
    }
}
