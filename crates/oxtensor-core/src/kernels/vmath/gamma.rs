//! The gamma function of one positive `f64`, branch-free so that a loop of
//! them vectorises: Lanczos' form `Γ(x) = e^((x - 1/2) ln y - y) P(x)/Q(x)`
//! with `y = x + 5.5`, the exponent in double-double (it reaches 705, and
//! its error is the result's relative error), `P/Q` a rational function
//! whose denominator is `x (x + 1) ... (x + 10)`, so the pole at 0 is kept.
//! Zeros, negatives, subnormals and `x > 172` go to `libm`'s `tgamma`
//! (the guarded loop's scalar path), whose edge values are SciPy's.
//! Measured against mpmath: within 3 ulp on (0, 171.6].

use super::dd::{two_prod, two_sum};
use super::exp::exp_dd;
use super::exp::{fma, SHIFTER};
use super::guarded::guarded_kind;
use super::log::{add_e_ln2, log1p_dd, split_normal};
use super::poly::estrin;

/// The shift `g - 1/2` of Lanczos' `x + g - 1/2`, `g = 6`.
const SHIFT: f64 = 5.5;
/// The numerator, fitted (mpmath, 60 digits, Lawson's weighted least
/// squares on (0, 172]) so that `P/Q` is `Γ(x) e^(y - (x - 1/2) ln y)`
/// within 2^-54 relative; all coefficients positive, so its sum loses
/// nothing to cancellation.
const GAMMA_P: [f64; 12] = [
    2082399391.0024135,
    3619030196.719154,
    2848040052.9751177,
    1339440875.3065681,
    418217772.7248842,
    91010017.55765133,
    14082227.338645685,
    1549029.521250908,
    118682.98430782286,
    6030.793140387624,
    182.87942120328674,
    2.5066282746310007,
];
/// `(x + 1)(x + 2) ... (x + 10)` expanded (the factor `x` of the
/// denominator is divided separately): integers, exact.
const GAMMA_Q: [f64; 11] = [
    3628800.0, 10628640.0, 12753576.0, 8409500.0, 3416930.0, 902055.0, 157773.0, 18150.0, 1320.0,
    55.0, 1.0,
];
/// Γ overflows from 171.62 on; the formula gives +inf there up to here.
const X_MAX: f64 = 172.0;

/// `ln(y + y_lo)` as a double-double, for `y` positive normal finite and
/// `|y_lo|` at most half an ulp of `y`.
#[inline(always)]
fn ln_dd<const F: bool>(y: f64, y_lo: f64) -> (f64, f64) {
    let (e, f) = split_normal(y);
    // y + y_lo = 2^e (1 + f + y_lo 2^-e); 2^-e from its exponent bits.
    let inv = f64::from_bits((SHIFTER + (1023.0 - e)).to_bits() << 52);
    let (h, l) = log1p_dd::<F>(f, y_lo * inv);
    add_e_ln2::<F>(e, h, l)
}

/// `Γ(x)` for `x` in [2^-1022, [`X_MAX`]].
#[inline(always)]
fn gamma_positive<const F: bool>(x: f64) -> f64 {
    let (y, y_lo) = two_sum(x, SHIFT);
    let (h, l) = ln_dd::<F>(y, y_lo);
    // (x - 1/2) ln y - y, each step with its rounding error carried.
    let (a, a_lo) = two_sum(x, -0.5);
    let (p, p_lo) = two_prod::<F>(a, h);
    let p_lo = p_lo + fma::<F>(a, l, a_lo * h);
    let (s, s_lo) = two_sum(p, -y);
    let s_lo = s_lo + (p_lo - y_lo);
    // P/Q is in [2.5, 573]; dividing the exponential by x first keeps
    // every step finite wherever Γ(x) is.
    let r = estrin::<F, 12>(x, &GAMMA_P) / estrin::<F, 11>(x, &GAMMA_Q);
    exp_dd::<F>(s, s_lo) / x * r
}

/// The factorials' range: `(n - 1)!` is a double for `n <= 23`.
const FACTORIAL_MAX: f64 = 23.0;

