//! float32 `sin` and `cos`, computed in float64 with shorter polynomials
//! than the float64 functions (`trig.rs`): the reduction's `x - k π/2` in
//! one double (float32 arguments need no double-double), `sin r` and
//! `cos r` to about 2^-35 relative, then rounded once to float32 (within
//! 1 ulp, tests). About half the float64 functions' work.

use super::guarded::Guarded;
use super::poly::estrin;
use super::trig::{by_quadrant, far, sin_cos_kinds, C1, C2, T3, T4};
use crate::kernels::fast_exp::{fma, SHIFTER};

/// `sin r = r + r^3 S(r^2)` for |r| <= π/4 (1 + 2^-20): a Chebyshev fit
/// (mpmath `chebyfit`) of error 2^-35 in `S`.
const S: [f64; 4] = [
    -0.166_666_666_638_552_67,
    0.008_333_331_874_701_885,
    -0.000_198_400_867_308_877,
    2.724_992_521_993_603e-6,
];
/// `cos r = 1 + r^2 C(r^2)` on the same range: error 2^-41 in `C`.
const C: [f64; 5] = [
    -0.499_999_999_999_638_9,
    0.041_666_666_637_395_85,
    -0.001_388_888_509_137_752_8,
    2.479_986_218_359_149_7e-5,
    -2.723_713_981_068_18e-7,
];

/// `x - k π/2` for 0 <= x <= 2^20 and `k mod 4`: the first two products
/// and differences are exact (as in `trig.rs`), the rest is rounded once
/// or twice, far below float32's precision even next to a multiple of π/2.
#[inline(always)]
fn reduce(x: f64) -> (f64, u64) {
    let t = x * std::f64::consts::FRAC_2_PI + SHIFTER;
    let k = t - SHIFTER;
    ((((x - k * C1) - k * C2) - k * T3) - k * T4, t.to_bits() & 3)
}

/// `sin x` (`COS` false) or `cos x` to about 2^-35 relative.
#[inline(always)]
fn sin_or_cos<const F: bool, const COS: bool>(x: f64) -> f64 {
    let (r, q) = reduce(x.abs());
    let z = r * r;
    let s = fma::<F>(r * z, estrin::<F, 4>(z, &S), r);
    let c = fma::<F>(z, estrin::<F, 5>(z, &C), 1.0);
    by_quadrant::<COS>(x, q, s, c)
}

/// `np.sin` and `np.cos` on float32 (the `Guarded` loops round the
/// float64 results once).
pub(crate) struct Sin32;
pub(crate) struct Cos32;

sin_cos_kinds!(Sin32, Cos32);

#[cfg(test)]
mod tests {
    use super::super::guarded::unary_at;
    use super::super::simd::{levels, Level};
    use super::super::test_support::{ulps32, Rng};
    use super::*;

    /// Within 1 ulp of libm's float64 result rounded, at every build, on
    /// random float32 up to past 2^20, every neighbour of the float32
    /// nearest to k π/2 for k below 3000, and the special values.
    #[test]
    fn within_1_ulp_of_libm_rounded() {
        let mut rng = Rng(11);
        let mut xs: Vec<f32> = rng
            .log_uniforms(200_000, -30.0, 21.0)
            .iter()
            .map(|&v| v as f32)
            .collect();
        for k in 0..3000 {
            let x = (f64::from(k) * std::f64::consts::FRAC_PI_2) as f32;
            let b = x.to_bits() as i64;
            xs.extend((-2..=2).map(|d| f32::from_bits((b + d).max(0) as u32)));
        }
        xs.extend([0.0, 1e-45, f32::MAX, f32::INFINITY, f32::NAN]);
        let negated: Vec<f32> = xs.iter().map(|x| -x).collect();
        xs.extend(negated);
        type Run = fn(Level, &mut [f32], &[f32]);
        type Case = (&'static str, Run, fn(f64) -> f64);
        let runs: [Case; 2] = [
            ("sin", unary_at::<Sin32, f32>, f64::sin),
            ("cos", unary_at::<Cos32, f32>, f64::cos),
        ];
        for lvl in levels() {
            for (name, run, f) in runs {
                let mut ys = vec![0.0f32; xs.len()];
                run(lvl, &mut ys, &xs);
                for (&x, &y) in xs.iter().zip(&ys) {
                    let want = f(f64::from(x)) as f32;
                    let same = want.is_nan() && y.is_nan() || y.to_bits() == want.to_bits();
                    assert!(
                        same || ulps32(y, want) <= 1 && want != 0.0,
                        "{name}({x:e}) = {y:e}, want {want:e} ({lvl:?})"
                    );
                }
            }
        }
    }
}
