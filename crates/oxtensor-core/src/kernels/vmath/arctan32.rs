//! float32 `arctan` in float32 arithmetic (16 lanes to an AVX-512 vector;
//! through float64 it took 1.6x NumPy's time). One division folds |x| into
//! [0, 1]: `u = min(|x|, 1) / max(|x|, 1)`, and `atan |x|` is `atan u`, or
//! `π/2 - atan u` above 1. Then `atan u = u + u s Q(s)`, `s = u^2`, by a
//! degree-8 fit over all of [0, 1] (least squares reweighted towards
//! minimax in numpy, the coefficients rounded to float32 one at a time and
//! the rest refitted: relative error 2^-28.5), and π/2 added as two
//! float32 parts with the sum's error kept. Within 1 ulp of libm's rounded
//! result at every build (every float32 checked once, outside the tests:
//! 0.18% of them 1 ulp away). Branch-free: both cases are
//! computed and selected; inf gives ±π/2 and NaN stays NaN through the
//! arithmetic.
//!
//! The loop is bound by its multiplies (11 a vector). Folding further, to
//! |u| <= tan(π/8) with a shorter polynomial, needs `(|x| - 1)/(|x| + 1)`
//! and, near π/4 - tan(π/8), that quotient's rounding corrected: more
//! operations, and measured slower. A reciprocal by Newton steps instead
//! of the division: 1.45x slower. A float32 reciprocal and a float64
//! quotient per element (the form before) ran at 0.57x NumPy on one thread.

use super::log32::fma32;
use super::simd::unary_kernels;

/// `Q(s)` of `atan u = u + u s Q(s)` for `s` in [0, 1].
const Q: [f32; 9] = [
    -0.333_333,
    0.199_985_3,
    -0.142_640_14,
    0.109_508_61,
    -0.083_992_08,
    0.057_878_87,
    -0.031_093_534,
    0.010_866_272,
    -0.001_782_145_1,
];
/// π/2 as two float32 parts (high, low).
const PI_2: (f32, f32) = (std::f32::consts::FRAC_PI_2, -4.371_139e-8);

/// `u s Q(s)`, the part of `atan u` beyond `u`, by Horner's rule.
#[inline(always)]
fn atan_tail<const F: bool>(u: f32, s: f32) -> f32 {
    let mut q = Q[8];
    for &c in Q[..8].iter().rev() {
        q = fma32::<F>(q, s, c);
    }
    u * s * q
}

unary_kernels!(f32:
    /// `np.arctan` on float32.
    pub(crate) ArcTan32 => arctan32,
);

/// [`ArcTan32`]'s element function.
#[inline(always)]
fn arctan32<const F: bool>(x: f32) -> f32 {
    let a = x.abs();
    // min(a, 1) / max(a, 1) as selects on two different tests: on one
    // test LLVM pushes the select through the division and then
    // through the polynomial, computing it twice. A NaN stays in both.
    let n = if a > 1.0 { 1.0 } else { a };
    let d = if a < 1.0 { 1.0 } else { a };
    let u = n / d;
    let big = a > 1.0;
    let s = u * u;
    let tail = atan_tail::<F>(u, s);
    // Above 1: π/2 - u - tail, the first difference with its rounding
    // error (a two-sum: π/2 >= u).
    let (u, tail, (hi, lo)) = if big {
        (-u, -tail, PI_2)
    } else {
        (u, tail, (0.0, 0.0))
    };
    let t = hi + u;
    let err = u - (t - hi);
    let r = t + (err + (tail + lo));
    r.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::super::simd::unary_at;
    use super::super::test_support::{and_negated, around32, check32, Rng};
    use super::*;
    use crate::kernels::cpu::levels;

    fn inputs() -> Vec<f32> {
        let mut rng = Rng(21);
        let mut xs = rng.log_uniforms32(200_000, -40.0, 38.0);
        xs.extend((-200_000..200_000).map(|i| i as f32 * 2.5e-5));
        // Both sides of the fold at 1, and the binades next to it.
        for edge in [1.0f32, 0.5, 2.0] {
            xs.extend(around32(edge, 50, 50));
        }
        xs.extend([f32::MIN_POSITIVE, 1e-45, 1e30, f32::MAX, f32::INFINITY]);
        and_negated(xs)
    }

    #[test]
    fn within_1_ulp_of_libm_rounded_and_fma_builds_agree() {
        check32(
            "arctan",
            &inputs(),
            (unary_at::<ArcTan32>, f64::atan),
            (1, 1),
        );
    }

    #[test]
    fn signed_zeros_infinities_and_nan() {
        let xs = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
        for lvl in levels() {
            let mut ys = [1.0f32; 5];
            unary_at::<ArcTan32>(lvl, &mut ys, &xs);
            assert_eq!(ys[0].to_bits(), 0.0f32.to_bits(), "{lvl:?}");
            assert_eq!(ys[1].to_bits(), (-0.0f32).to_bits(), "{lvl:?}");
            assert_eq!(ys[2], std::f32::consts::FRAC_PI_2, "{lvl:?}");
            assert_eq!(ys[3], -std::f32::consts::FRAC_PI_2, "{lvl:?}");
            assert!(ys[4].is_nan(), "{lvl:?}");
        }
    }
}
