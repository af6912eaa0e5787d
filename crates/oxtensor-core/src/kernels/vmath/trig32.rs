//! float32 `sin` and `cos` in float32 arithmetic (16 lanes to an AVX-512
//! vector; through float64 they took 1.4x NumPy's time), and the float32
//! reduction `x - k π/2` they share with `tan32.rs`: Cody–Waite in three
//! float32 parts, |x| past 4096 (and inf, NaN) to libm. `sin r` and
//! `cos r` by minimax polynomials, chosen and signed by `k mod 4`. Within
//! 1.6 ulp of the correctly rounded result (every float32 below 4096
//! checked once, outside the tests), 2 of libm's rounded: NumPy's own
//! float32 loops state 1.49.

use super::guarded::GuardedIn;
use super::log32::fma32;
use super::trig::sin_cos_kinds;

/// 1.5 * 2^23: adding it rounds to an integer held in the low mantissa bits.
const SHIFTER: f32 = 12_582_912.0;
/// Past this the fast path's reduction is not used: the baseline build's
/// exact products need `k < 2^12`, and the FMA builds' error grows with
/// `k` (2.9 ulp below 2^16, 4 below 2^20, measured on every float32).
pub(super) const REDUCE_MAX: f32 = 4096.0;
/// π/2 = P1 + P2 + P3 (+ 1.1e-23), each the float32 nearest to what is
/// left. With FMA `x - k P1` is exact (a multiple of 2^-23 below 2, as
/// both terms are), and the other two products enter unrounded.
const P1: f32 = f32::from_bits(0x3fc9_0fdb);
const P2: f32 = f32::from_bits(0xb33b_bd2e);
const P3: f32 = f32::from_bits(0xa6f7_2ced);
/// π/2 = Q1 + Q2 + Q3 + Q4 (+ 2e-21) for the build without FMA: Q1 to Q3
/// of 12 bits, so `k Qi` is exact for `k < 2^12` and the first
/// differences are too.
const Q1: f32 = 1.570_800_8;
const Q2: f32 = -4.453_584_6e-6;
const Q3: f32 = -8.706_138e-10;
const Q4: f32 = 6.223_372e-14;
/// `sin r = r + r^3 S(r^2)` for |r| <= π/4 (1 + 2^-10): minimax, relative
/// error 2^-27.8 (linear programming on 4000 points, the coefficients
/// rounded to float32 one at a time, the rest refitted).
const S: [f32; 3] = [-0.166_666_54, 0.008_332_107, -0.000_195_080_72];
/// `cos r = 1 - r^2/2 + r^4 C(r^2)` on the same range, fitted alike: 2^-32.9.
const C: [f32; 3] = [0.041_666_646, -0.001_388_730_7, 2.443_194_5e-5];
const SIGN: u32 = 1 << 31;

/// `x - k π/2` for 0 <= x <= REDUCE_MAX, and `t = SHIFTER + k`.
#[inline(always)]
pub(super) fn reduce<const F: bool>(x: f32) -> (f32, f32) {
    let t = fma32::<F>(x, std::f32::consts::FRAC_2_PI, SHIFTER);
    let k = t - SHIFTER;
    let r = if F {
        fma32::<F>(-k, P3, fma32::<F>(-k, P2, fma32::<F>(-k, P1, x)))
    } else {
        (((x - k * Q1) - k * Q2) - k * Q3) - k * Q4
    };
    (r, t)
}

/// `sin x` (`COS` false) or `cos x` for |x| <= REDUCE_MAX: `sin r` or
/// `cos r` by the parity of `k` (shifted by one for the cosine), negated
/// in the quadrants where the function is, and for the sine of a
/// negative `x`.
#[inline(always)]
fn sin_or_cos<const F: bool, const COS: bool>(x: f32) -> f32 {
    let (r, t) = reduce::<F>(x.abs());
    let z = r * r;
    let sp = fma32::<F>(fma32::<F>(S[2], z, S[1]), z, S[0]);
    let s = fma32::<F>(r * z, sp, r);
    let cp = fma32::<F>(fma32::<F>(C[2], z, C[1]), z, C[0]);
    let c = fma32::<F>(z * z, cp, fma32::<F>(-0.5, z, 1.0));
    let q = t.to_bits().wrapping_add(u32::from(COS));
    let v = if q & 1 == 1 { c } else { s };
    let flip = ((q & 2) << 30) ^ if COS { 0 } else { x.to_bits() & SIGN };
    f32::from_bits(v.to_bits() ^ flip)
}

/// `np.sin` and `np.cos` on float32.
pub(crate) struct Sin32;
pub(crate) struct Cos32;

/// Outside the reduction's range, and NaN.
#[inline(always)]
pub(super) fn far(x: f32) -> bool {
    x.abs() > REDUCE_MAX || x.is_nan()
}

sin_cos_kinds!(GuardedIn, f32, [type T = f32;], Sin32, Cos32);

#[cfg(test)]
mod tests {
    use super::super::guarded::unary_in_at;
    use super::super::test_support::{and_negated, around32, check32, near_half_pis32, Rng};
    use super::*;

    /// Within 2 ulp of libm's float64 result rounded (1.6 of the exact
    /// one; 3 in the build without FMA), on random float32 up to past 2^20, every
    /// neighbour of the float32 nearest to k π/2 through the fast range,
    /// and the special values; the FMA builds agree bit for bit.
    #[test]
    fn within_2_ulp_of_libm_rounded() {
        let mut rng = Rng(11);
        let mut xs = rng.log_uniforms32(200_000, -30.0, 21.0);
        xs.extend(near_half_pis32(2700, 2));
        xs.extend(around32(REDUCE_MAX, 2, 2));
        xs.extend([0.0, 1e-45, f32::MAX, f32::INFINITY, f32::NAN]);
        let xs = and_negated(xs);
        check32("sin", &xs, (unary_in_at::<Sin32>, f64::sin), (2, 3));
        check32("cos", &xs, (unary_in_at::<Cos32>, f64::cos), (2, 3));
    }
}
