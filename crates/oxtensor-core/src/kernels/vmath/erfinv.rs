//! The inverse error functions `erfinv` and `erfcinv`. For `|p| <= 0.9966`
//! `erfinv(p) = p P(w)` with `w = -log(1 - p^2)` (in [0, 5]), one
//! polynomial, branch-free, so the loop vectorises (`erfcinv(q)` likewise,
//! with `1 - p^2 = q (2 - q)`); the tails go to the guarded loop's scalar
//! path: `puruspe`'s estimate refined by Halley steps on `libm`'s `erfc`,
//! which keeps full relative precision there. Measured against mpmath:
//! both within 2 ulp.

use super::exp::fma;
use super::guarded::guarded_kind;
use super::log::log_normal;
use super::poly::estrin;
use std::f64::consts::FRAC_2_SQRT_PI;

/// sqrt(pi)/2 as a double-double: `erfinv(p)/p` at 0.
const C0: f64 = 0.886226925452758;
const C0_LO: f64 = -3.8332932499128993e-17;
/// `(erfinv(p)/p - sqrt(pi)/2) / w` in `w - 2.5`, `w = -log(1 - p^2)` on
/// [0, 5]: a Chebyshev interpolant (mpmath, 50 digits); `erfinv(p)/p` from
/// it within 2^-57.
const ERFINV_R: [f64; 22] = [
    0.24607297026321356,
    0.00022692259238136944,
    -0.0017616961267060039,
    0.00020359528755803895,
    5.861990714456605e-06,
    -4.3432281254945584e-06,
    3.706434114395641e-07,
    4.3232723103675954e-08,
    -1.1926367555678642e-08,
    4.2607921356588607e-10,
    1.9248962789022888e-10,
    -2.9152934468350055e-11,
    -7.798689112465036e-13,
    6.765343558331482e-13,
    -5.638253552598092e-14,
    -7.889491910374859e-15,
    2.0078470436443033e-15,
    -4.548056556046135e-17,
    -3.700949862636189e-17,
    4.145539926636719e-18,
    3.4397118221917743e-19,
    -7.177495311532216e-20,
];
/// The polynomial's range in `p`: `w(0.9966) = 4.9925`.
const P_MAX: f64 = 0.9966;

/// `1 - p^2`, rounded once with FMA (at least 0.0068 for `|p| <= P_MAX`,
/// so normal).
#[inline(always)]
fn one_minus_square<const F: bool>(p: f64) -> f64 {
    if F {
        fma::<true>(-p, p, 1.0)
    } else {
        (1.0 - p) * (1.0 + p)
    }
}

/// `erfinv(p)` for `|p| <= P_MAX`, given `t = 1 - p^2` (`+0` at `±0`, as
/// SciPy gives).
#[inline(always)]
fn erfinv_central<const F: bool>(p: f64, t: f64) -> f64 {
    let w = -log_normal::<F>(t);
    // p (C0 + C0_LO + w R(w)), p C0 exact inside the FMA.
    let tail = fma::<F>(w, estrin::<F, 22>(w - 2.5, &ERFINV_R), C0_LO);
    let r = fma::<F>(p, C0, p * tail);
    if p == 0.0 {
        0.0
    } else {
        r
    }
}

/// `erfcinv(q) = erfinv(1 - q)` for `|1 - q| <= P_MAX`, with `1 - p^2`
/// from `q` itself, `q (2 - q)`: below 1/2, `1 - q` loses the low bits of
/// `q`, which is within an ulp of the result, but the logarithm of `1 - p^2`
/// would lose far more.
#[inline(always)]
fn erfcinv_central<const F: bool>(q: f64) -> f64 {
    // As `-erfinv(q - 1)` (exactly odd in its first argument), so that
    // `erfcinv(1)` is -0.0 as SciPy gives.
    -erfinv_central::<F>(q - 1.0, q * (2.0 - q))
}

/// Two Halley steps for a root of `e(x) = target`, where `e` is `erf` or
/// `erfc` (`sign` of `e'`: 1 or -1). For both, `e''/e' = -2x`.
fn halley(mut x: f64, target: f64, e: fn(f64) -> f64, sign: f64) -> f64 {
    for _ in 0..2 {
        let slope = sign * FRAC_2_SQRT_PI * (-x * x).exp();
        let u = (e(x) - target) / slope;
        if !u.is_finite() {
            break;
        }
        x -= u / (1.0 + x * u);
    }
    x
}

/// The inverse of `erf` on [-1, 1] (NaN outside, ±inf at ±1).
pub(crate) fn erfinv(p: f64) -> f64 {
    if p.abs() <= P_MAX {
        return erfinv_central::<false>(p, one_minus_square::<false>(p));
    }
    if p.is_nan() || p.abs() > 1.0 {
        return f64::NAN;
    }
    // 1 - |p| is exact here, and erfc keeps its precision in the tail.
    p.signum() * erfcinv(1.0 - p.abs())
}