/// `Γ(x)` for the inputs the vector code leaves: the exact factorial at
/// the integers up to 23 (as SciPy gives it; Lanczos' form is within a few
/// ulp of it, not on it), `libm` elsewhere.
fn gamma_slow(x: f64) -> f64 {
    if x == x.floor() && (1.0..=FACTORIAL_MAX).contains(&x) {
        // Every partial product is a double, so each step is exact.
        (1..x as u32).map(f64::from).product()
    } else {
        libm::tgamma(x)
    }
}

guarded_kind! {
    /// `scipy.special.gamma`'s values: Lanczos' form for positive normal
    /// `x` up to [`X_MAX`] but the small integers, [`gamma_slow`] for those
    /// and everything else.
    pub(super) struct Gamma;
    fast<F>(x) { gamma_positive::<F>(x) }
    outside(x) {
        let small_integer = x <= FACTORIAL_MAX && x == (x + SHIFTER) - SHIFTER;
        !(f64::MIN_POSITIVE..=X_MAX).contains(&x) || small_integer
    }
    slow(x) { gamma_slow(x) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::cpu::levels;
    use crate::kernels::vmath::guarded::unary_at;
    use crate::kernels::vmath::test_support::{check_unary, guarded, ulps, Rng};

    #[test]
    fn values_match_mpmath() {
        // (x, Γ(x)) from mpmath at 40 digits, rounded to doubles.
        let cases = [
            (5.598674600408056, 61.42102021029406),
            (0.5, 1.772453850905516),
            (1e-300, 9.999999999999999e+299),
            (1e-05, 99999.42279422555),
            (0.0650660159253457, 14.852556459934352),
            (1.015007251892536, 0.9915573138209735),
            (1.4616321449683622, 0.8856031944108887),
            (2.5, 1.329340388179137),
            (8.451969306169927, 12701.8551667136),
            (33.3, 7.487577596522633e+35),
            (100.5, 9.320963104082716e+156),
            (157.89034862791684, 6.73540506785091e+277),
            (171.6, 1.5858969096672565e+308),
        ];
        for (x, want) in cases {
            for lvl in levels() {
                let mut out = [0.0];
                unary_at::<Gamma, f64>(lvl, &mut out, &[x]);
                assert!(ulps(out[0], want) <= 5, "Γ({x}) = {:e} at {lvl:?}", out[0]);
            }
        }
    }

    #[test]
    fn gamma_within_12_ulp_of_libm() {
        // Ours is within 5 ulp of mpmath's values (measured on 37000
        // points), libm's (musl's) tgamma within about 7 there.
        let mut rng = Rng(41);
        let mut xs: Vec<f64> = (0..100_000).map(|_| rng.uniform(0.0, 171.6)).collect();
        xs.extend((0..50_000).map(|_| rng.uniform(0.0, 6.0)));
        xs.extend(
            rng.log_uniforms(30_000, -1022.0, 0.0)
                .iter()
                .map(|x| x.abs()),
        );
        xs.extend((0..5_000).map(|_| rng.uniform(-30.0, 0.0)));
        let edges = [
            0.0, -0.0, 171.6, 171.7, X_MAX, 180.0, 1e-310, -1.0, -2.5, 1.0, 0.5,
        ];
        xs.extend(edges);
        xs.extend([
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ]);
        check_unary("gamma", &xs, guarded::<Gamma>(), gamma_slow, (12, 12));
    }

    #[test]
    fn factorials_are_exact() {
        // Γ(n) = (n - 1)!, a double up to 22!; through the loop, at every
        // build, and the formula within a few ulp of them.
        let xs: Vec<f64> = (1..=23).map(f64::from).collect();
        let mut fact = 1.0;
        for (i, &x) in xs.iter().enumerate() {
            for lvl in levels() {
                let mut out = [0.0];
                unary_at::<Gamma, f64>(lvl, &mut out, &xs[i..=i]);
                assert_eq!(out[0], fact, "Γ({x}) at {lvl:?}");
            }
            assert!(ulps(gamma_positive::<true>(x), fact) <= 5, "{x}");
            fact *= x;
        }
        let half = gamma_positive::<true>(0.5);
        assert!((half - std::f64::consts::PI.sqrt()).abs() <= 2.0 * f64::EPSILON);
    }
}
