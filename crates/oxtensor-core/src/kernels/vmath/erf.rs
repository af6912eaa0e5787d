//! `erf` and `erfc` of one `f64`, branch-free so that a loop of them
//! vectorises (both pieces computed, the right one selected). Near 0,
//! `erf(x) = x P(x^2)`; elsewhere `erfc(a) = 2/(2 + a) exp(-a^2 + G(t))`
//! with `t = (a - 2)/(a + 2)`, one polynomial over every `a >= 1/2` (the
//! map sends [1/2, inf) onto [-0.6, 1), where `G` is smooth), `-a^2` in
//! double-double so the exponent keeps full precision up to the underflow.
//! Measured against mpmath: erf within 1 ulp, erfc within 3 (tests below).

use super::dd::{fast_two_sum, residual, two_prod, two_sum};
use super::exp::fma;
use super::exp::{clamp, exp_dd};
use super::poly::estrin;
use super::simd::unary_kernels;

/// 2/sqrt(pi) as a double-double: `erf(x)/x` at 0.
const C0: f64 = std::f64::consts::FRAC_2_SQRT_PI;
const C0_LO: f64 = 1.533545961316588e-17;
/// `(erf(x)/x - 2/sqrt(pi)) / z` in `z = x^2` on [0, 1]: a Chebyshev
/// interpolant (mpmath, 50 digits); `erf(x)/x` from it within 2^-56.8.
const ERF_Q: [f64; 12] = [
    -0.37612638903183754,
    0.11283791670955111,
    -0.026866170645123838,
    0.005223977625303518,
    -0.0008548327010033328,
    0.00012055332214716276,
    -1.4925622504489842e-05,
    1.6461446656928561e-06,
    -1.6355118610877705e-07,
    1.4692484859133263e-08,
    -1.1500357159785296e-09,
    6.174097221305255e-11,
];

/// `G(t) = log(erfc(a) e^(a^2) (1 + a/2))`, `a = 2 (1 + t)/(1 - t)`, in
/// `t - G_MID` on [-0.6, 0.8644] (`a` in [0.5, 27.5]): a Chebyshev
/// interpolant (mpmath, 50 digits), absolute error below 2^-54 (so
/// relative in `erfc`); `G0 + G1 t` then the rest, `ERFC_G`, from `t^2`.
const G0: f64 = -0.7597873480224768;
const G1: f64 = -0.6577706596833836;
const ERFC_G: [f64; 21] = [
    0.0647133684782437,
    0.040238125434687695,
    -0.01506189784533231,
    -0.006614068997827508,
    0.0037250233207118955,
    0.0017607616363392727,
    -0.0009464066629514566,
    -0.0006030550672730594,
    0.00021228000094907932,
    0.00022052891564979275,
    -2.598875216812876e-05,
    -7.531934429798696e-05,
    -9.661724585024967e-06,
    2.123887649599471e-05,
    9.01752939221416e-06,
    -3.97893381170105e-06,
    -3.934898568910923e-06,
    1.3899668843770993e-07,
    1.0561921771347744e-06,
    1.0612592555116495e-07,
    -1.4088850497746725e-07,
];
const G_MID: f64 = 0.13220338983050847;
/// `erfc(a)` underflows to 0 from 27.3 on: clamping there keeps `t` and
/// `a^2` finite without changing a result.
const ERFC_MAX: f64 = 27.5;
/// `erf(a)` rounds to 1 from 5.93 on.
const ERF_MAX: f64 = 6.0;

/// `erf(x)` for `|x| <= 1`: `x C0` exact inside the FMA, so only the
/// smaller term `x (C0_LO + z Q(z))` (at most a third) is rounded
/// before the sum (the sign of zero kept).
#[inline(always)]
fn erf_small<const F: bool>(x: f64) -> f64 {
    let z = x * x;
    fma::<F>(x, C0, x * fma::<F>(z, estrin::<F, 12>(z, &ERF_Q), C0_LO))
}

