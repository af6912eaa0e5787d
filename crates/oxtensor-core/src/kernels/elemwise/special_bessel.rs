//! Bessel functions of real order: `j0`, `j1`, `jv`, `i0`, `i1`, `iv`,
//! `ive` and `kve`, with SciPy's values at the edges.
//!
//! `puruspe` computes them (its `besseljy`/`besselik` are Temme's series
//! and Steed's continued fractions, good to ~1e-12 in our comparison with
//! SciPy); it needs `ν ≥ 0` and `x > 0`, so negative orders go through
//! the reflection formulas (DLMF 10.4.7, 10.27.2-3) and negative arguments
//! through parity for integer orders (NaN otherwise, as SciPy's real
//! functions give). Where its iterations would not converge (large `x`),
//! and for the exponentially scaled `ive` and `kve` past the range of
//! `exp`, the large-argument expansions (DLMF 10.17.3-4, 10.40.1-2) serve.

use std::f64::consts::{FRAC_2_PI, FRAC_PI_2, FRAC_PI_4, PI};

/// Past this `x`, the Hankel expansion replaces `besseljy` where it
/// converges: `besseljy` loses digits as `x` grows (4e-10 relative at
/// 5000) and runs out of iterations past ~10⁴.
const JY_LARGE: f64 = 25.0;
/// Past this `x`, `e^x` nears the float range: the scaled expansions of
/// `I` and `K` take over.
const IK_LARGE: f64 = 600.0;

/// `puruspe`'s iterations take ~x steps (its continued fractions, which
/// panic past 10⁴) and ~ν steps (its recurrence): it is not called beyond
/// these bounds.
const PURUSPE_MAX_X: f64 = 5000.0;
const PURUSPE_MAX_NU: f64 = 10000.0;

fn in_puruspe_range(nu: f64, x: f64) -> bool {
    x <= PURUSPE_MAX_X && nu <= PURUSPE_MAX_NU
}

/// `(x/2)^ν / Γ(ν+1) Σₖ (±x²/4)ᵏ / (k! (ν+1)ₖ)`, the power series of J_ν
/// (`sign` -1) and I_ν (+1) (DLMF 10.2.2, 10.25.2), for `x² < ν` (orders
/// beyond `puruspe`'s range), where a few terms reach the rounding level.
fn power_series(nu: f64, x: f64, sign: f64) -> f64 {
    let q = sign * x * x / 4.0;
    let (mut term, mut sum) = (1.0_f64, 1.0_f64);
    for k in 1..100 {
        let k = k as f64;
        term *= q / (k * (nu + k));
        sum += term;
        if term.abs() <= f64::EPSILON * sum.abs() {
            break;
        }
    }
    (nu * (x / 2.0).ln() - libm::lgamma(nu + 1.0)).exp() * sum
}

fn is_int(v: f64) -> bool {
    v == v.floor()
}

/// `(-1)^n` for an integer-valued `n`.
fn parity(n: f64) -> f64 {
    if (n * 0.5) == (n * 0.5).floor() {
        1.0
    } else {
        -1.0
    }
}

/// `sin(πν)` and `cos(πν)`, exact at integers and half-integers.
fn sin_cos_pi(nu: f64) -> (f64, f64) {
    let r = nu.rem_euclid(2.0);
    if r == 0.0 {
        (0.0, 1.0)
    } else if r == 0.5 {
        (1.0, 0.0)
    } else if r == 1.0 {
        (0.0, -1.0)
    } else if r == 1.5 {
        (-1.0, 0.0)
    } else {
        (PI * r).sin_cos()
    }
}

/// J₀(x).
pub(crate) fn j0(x: f64) -> f64 {
    from_abs(x, false, |x| puruspe::Jn(0, x))
}

/// J₁(x), odd.
pub(crate) fn j1(x: f64) -> f64 {
    from_abs(x, true, |x| puruspe::Jn(1, x))
}

/// I₀(x), even.
pub(crate) fn i0(x: f64) -> f64 {
    from_abs(x, false, |x| puruspe::In(0, x))
}

/// I₁(x), odd.
pub(crate) fn i1(x: f64) -> f64 {
    from_abs(x, true, |x| puruspe::In(1, x))
}

/// An even or odd function from its values at `|x|` (times `x`'s sign if
/// odd); NaN passes through, never reaching puruspe.
fn from_abs(x: f64, odd: bool, at_abs: fn(f64) -> f64) -> f64 {
    if x.is_nan() {
        x
    } else if odd {
        x.signum() * at_abs(x.abs())
    } else {
        at_abs(x.abs())
    }
}

/// The value at `x = 0` of `J_v` and `I_v` (both start as (x/2)^v / Γ(v+1)).
fn at_zero(v: f64) -> f64 {
    if v == 0.0 {
        1.0
    } else if v > 0.0 || is_int(v) {
        0.0
    } else {
        f64::INFINITY
    }
}

/// `f(v, x)` for negative `x` by parity (integer orders), NaN otherwise.
fn by_parity(v: f64, x: f64, f: fn(f64, f64) -> f64) -> f64 {
    if is_int(v) {
        parity(v) * f(v, -x)
    } else {
        f64::NAN
    }
}

