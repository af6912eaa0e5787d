//! float32 `sinh` and `cosh` in float32 arithmetic (16 lanes to an
//! AVX-512 vector; through float64 they took 2-4x NumPy's time): `e/2 ±
//! 1/(2e)` with `exp32`'s `e = e^|x|`, and for `sinh` below 1, where that
//! difference cancels, an odd minimax polynomial. |x| past 88.5 (where
//! `e^|x|` overflows before the result does), inf and NaN go to libm.
//! Within 1.6 ulp of the correctly rounded result (every float32 checked
//! once, outside the tests), 2 of libm's rounded.

use super::exp32::exp;
use super::guarded::GuardedIn;
use super::log32::fma32;
use super::trig::far_kind;

/// float32 `e^x` overflows past 88.72; `cosh` and `sinh` past 89.41.
const EXP_SAFE: f32 = 88.5;
/// Below this `sinh` is the polynomial.
const SMALL: f32 = 1.0;
/// `sinh a = a + a^3 S(a^2)` for a in [0, 1]: minimax, relative error
/// 2^-31.6 (linear programming on 4000 points, the coefficients rounded to
/// float32 one at a time, the rest refitted).
const S: [f32; 4] = [
    0.166_666_67,
    0.008_333_310_5,
    0.000_198_428_93,
    2.782_259_8e-6,
];

/// Past where `e^|x|` overflows, and NaN.
#[inline(always)]
fn far(x: f32) -> bool {
    x.abs() > EXP_SAFE || x.is_nan()
}

/// `np.cosh` on float32.
pub(crate) struct Cosh32;

far_kind!(GuardedIn, f32, [type T = f32;], Cosh32, cosh, fast<F>(x) {
    let e = exp::<F>(x.abs());
    fma32::<F>(0.5, e, 0.5 / e)
});

/// `np.sinh` on float32.
pub(crate) struct Sinh32;

far_kind!(GuardedIn, f32, [type T = f32;], Sinh32, sinh, fast<F>(x) {
    let a = x.abs();
    let u = a * a;
    let mut p = fma32::<F>(S[3], u, S[2]);
    p = fma32::<F>(p, u, S[1]);
    p = fma32::<F>(p, u, S[0]);
    let small = fma32::<F>(a * u, p, a);
    let e = exp::<F>(a);
    let large = fma32::<F>(0.5, e, -0.5 / e);
    // Both, then a select: the loop stays branch-free.
    if a < SMALL { small } else { large }.copysign(x)
});

#[cfg(test)]
mod tests {
    use super::super::guarded::unary_in_at;
    use super::super::test_support::{and_negated, around32, check32, Rng};
    use super::*;

    fn inputs() -> Vec<f32> {
        let mut rng = Rng(17);
        let mut xs = rng.log_uniforms32(200_000, -30.0, 7.0);
        xs.extend((0..100_000).map(|_| rng.uniform(-3.0, 3.0) as f32));
        for edge in [SMALL, EXP_SAFE, 88.72, 89.4, 89.42] {
            xs.extend(around32(edge, 3, 3));
        }
        xs.extend([0.0, 1e-45, 1e-40, f32::MIN_POSITIVE, 1e4, f32::MAX]);
        xs.extend([f32::INFINITY, f32::NAN]);
        and_negated(xs)
    }

    /// Within 2 ulp of libm's float64 result rounded, zeros and
    /// infinities exact, at every build; the FMA builds agree bit for bit.
    #[test]
    fn within_2_ulp_of_libm_rounded() {
        let xs = inputs();
        check32("sinh", &xs, (unary_in_at::<Sinh32>, f64::sinh), (2, 2));
        check32("cosh", &xs, (unary_in_at::<Cosh32>, f64::cosh), (2, 2));
    }
}