/// `erfc(a)` for `a` in [0.5, [`ERFC_MAX`]] (NaN stays NaN).
#[inline(always)]
fn erfc_big<const F: bool>(a: f64) -> f64 {
    let (u, u_lo) = two_sum(2.0, a);
    let d = 1.0 / u;
    // (a - 2)/(a + 2) = 1 - 4/(a + 2); its rounding moves G by under an ulp.
    let t = fma::<F>(-4.0, d, 1.0);
    let tm = t - G_MID;
    // G = G0 + G1 tm + tm^2 H(tm): the first two terms (G's size, up to
    // 1.27) in double-double, the rest (at most 0.04) rounded.
    let (p, p_lo) = two_prod::<F>(G1, tm);
    let (g, g_lo) = fast_two_sum(G0, p);
    let g_lo = g_lo + fma::<F>(tm * tm, estrin::<F, 21>(tm, &ERFC_G), p_lo);
    let (h, l) = two_prod::<F>(a, a);
    let (s, s_lo) = two_sum(-h, g);
    let e2 = 2.0 * exp_dd::<F>(s, s_lo + (g_lo - l));
    // 2e / (u + u_lo): q = 2e d corrected by its residual, so that the
    // quotient is rounded about once, not through d's rounding.
    let q = e2 * d;
    let r = residual::<F>(q, u, e2) - q * u_lo;
    fma::<F>(r, d, q)
}

/// `erf(x)` within 1 ulp for every `f64` (±1 at ±inf, `-0` kept).
#[inline(always)]
pub(super) fn erf<const F: bool>(x: f64) -> f64 {
    let a = x.abs();
    let big = (1.0 - erfc_big::<F>(clamp(a, 0.5, ERF_MAX))).copysign(x);
    let small = erf_small::<F>(x);
    if a < 1.0 {
        small
    } else {
        big
    }
}

/// `erfc(x)` within 3 ulp for every `f64` (0 at +inf, 2 at -inf).
#[inline(always)]
pub(super) fn erfc<const F: bool>(x: f64) -> f64 {
    let a = x.abs();
    let e = erfc_big::<F>(clamp(a, 0.5, ERFC_MAX));
    let big = if x < 0.0 { 2.0 - e } else { e };
    // 1 - erf(x) >= 0.47 here, so the subtraction loses nothing.
    let small = 1.0 - erf_small::<F>(x);
    if a < 0.5 {
        small
    } else {
        big
    }
}

unary_kernels!(f64:
    /// `scipy.special.erf`'s values.
    pub(super) Erf => erf,
    /// `scipy.special.erfc`'s values.
    pub(super) Erfc => erfc,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::vmath::test_support::{check_unary, plain, Rng, SPECIAL};

    /// Inputs: dense over the range where the results are not 0 or ±1,
    /// log-uniform magnitudes, both signs, the pieces' seams.
    fn inputs(seed: u64, hi: f64) -> Vec<f64> {
        let mut rng = Rng(seed);
        let mut xs = rng.log_uniforms(100_000, -40.0, 5.0);
        xs.extend((0..100_000).map(|_| rng.uniform(-hi, hi)));
        for seam in [0.5, 1.0, 6.0, 26.5, 27.2, 27.5, 30.0] {
            let b = f64::to_bits(seam);
            xs.extend((b - 3..=b + 3).map(f64::from_bits).flat_map(|x| [x, -x]));
        }
        xs.extend(SPECIAL);
        xs
    }

    #[test]
    fn erf_within_2_ulp_of_libm() {
        // libm's (musl's) erf is itself within 1 ulp.
        let xs = inputs(21, 6.5);
        check_unary("erf", &xs, plain::<Erf>(), libm::erf, (2, 2));
    }

    #[test]
    fn erfc_within_4_ulp_of_libm() {
        // Subnormal results lose relative precision, ours and libm's.
        let xs: Vec<f64> = inputs(22, 27.0)
            .into_iter()
            .filter(|&x| !(libm::erfc(x).abs() < f64::MIN_POSITIVE && libm::erfc(x) > 0.0))
            .collect();
        check_unary("erfc", &xs, plain::<Erfc>(), libm::erfc, (4, 4));
    }

    #[test]
    fn special_values_are_scipys() {
        let inf = f64::INFINITY;
        for (x, erf_x, erfc_x) in [
            (0.0, 0.0, 1.0),
            (inf, 1.0, 0.0),
            (-inf, -1.0, 2.0),
            (30.0, 1.0, 0.0),
            (-30.0, -1.0, 2.0),
        ] {
            assert_eq!(erf::<true>(x), erf_x, "erf({x})");
            assert_eq!(erfc::<true>(x), erfc_x, "erfc({x})");
        }
        assert!(erf::<true>(-0.0).is_sign_negative());
        assert!(erf::<false>(f64::NAN).is_nan() && erfc::<false>(f64::NAN).is_nan());
        // Subnormal erfc results, to within an ulp of their spacing.
        let tiny = erfc::<true>(27.0);
        assert!((tiny - libm::erfc(27.0)).abs() <= 2.0 * 5e-324, "{tiny:e}");
    }
}