/// `f(v, x)` (J_v, I_v or their scaling) where the arguments settle it:
/// NaN for NaN, by parity for negative `x`, [`at_zero`] at 0; `None`
/// where `f` must compute.
fn settled(v: f64, x: f64, f: fn(f64, f64) -> f64) -> Option<f64> {
    if v.is_nan() || x.is_nan() {
        Some(f64::NAN)
    } else if x < 0.0 {
        Some(by_parity(v, x, f))
    } else if x == 0.0 {
        Some(at_zero(v))
    } else {
        None
    }
}

/// J_v(x) of a real order.
pub(crate) fn jv(v: f64, x: f64) -> f64 {
    if let Some(settled) = settled(v, x, jv) {
        return settled;
    }
    if v < 0.0 && is_int(v) {
        return parity(v) * jv(-v, x);
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let nu = v.abs();
    let (j, y) = match hankel(nu, x) {
        Some(jy) if x > JY_LARGE => jy,
        _ if in_puruspe_range(nu, x) => {
            let (j, y, _, _) = puruspe::bessel::besseljy(nu, x);
            (j, y)
        }
        // Y_ν is not needed for ν ≥ 0; it overflows for ν ≫ x anyway.
        _ if x * x < nu && v >= 0.0 => (power_series(nu, x, -1.0), f64::NAN),
        _ => return f64::NAN,
    };
    if v >= 0.0 {
        j
    } else {
        let (s, c) = sin_cos_pi(nu);
        c * j - s * y
    }
}

/// The coefficients `a_k(ν) / x^k` of the large-argument expansions,
/// summed by `combine(k, term)` while they shrink to the rounding level;
/// whether they got there (the expansion diverges before that for `ν²`
/// large against `x`).
fn asymptotic_terms(nu: f64, x: f64, mut combine: impl FnMut(usize, f64)) -> bool {
    let mu = 4.0 * nu * nu;
    let mut term = 1.0_f64;
    combine(0, term);
    for k in 1..400 {
        let odd = (2 * k - 1) as f64;
        let next = term * (mu - odd * odd) / (k as f64 * 8.0 * x);
        if next == 0.0 {
            return true;
        }
        if next.abs() > term.abs() {
            return false;
        }
        term = next;
        combine(k, term);
        if term.abs() < 1e-17 {
            return true;
        }
    }
    false
}

/// `(J_ν(x), Y_ν(x))` for large `x` (DLMF 10.17.3-4), where the
/// expansion converges to the rounding level.
fn hankel(nu: f64, x: f64) -> Option<(f64, f64)> {
    let (mut p, mut q) = (0.0, 0.0);
    let converged = asymptotic_terms(nu, x, |k, t| {
        let sign = if (k / 2) % 2 == 0 { 1.0 } else { -1.0 };
        if k % 2 == 0 {
            p += sign * t;
        } else {
            q += sign * t;
        }
    });
    // ω = x - νπ/2 - π/4; x's reduction is left to sin/cos of x itself.
    let (sx, cx) = x.sin_cos();
    let (sp, cp) = (FRAC_PI_2 * nu + FRAC_PI_4).sin_cos();
    let (sw, cw) = (sx * cp - cx * sp, cx * cp + sx * sp);
    let amp = (FRAC_2_PI / x).sqrt();
    converged.then_some((amp * (p * cw - q * sw), amp * (p * sw + q * cw)))
}

/// `(e^-x I_ν(x), e^x K_ν(x))` for `ν ≥ 0`, `x > 0`.
fn scaled_ik(nu: f64, x: f64) -> (f64, f64) {
    let (mut i, mut k) = (0.0, 0.0);
    let converged = x > IK_LARGE
        && asymptotic_terms(nu, x, |n, t| {
            i += if n % 2 == 0 { t } else { -t };
            k += t;
        });
    if converged {
        (i / (2.0 * PI * x).sqrt(), k * (FRAC_PI_2 / x).sqrt())
    } else if in_puruspe_range(nu, x) {
        let (i, k, _, _) = puruspe::bessel::besselik(nu, x);
        let e = x.exp();
        (i / e, k * e)
    } else if x * x < nu {
        // K_ν(x) ≈ Γ(ν) (2/x)^ν / 2 overflows for such orders.
        (power_series(nu, x, 1.0) * (-x).exp(), f64::INFINITY)
    } else {
        (f64::NAN, f64::NAN)
    }
}

/// `e^-|x| I_v(x)` (`ive`).
pub(crate) fn ive(v: f64, x: f64) -> f64 {
    if let Some(settled) = settled(v, x, ive) {
        // SciPy's `ive` is NaN where `iv` is infinite (at x = 0).
        return if settled.is_infinite() && x == 0.0 {
            f64::NAN
        } else {
            settled
        };
    }
    let nu = v.abs();
    let (i, k) = scaled_ik(nu, x);
    if v >= 0.0 || is_int(v) {
        i
    } else {
        // I_{-ν} = I_ν + (2/π) sin(νπ) K_ν, each scaled by e^-x.
        i + FRAC_2_PI * sin_cos_pi(nu).0 * k * (-2.0 * x).exp()
    }
}

/// I_v(x) of a real order (`iv`).
pub(crate) fn iv(v: f64, x: f64) -> f64 {
    if let Some(settled) = settled(v, x, iv) {
        return settled;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    if x > IK_LARGE || !in_puruspe_range(v.abs(), x) {
        // e^x overflows past ~709: the scaled value times e^x does so too.
        ive(v, x) * x.exp()
    } else {
        let nu = v.abs();
        let (i, k, _, _) = puruspe::bessel::besselik(nu, x);
        if v >= 0.0 || is_int(v) {
            i
        } else {
            i + FRAC_2_PI * sin_cos_pi(nu).0 * k
        }
    }
}

/// `e^x K_v(x)` (`kve`), even in `v`.
pub(crate) fn kve(v: f64, x: f64) -> f64 {
    if v.is_nan() || x.is_nan() || x < 0.0 {
        f64::NAN
    } else if x == 0.0 {
        f64::INFINITY
    } else if x == f64::INFINITY {
        0.0
    } else {
        scaled_ik(v.abs(), x).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elemwise::special_check::{check_rows, close};

    #[test]
    fn bessels_match_scipy() {
        // ([v, x], [jv, iv, kve]) from scipy.special.
        check_rows(
            [
                ("jv", |[v, x]| jv(v, x)),
                ("iv", |[v, x]| iv(v, x)),
                ("kve", |[v, x]| kve(v, x)),
            ],
            &[
                (
                    [-3.7, 2.5],
                    [
                        -0.865_609_955_264_546_8,
                        -0.076_326_446_874_616_73,
                        6.641_401_736_639_823,
                    ],
                ),
                (
                    [4.5, 7.25],
                    [
                        0.230_116_804_365_269_32,
                        49.921_358_921_313_42,
                        1.651_937_456_933_282_5,
                    ],
                ),
                (
                    [0.0, 0.4],
                    [
                        0.960_398_226_659_563_4,
                        1.040_401_782_229_341_2,
                        1.662_682_089_124_300_6,
                    ],
                ),
            ],
            1e-11,
        );
    }

    #[test]
    fn large_arguments_join_the_direct_values() {
        for nu in [0.0, 0.5, 3.3, 9.0] {
            let (i, k) = scaled_ik(nu, IK_LARGE);
            let (ia, ka) = scaled_ik(nu, IK_LARGE + 1e-9);
            assert!(close(ia, i, 1e-12) && close(ka, k, 1e-12), "ν = {nu}");
            if nu > 4.0 {
                continue; // the Hankel expansion diverges at 25 (`besseljy` serves)
            }
            let (j, y, _, _) = puruspe::bessel::besseljy(nu, JY_LARGE);
            let (jh, yh) = hankel(nu, JY_LARGE).expect("converges at 25");
            assert!((j - jh).abs() < 1e-14 && (y - yh).abs() < 1e-14, "ν = {nu}");
        }
    }

    #[test]
    fn power_series_matches_scipy() {
        // scipy.special.jv(50, 3) and iv(50, 3): small against the order.
        assert!(close(
            power_series(50.0, 3.0, -1.0),
            2.005_949_025_849_725e-56,
            1e-13
        ));
        assert!(close(
            power_series(50.0, 3.0, 1.0),
            2.190_988_066_579_183_5e-56,
            1e-13
        ));
    }

    #[test]
    fn hankel_matches_mpmath_far_out() {
        // mpmath's besselj(0, 5000) and bessely(0, 5000).
        let (j, y) = hankel(0.0, 5000.0).expect("converges");
        assert!(close(j, -0.006_648_984_251_448_348, 1e-13));
        assert!(close(y, -0.009_116_740_769_643_963, 1e-13));
        assert!(hankel(40.0, 30.0).is_none());
    }

    #[test]
    fn edges_are_scipys() {
        assert_eq!(jv(0.0, 0.0), 1.0);
        assert_eq!(jv(-0.5, 0.0), f64::INFINITY);
        assert!(jv(0.5, -1.0).is_nan());
        assert_eq!(jv(2.0, -1.5), jv(2.0, 1.5));
        assert_eq!(jv(-3.0, 1.5), -jv(3.0, 1.5));
        assert_eq!(kve(1.0, 0.0), f64::INFINITY);
        assert_eq!(jv(1.0, f64::INFINITY), 0.0);
        assert_eq!(iv(1.0, f64::INFINITY), f64::INFINITY);
        // Past puruspe's range: the power series, or NaN; never its panics.
        assert!(close(jv(2e4, 30.0), power_series(2e4, 30.0, -1.0), 1e-15));
        assert!(jv(1e10, 1e10).is_nan());
        assert_eq!(kve(1e300, 3.5), f64::INFINITY);
        assert_eq!(ive(1e300, 3.5), 0.0);
        assert!(iv(1e10, 1e10).is_nan());
        assert_eq!(j1(-2.0), -j1(2.0));
        assert_eq!(i0(-2.0), i0(2.0));
    }
}
