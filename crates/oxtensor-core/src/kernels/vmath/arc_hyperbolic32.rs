//! float32 `arcsinh`, `arccosh` and `arctanh` in float64 with `narrow`'s
//! short logarithm (`log1p_lite`, about 2^-40 relative), rounded once:
//! within 1 ulp of libm's rounded result. A float32 argument is exact in
//! float64, and so are `a - 1`, `1 - a` and `a^2` there, so none of the
//! float64 functions' care for cancellation and overflow is needed; through
//! the float64 kernels these took 2.5–3x NumPy's time. Infinities, NaN and
//! out-of-domain arguments are selected at the end.

use super::narrow::log1p_lite;
use super::simd::Unary;

/// `np.arcsinh` on float32: `log1p(a + a^2 / (1 + sqrt(1 + a^2)))`.
pub(crate) struct ArcSinh32;

impl Unary for ArcSinh32 {
    type T = f32;
    #[inline(always)]
    fn eval<const F: bool>(x: f32) -> f32 {
        let a = f64::from(x.abs());
        let y = a + a * a / (1.0 + (1.0 + a * a).sqrt());
        let r = log1p_lite::<F>(y) as f32;
        // inf and NaN are their own arcsinh.
        let r = if a < f64::INFINITY { r } else { x.abs() };
        r.copysign(x)
    }
}

/// `np.arccosh` on float32: `log1p((a - 1) + sqrt((a - 1)(a + 1)))`.
pub(crate) struct ArcCosh32;

impl Unary for ArcCosh32 {
    type T = f32;
    #[inline(always)]
    fn eval<const F: bool>(x: f32) -> f32 {
        let a = f64::from(x);
        let d = a - 1.0;
        let r = log1p_lite::<F>(d + (d * (a + 1.0)).sqrt()) as f32;
        // Below 1 and NaN: NaN (no comparison holds for NaN).
        if a == f64::INFINITY {
            f32::INFINITY
        } else if a >= 1.0 {
            r
        } else {
            f32::NAN
        }
    }
}

/// `np.arctanh` on float32: `log1p(2a / (1 - a)) / 2`.
pub(crate) struct ArcTanh32;

impl Unary for ArcTanh32 {
    type T = f32;
    #[inline(always)]
    fn eval<const F: bool>(x: f32) -> f32 {
        let a = f64::from(x.abs());
        let r = (0.5 * log1p_lite::<F>(2.0 * a / (1.0 - a))) as f32;
        let r = if a < 1.0 {
            r
        } else if a == 1.0 {
            f32::INFINITY
        } else {
            f32::NAN
        };
        r.copysign(x)
    }
}

#[cfg(test)]
mod tests {
    use super::super::simd::{levels, unary_at};
    use super::super::test_support::{check32, Rng, Run32At};
    use super::*;

    fn inputs(lo: f64, hi: f64, seed: u64) -> Vec<f32> {
        let mut rng = Rng(seed);
        let mut xs: Vec<f32> = rng
            .log_uniforms(200_000, lo, hi)
            .iter()
            .map(|&v| v as f32)
            .collect();
        xs.extend((0..100_000).map(|_| rng.uniform(-1.0, 1.0) as f32));
        let one = 1.0f32.to_bits();
        xs.extend((one - 300..=one + 300).map(f32::from_bits));
        xs.extend([1e-45, f32::MIN_POSITIVE, 2.4e-4, 0.5, 1e30, f32::MAX]);
        let negated: Vec<f32> = xs.iter().map(|x| -x).collect();
        xs.extend(negated);
        xs
    }

    /// Within 1 ulp of libm's rounded result at every build (the float64
    /// work is accurate far past float32's precision).
    #[test]
    fn within_1_ulp_of_libm_rounded() {
        type Case = (&'static str, Run32At, fn(f64) -> f64);
        let cases: [Case; 3] = [
            ("arcsinh", unary_at::<ArcSinh32>, f64::asinh),
            ("arccosh", unary_at::<ArcCosh32>, f64::acosh),
            ("arctanh", unary_at::<ArcTanh32>, f64::atanh),
        ];
        for (name, run, reference) in cases {
            check32(name, &inputs(-40.0, 38.0, 5), (run, reference), (1, 1));
        }
    }

    #[test]
    fn edges_infinities_and_nan() {
        let inf = f32::INFINITY;
        let xs = [0.0f32, -0.0, 1.0, -1.0, inf, -inf, f32::NAN, 0.5, 2.0];
        for lvl in levels() {
            let run = |f: Run32At| {
                let mut ys = [7.0f32; 9];
                f(lvl, &mut ys, &xs);
                ys
            };
            let s = run(unary_at::<ArcSinh32>);
            assert_eq!(s[..6].iter().map(|v| v.to_bits()).collect::<Vec<_>>(), {
                let want = [0.0f32, -0.0, 1f32.asinh(), -(1f32.asinh()), inf, -inf];
                want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            });
            assert!(s[6].is_nan());
            let c = run(unary_at::<ArcCosh32>);
            assert!(c[0].is_nan() && c[3].is_nan() && c[5].is_nan() && c[6].is_nan());
            assert_eq!((c[2], c[4]), (0.0, inf), "{lvl:?}");
            let t = run(unary_at::<ArcTanh32>);
            assert_eq!(t[0].to_bits(), 0);
            assert_eq!(t[1].to_bits(), (-0.0f32).to_bits());
            assert_eq!((t[2], t[3]), (inf, -inf), "{lvl:?}");
            assert!(t[4].is_nan() && t[5].is_nan() && t[6].is_nan() && t[8].is_nan());
        }
    }
}