/// The inverse of `erfc` on [0, 2] (NaN outside, +inf at 0, -inf at 2).
pub(crate) fn erfcinv(q: f64) -> f64 {
    if q.is_nan() || !(0.0..=2.0).contains(&q) {
        return f64::NAN;
    }
    if q == 0.0 {
        return f64::INFINITY;
    }
    if q == 2.0 {
        return f64::NEG_INFINITY;
    }
    if q >= 0.5 {
        // erfcinv(q) = -erfinv(q - 1) (-0.0 at 1, as SciPy), and q - 1 is
        // exact for q in [0.5, 2].
        return -erfinv(q - 1.0);
    }
    // puruspe's estimate panics below its range (subnormal q): there, the
    // asymptotic root of erfc(x) ~ e^-x^2 / (x sqrt(pi)) to start from.
    let start = if q < 1e-300 {
        let l = -q.ln();
        (l - 0.5 * (l * std::f64::consts::PI).ln()).sqrt()
    } else {
        puruspe::inverfc(q)
    };
    halley(start, q, libm::erfc, -1.0)
}

guarded_kind! {
    /// `scipy.special.erfinv`'s values: the polynomial where it holds.
    pub(super) struct Erfinv;
    fast<F>(p) { erfinv_central::<F>(p, one_minus_square::<F>(p)) }
    outside(p) { p.is_nan() || p.abs() > P_MAX }
    slow(p) { erfinv(p) }
}

guarded_kind! {
    /// `scipy.special.erfcinv`'s values: the polynomial where it holds.
    pub(super) struct Erfcinv;
    fast<F>(q) { erfcinv_central::<F>(q) }
    outside(q) { !((1.0 - P_MAX..=1.0 + P_MAX).contains(&q)) }
    slow(q) { erfcinv(q) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::vmath::guarded::Guarded;
    use crate::kernels::vmath::test_support::{check_unary, guarded, Rng};

    /// The root of `erf(x) = p` refined by Halley steps from the
    /// polynomial's value: on `libm`'s `erf` up to 1/2, on its `erfc`
    /// above (where `1 - |p|` is exact): within about 1 ulp.
    fn reference(p: f64) -> f64 {
        let start = erfinv(p);
        if p.abs() <= 0.5 {
            halley(start, p, libm::erf, 1.0)
        } else if p.abs() < 1.0 {
            p.signum() * halley(start.abs(), 1.0 - p.abs(), libm::erfc, -1.0)
        } else {
            start
        }
    }

    #[test]
    fn erfinv_within_3_ulp_of_the_refined_root() {
        let mut rng = Rng(31);
        let mut xs: Vec<f64> = (0..150_000).map(|_| rng.uniform(-1.0, 1.0)).collect();
        xs.extend(rng.log_uniforms(30_000, -80.0, 0.0));
        xs.extend(
            rng.log_uniforms(20_000, -53.0, -1.0)
                .iter()
                .map(|d| 1.0 - d.abs()),
        );
        for edge in [P_MAX, 0.5, 1.0, 0.0, -0.0, 1.5, f64::NAN, f64::INFINITY] {
            xs.extend([edge, -edge]);
        }
        check_unary("erfinv", &xs, guarded::<Erfinv>(), reference, (3, 3));
    }

    #[test]
    fn erfcinv_within_3_ulp_of_the_refined_root() {
        let mut rng = Rng(32);
        let mut xs: Vec<f64> = (0..100_000).map(|_| rng.uniform(0.0, 2.0)).collect();
        xs.extend(
            rng.log_uniforms(20_000, -1000.0, 0.0)
                .iter()
                .map(|q| q.abs()),
        );
        xs.extend([0.0, 2.0, 1.0, 0.5, 1.0 + P_MAX, -1.0, 3.0, f64::NAN]);
        let reference = |q: f64| {
            if q >= 0.5 {
                -reference(q - 1.0)
            } else {
                erfcinv(q)
            }
        };
        check_unary("erfcinv", &xs, guarded::<Erfcinv>(), reference, (3, 3));
    }

    #[test]
    fn inverses_round_trip_and_edges_are_scipys() {
        let close = |a: f64, b: f64, rtol: f64| (a - b).abs() <= rtol * b.abs();
        for p in [1e-300, 1e-10, 0.3, 0.5, 0.9, 0.999, 1.0 - 1e-12, -0.75] {
            assert!(close(libm::erf(erfinv(p)), p, 1e-14), "erf(erfinv({p}))");
        }
        for q in [1e-300, 1e-20, 0.01, 0.6, 1.5, 2.0 - 1e-12, 1e-310, 5e-324] {
            assert!(
                close(libm::erfc(erfcinv(q)), q, 1e-13),
                "erfc(erfcinv({q}))"
            );
        }
        let inf = f64::INFINITY;
        assert_eq!((erfinv(1.0), erfinv(-1.0)), (inf, -inf));
        assert_eq!((erfcinv(0.0), erfcinv(2.0)), (inf, -inf));
        // SciPy gives +0 at both zeros of erfinv, and -0 for erfcinv(1).
        for z in [0.0, -0.0] {
            assert!(erfinv_central::<true>(z, 1.0).is_sign_positive());
        }
        assert!(Erfcinv::fast::<true>(1.0).is_sign_negative());
        assert!(erfcinv(1.0).is_sign_negative());
        for bad in [1.5, -1.5, f64::NAN, inf] {
            assert!(erfinv(bad).is_nan() && erfcinv(bad + 1.0).is_nan());
        }
        assert!(erfcinv(-0.5).is_nan());
    }
}
