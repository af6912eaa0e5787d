//! The digamma function ψ of one positive `f64`, branch-free so that a loop
//! of them vectorises. Below 7: `x` is brought to `t` in [1, 2) (up by
//! `ψ(x) = ψ(x + 1) - 1/x` below 1, down by `ψ(x + 1) = ψ(x) + 1/x`
//! otherwise, at most 5 masked steps summed as one fraction), where
//! `ψ(t) = (t - x0) Q(t) / t` keeps full relative precision at the root
//! `x0`; from 7 on, the asymptotic series. Zeros, negatives (reflection),
//! subnormals, inf and NaN go to the guarded loop's scalar path.
//! Measured against mpmath: within 4 ulp for positive `x`.

use super::exp::clamp;
use super::exp::{fma, SHIFTER};
use super::guarded::guarded_kind;
use super::log::log_normal;
use super::poly::estrin;
use std::f64::consts::PI;

/// The positive root of ψ, minus 1, as a double-double.
const U0_HI: f64 = 0.46163214496836236;
const U0_LO: f64 = -1.5522348162858677e-17;
/// `Q(u) = t ψ(t) / (u - U0)` with `t = 1 + u`, in `u - 1/2` on [0, 1] (the
/// factor `t` removes ψ's pole at 0 from the function fitted): a Chebyshev
/// interpolant (mpmath, 50 digits), relative error below 2^-54: `Q0`, then
/// the coefficients from `(u - 1/2)^1` on.
const Q0: f64 = 1.4265838140477494;
const PSI_Q: [f64; 16] = [
    0.315614744109642,
    -0.06281369492028008,
    0.017935099659936202,
    -0.005921836374555441,
    0.002105524543932196,
    -0.0007808823636548008,
    0.0002971387135965835,
    -0.00011492419795785276,
    4.4924967963555466e-05,
    -1.7687223169837115e-05,
    7.00085274570018e-06,
    -2.778815077217573e-06,
    1.0900440594791301e-06,
    -4.343344704424389e-07,
    2.086174950945902e-07,
    -8.330017764155427e-08,
];
/// `B_2k / 2k` for k = 1..=10: `ψ(x) ~ ln x - 1/(2x) - Σ B_2k / (2k x^2k)`,
/// whose truncation error from [`ASYMPTOTIC`] on is below 2^-54 relative.
const PSI_A: [f64; 10] = [
    1.0 / 12.0,
    -1.0 / 120.0,
    1.0 / 252.0,
    -1.0 / 240.0,
    1.0 / 132.0,
    -691.0 / 32760.0,
    1.0 / 12.0,
    -3617.0 / 8160.0,
    43867.0 / 14364.0,
    -174611.0 / 6600.0,
];
const ASYMPTOTIC: f64 = 7.0;
/// Steps up from [1, 2) to reach [`ASYMPTOTIC`].
const STEPS: usize = 5;

/// `floor(x)` for `0 <= x < 2^51` with no library call (the build without
/// SSE4.1 has no rounding instruction).
#[inline(always)]
fn floor_small(x: f64) -> f64 {
    let r = (x + SHIFTER) - SHIFTER;
    if r > x {
        r - 1.0
    } else {
        r
    }
}

/// `ψ(x)` for `x` in [2^-1022, [`ASYMPTOTIC`]): `(r Q den + num t)/(t den)`,
/// where `ψ(t) = r Q / t` and `num/den` is the sum of the steps' `±1/x`.
#[inline(always)]
fn psi_small<const F: bool>(x: f64) -> f64 {
    let below = x < 1.0;
    // u = t - 1 exactly: x itself below 1, else its fractional part. Both
    // computed, then selected: work inside a select's arm may stay a
    // branch, and a branch keeps the loop from vectorising.
    let frac = x - floor_small(x);
    let u = if below { x } else { frac };
    let t = 1.0 + u;
    let mut num = if below { -1.0 } else { 0.0 };
    let mut den = if below { x } else { 1.0 };
    // A `Range`, not `1..=STEPS`: LLVM unrolled the inclusive range too
    // late for the loop over elements to vectorise (measured: 11 ns an
    // element, scalar).
    for j in 0..STEPS {
        // 1/(x - j) for each x - j >= 1 (j from 1); x - j is exact.
        let d = x - (j + 1) as f64;
        let inc = d >= 1.0;
        num = if inc { fma::<F>(num, d, den) } else { num };
        den = if inc { den * d } else { den };
    }
    let r = (u - U0_HI) - U0_LO;
    // r Q = r Q0 + r (Q - Q0), r Q0 exact inside the FMA (Q - Q0 is at
    // most an eighth of Q), so Q's rounding barely reaches the result.
    let m = u - 0.5;
    let rq = fma::<F>(r, Q0, r * (m * estrin::<F, 16>(m, &PSI_Q)));
    fma::<F>(rq, den, num * t) / (t * den)
}

