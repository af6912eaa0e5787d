//! float32 `arctan` in float32 arithmetic (16 lanes to an AVX-512 vector;
//! through float64 it took 1.6x NumPy's time). |x| above 1 is folded to
//! `π/2 - atan(1/|x|)`, and above tan(π/8) to `π/4 + atan((t-1)/(t+1))`;
//! then `atan u = u + u s P(s)`, `s = u^2`, `|u| <= tan(π/8)`, by a degree-4
//! fit (least squares reweighted towards minimax in numpy, the coefficients
//! rounded to float32: relative error 2^-28). Both folds are computed and
//! selected, so the loop stays branch-free; inf gives ±π/2 and NaN stays
//! NaN through the arithmetic.

use super::log32::fma32;
use super::simd::Unary;

/// `P(s)` of `atan u = u + u s P(s)` for `s <= tan(π/8)^2`.
const P: [f32; 5] = [
    -0.333_333_16,
    0.199_984_65,
    -0.142_434_24,
    0.105_929_62,
    -0.060_759_59,
];
const TAN_PI_8: f32 = 0.414_213_57;
/// π/4 and π/2 as two float32 parts each (high, low).
const PI_4: (f32, f32) = (std::f32::consts::FRAC_PI_4, -2.185_569_5e-8);
const PI_2: (f32, f32) = (std::f32::consts::FRAC_PI_2, -4.371_139e-8);

/// `atan u` for `|u| <= tan(π/8)`, by Horner's rule.
#[inline(always)]
fn atan_poly<const F: bool>(u: f32) -> f32 {
    let s = u * u;
    let mut p = fma32::<F>(P[4], s, P[3]);
    p = fma32::<F>(p, s, P[2]);
    p = fma32::<F>(p, s, P[1]);
    p = fma32::<F>(p, s, P[0]);
    fma32::<F>(u * s, p, u)
}

/// `np.arctan` on float32.
pub(crate) struct ArcTan32;

impl Unary for ArcTan32 {
    type T = f32;
    #[inline(always)]
    fn eval<const F: bool>(x: f32) -> f32 {
        let a = x.abs();
        let big = a > 1.0;
        let t = if big { 1.0 / a } else { a };
        let mid = t > TAN_PI_8;
        // In float64, rounded once: in float32 the rounding of `t + 1` and
        // of the quotient reached 2.06 ulp of the result after the
        // cancellation against π/4.
        let w = f64::from(t);
        let u = if mid {
            ((w - 1.0) / (w + 1.0)) as f32
        } else {
            t
        };
        let p = atan_poly::<F>(u);
        // The low parts first, so the high ones add to what is left.
        let r = if mid { (p + PI_4.1) + PI_4.0 } else { p };
        let r = if big { (PI_2.1 - r) + PI_2.0 } else { r };
        r.copysign(x)
    }
}

#[cfg(test)]
mod tests {
    use super::super::simd::{levels, unary_at};
    use super::super::test_support::{check32, Rng, Run32At};
    use super::*;

    fn inputs() -> Vec<f32> {
        let mut rng = Rng(21);
        let mut xs: Vec<f32> = rng
            .log_uniforms(200_000, -40.0, 38.0)
            .iter()
            .map(|&v| v as f32)
            .collect();
        xs.extend((-200_000..200_000).map(|i| i as f32 * 2.5e-5));
        // Both sides of the folds at 1 and tan(π/8).
        for edge in [1.0f32, TAN_PI_8, 1.0 / TAN_PI_8] {
            let b = edge.to_bits();
            xs.extend((b - 50..=b + 50).map(f32::from_bits));
        }
        xs.extend([f32::MIN_POSITIVE, 1e-45, 1e30, f32::MAX, f32::INFINITY]);
        let negated: Vec<f32> = xs.iter().map(|x| -x).collect();
        xs.extend(negated);
        xs
    }

    #[test]
    fn within_2_ulp_of_libm_rounded_and_fma_builds_agree() {
        let run = unary_at::<ArcTan32> as Run32At;
        check32("arctan", &inputs(), (run, f64::atan), (2, 2));
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
