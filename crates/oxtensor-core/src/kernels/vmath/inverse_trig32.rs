//! float32 `arcsin` and `arccos` in float64 with a shorter polynomial than
//! the float64 kernels' (a degree-6 fit in `z` to 2^-35 relative, against
//! their 13 terms), rounded once: within 1 ulp of libm's rounded result.
//! `asin w = w + w z P(z)` with `w = |x|`, `z = w^2` up to 1/2, else
//! `w = sqrt((1 - |x|)/2)` (exact inputs: a float32 is exact in float64)
//! and `asin |x| = π/2 - 2 asin w`. Through the float64 kernels these took
//! 1.5x NumPy's time. Outside [-1, 1] the square root's NaN carries
//! through, as does a NaN argument.

use super::exp::fma;
use super::simd::unary_kernels;
use std::f64::consts::{FRAC_PI_2, PI};

/// `P(z)` of `asin w = w + w z P(z)` for `z <= 1/4` (least squares
/// reweighted towards minimax in numpy).
const P: [f64; 7] = [
    0.166_666_671_802_587_8,
    0.074_999_488_979_033_97,
    0.044_659_972_046_103_6,
    0.030_112_527_045_917_183,
    0.024_604_700_901_011_356,
    0.007_509_508_776_270_791,
    0.034_646_285_283_285_2,
];

/// `(asin w, small)` for `w` the reduced argument of `|x|` (`small`:
/// `|x| <= 1/2`, `w = |x|`; else `w = sqrt((1 - |x|)/2)`).
#[inline(always)]
fn reduced<const F: bool>(x: f32) -> (f64, bool) {
    let a = f64::from(x.abs());
    let small = a <= 0.5;
    let z = if small { a * a } else { (1.0 - a) * 0.5 };
    let w = if small { a } else { z.sqrt() };
    let mut p = fma::<F>(P[6], z, P[5]);
    for &c in P[..5].iter().rev() {
        p = fma::<F>(p, z, c);
    }
    (fma::<F>(w * z, p, w), small)
}

unary_kernels!(f32:
    /// `np.arcsin` on float32.
    pub(crate) ArcSin32 => arcsin32,
);

/// [`ArcSin32`]'s element function.
#[inline(always)]
fn arcsin32<const F: bool>(x: f32) -> f32 {
    let (p, small) = reduced::<F>(x);
    let r = if small { p } else { FRAC_PI_2 - 2.0 * p };
    (r as f32).copysign(x)
}

unary_kernels!(f32:
    /// `np.arccos` on float32: `π/2 - asin x` up to 1/2, `2 asin w` above
    /// and `π - 2 asin w` below -1/2.
    pub(crate) ArcCos32 => arccos32,
);

/// [`ArcCos32`]'s element function.
#[inline(always)]
fn arccos32<const F: bool>(x: f32) -> f32 {
    let (p, small) = reduced::<F>(x);
    let r = if small {
        FRAC_PI_2 - p.copysign(f64::from(x))
    } else if x > 0.0 {
        2.0 * p
    } else {
        PI - 2.0 * p
    };
    r as f32
}

#[cfg(test)]
mod tests {
    use super::super::simd::unary_at;
    use super::super::test_support::{and_negated, around32, check32, Rng};
    use super::*;
    use crate::kernels::cpu::levels;

    fn inputs() -> Vec<f32> {
        let mut rng = Rng(17);
        let mut xs = rng.log_uniforms32(200_000, -40.0, 0.0);
        xs.extend((-200_000..=200_000).map(|i| i as f32 * 5e-6));
        for edge in [0.5f32, 1.0] {
            xs.extend(around32(edge, 300, 0));
        }
        xs.extend([1e-45, f32::MIN_POSITIVE, 1.0 - f32::EPSILON / 2.0]);
        and_negated(xs)
    }

    #[test]
    fn within_1_ulp_of_libm_rounded() {
        check32(
            "arcsin",
            &inputs(),
            (unary_at::<ArcSin32>, f64::asin),
            (1, 1),
        );
        check32(
            "arccos",
            &inputs(),
            (unary_at::<ArcCos32>, f64::acos),
            (1, 1),
        );
    }

    #[test]
    fn zeros_and_outside_the_domain() {
        let xs = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            1.000_000_1,
            -2.0,
            f32::INFINITY,
            f32::NAN,
        ];
        for lvl in levels() {
            let mut s = [7.0f32; 8];
            unary_at::<ArcSin32>(lvl, &mut s, &xs);
            assert_eq!((s[0].to_bits(), s[1].to_bits()), (0, (-0.0f32).to_bits()));
            assert_eq!((s[2], s[3]), (1f32.asin(), -(1f32.asin())), "{lvl:?}");
            let mut c = [7.0f32; 8];
            unary_at::<ArcCos32>(lvl, &mut c, &xs);
            assert_eq!((c[2], c[3]), (0.0, std::f32::consts::PI), "{lvl:?}");
            assert!(s[4..].iter().chain(&c[4..]).all(|v| v.is_nan()), "{lvl:?}");
        }
    }
}