/// `ψ(x)` for `x >= ASYMPTOTIC`, normal and finite.
#[inline(always)]
fn psi_large<const F: bool>(x: f64) -> f64 {
    let v = 1.0 / x;
    let z = v * v;
    log_normal::<F>(x) - fma::<F>(z, estrin::<F, 10>(z, &PSI_A), 0.5 * v)
}

/// `ψ(x)` for positive normal finite `x`.
#[inline(always)]
fn psi_positive<const F: bool>(x: f64) -> f64 {
    // The small piece's steps stay finite for any x once clamped.
    let small = psi_small::<F>(clamp(x, 0.0, ASYMPTOTIC));
    let large = psi_large::<F>(x);
    if x < ASYMPTOTIC {
        small
    } else {
        large
    }
}

/// `π / tan(πx)` and `(π / sin(πx))²`, with `x` reduced to [-1/2, 1/2]
/// first: both have period 1, and `x - round(x)` is exact.
pub(crate) fn reflection(x: f64) -> (f64, f64) {
    let r = PI * (x - x.round());
    (PI / r.tan(), (PI / r.sin()).powi(2))
}

/// ψ for every `f64` as SciPy gives it: `∓inf` at `±0`, NaN at the
/// negative integers and -inf, `ψ(1 - x) - π/tan(πx)` for other negatives.
pub(crate) fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        return digamma(1.0 - x) - reflection(x).0;
    }
    if x < f64::MIN_POSITIVE {
        // ψ(x) = -1/x - γ + O(x), and γ is far below an ulp of 1/x.
        return -1.0 / x;
    }
    if x == f64::INFINITY {
        return x;
    }
    psi_positive::<false>(x)
}

guarded_kind! {
    /// `scipy.special.psi`'s values: the vector code for positive normal
    /// finite `x`.
    pub(super) struct Psi;
    fast<F>(x) { psi_positive::<F>(x) }
    outside(x) { !(f64::MIN_POSITIVE..f64::INFINITY).contains(&x) }
    slow(x) { digamma(x) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::cpu::levels;
    use crate::kernels::vmath::guarded::unary_at;
    use crate::kernels::vmath::test_support::{ulps, Rng};

    /// ψ at every build the CPU runs, through the loop.
    fn psi_all(xs: &[f64]) -> Vec<Vec<f64>> {
        let run = |lvl| {
            let mut out = vec![0.0; xs.len()];
            unary_at::<Psi, f64>(lvl, &mut out, xs);
            out
        };
        levels().into_iter().map(run).collect()
    }

    #[test]
    fn values_match_mpmath() {
        // (x, ψ(x)) from mpmath at 40 digits, rounded to doubles.
        let cases = [
            (1.0, -0.5772156649015329),
            (0.5, -1.9635100260214235),
            (1e-8, -100000000.57721564),
            (1e-300, -9.999999999999999e+299),
            (1.4616321449683622, -9.241265521729427e-17),
            (1.4616, -3.110625123034165e-05),
            (1.47, 0.008066489011364869),
            (2.5, 0.7031566406452432),
            (6.999, 1.8726307781540714),
            (7.0, 1.8727843350984672),
            (30.0, 3.384438132685525),
            (1e300, 690.7755278982137),
            (-1.5, 0.7031566406452432),
        ];
        for (x, want) in cases {
            for got in psi_all(&[x]) {
                assert!(
                    ulps(got[0], want) <= 4,
                    "ψ({x}) = {:e}, want {want:e}",
                    got[0]
                );
            }
        }
    }

    #[test]
    fn recurrence_holds_to_a_few_ulp() {
        // ψ(x + 1) = ψ(x) + 1/x, with x + 1 exact for x in [1, 2^20).
        let mut rng = Rng(51);
        let xs: Vec<f64> = rng
            .log_uniforms(50_000, 0.0, 20.0)
            .iter()
            .map(|x| x.abs())
            .collect();
        let next: Vec<f64> = xs.iter().map(|x| x + 1.0).collect();
        for (a, b) in psi_all(&xs).iter().zip(psi_all(&next)) {
            for i in 0..xs.len() {
                let want = a[i] + 1.0 / xs[i];
                let tol = 8.0 * f64::EPSILON * (a[i].abs() + 1.0 / xs[i]);
                assert!(
                    (b[i] - want).abs() <= tol,
                    "ψ({} + 1) = {:e}, ψ(x) + 1/x = {want:e}",
                    xs[i],
                    b[i]
                );
            }
        }
    }

    #[test]
    fn edges_are_scipys() {
        let inf = f64::INFINITY;
        let xs = [0.0, -0.0, inf, -inf, f64::NAN, -2.0, -1e-310, 1e-310];
        let want = [-inf, inf, inf, f64::NAN, f64::NAN, f64::NAN, inf, -inf];
        for out in psi_all(&xs) {
            for (g, w) in out.iter().zip(want) {
                assert!(g == &w || (g.is_nan() && w.is_nan()), "{out:?}");
            }
        }
    }
}
