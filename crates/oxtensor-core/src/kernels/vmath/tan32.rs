//! float32 `tan` in float32 arithmetic (16 lanes to an AVX-512 vector,
//! where the float64 `Tan` ran at 8 and took 3x NumPy's time): `x - k π/2`
//! by `trig32`'s reduction, `tan r` by a minimax polynomial, `-1/tan r`
//! for odd `k`. |x| past 4096, inf and NaN go to libm. Within
//! 2.5 ulp of the correctly rounded result (every float32 below 4096
//! checked once, outside the tests; the tests sample).

use super::guarded::GuardedIn;
use super::log32::fma32;
use super::trig::far_kind;
use super::trig32::{far, reduce};

/// `tan r = r + r^3 T(r^2)` for |r| <= π/4 (1 + 2^-10): minimax, relative
/// error 2^-29.5 (linear programming on 4000 points, the coefficients
/// rounded to float32 one at a time, the rest refitted).
const T: [f32; 7] = [
    0.333_333_5,
    0.133_326_74,
    0.054_059_25,
    0.021_283_792,
    0.010_835_017,
    8.740_755e-5,
    0.004_378_516,
];
const SIGN: u32 = 1 << 31;

/// `tan r` for |r| <= π/4, by Horner's rule: these loops are bound by
/// throughput, not latency (measured: Estrin's scheme no faster).
#[inline(always)]
fn tan_poly<const F: bool>(r: f32) -> f32 {
    let s = r * r;
    let mut p = fma32::<F>(T[6], s, T[5]);
    p = fma32::<F>(p, s, T[4]);
    p = fma32::<F>(p, s, T[3]);
    p = fma32::<F>(p, s, T[2]);
    p = fma32::<F>(p, s, T[1]);
    p = fma32::<F>(p, s, T[0]);
    fma32::<F>(r * s, p, r)
}

/// `np.tan` on float32.
pub(crate) struct Tan32;

far_kind!(GuardedIn, f32, [type T = f32;], Tan32, tan, fast<F>(x) {
    let (r, t) = reduce::<F>(x.abs());
    let y = tan_poly::<F>(r);
    let v = if t.to_bits() & 1 == 1 { -1.0 / y } else { y };
    f32::from_bits(v.to_bits() ^ (x.to_bits() & SIGN))
});

#[cfg(test)]
mod tests {
    use super::super::guarded::unary_in_at;
    use super::super::test_support::{and_negated, around32, check32, near_half_pis32, Rng};
    use super::super::trig32::REDUCE_MAX;
    use super::*;
    use crate::kernels::cpu::levels;

    /// Random float32 up to past 2^20, every neighbour of the float32
    /// nearest to k π/2 up to past the fast range, the range's ends,
    /// subnormals and the special values, with both signs.
    fn inputs() -> Vec<f32> {
        let mut rng = Rng(13);
        let mut xs = rng.log_uniforms32(200_000, -30.0, 21.0);
        xs.extend((0..100_000).map(|_| rng.uniform(-8.0, 8.0) as f32));
        xs.extend(near_half_pis32(2800, 3));
        xs.extend(around32(REDUCE_MAX, 2, 2));
        xs.extend([1e-45, 1e-40, f32::MIN_POSITIVE, 3e-4, 1e10, f32::MAX]);
        and_negated(xs)
    }

    /// Within 2 ulp of libm's rounded result in the FMA builds (3 in the
    /// baseline one), which agree bit for bit.
    #[test]
    fn within_2_ulp_of_libm_rounded_and_fma_builds_agree() {
        check32("tan", &inputs(), (unary_in_at::<Tan32>, f64::tan), (2, 3));
    }

    #[test]
    fn signed_zeros_tiny_values_and_non_finite_inputs() {
        let xs = [0.0f32, -0.0, 1e-45, -1e-45, 1e-20, -3e-30];
        let nan = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN];
        for lvl in levels() {
            let mut ys = [1.0f32; 6];
            unary_in_at::<Tan32>(lvl, &mut ys, &xs);
            assert_eq!(ys.map(f32::to_bits), xs.map(f32::to_bits), "{lvl:?}");
            let mut zs = [1.0f32; 4];
            unary_in_at::<Tan32>(lvl, &mut zs, &nan);
            assert!(zs.iter().all(|z| z.is_nan()), "{lvl:?}: {zs:?}");
        }
    }
}
