//! `|z|` and `angle(z)` of complex slices: each element's (im, re) pair
//! through a guarded two-argument kernel, `sqrt(re² + im²)` where that
//! neither overflows nor underflows (libm `hypot` otherwise) and the float
//! `arctan2`. libm's `hypot` a pair at a time ran at 0.02x NumPy, whose
//! complex `absolute` is a SIMD loop.

use super::guarded::{pairs_at, Guarded2, Lane};
use super::inverse_trig::ArcTan2;
use crate::kernels::cpu::{level, Level};
use num_complex::Complex;

/// Sums of squares from here up have no underflowed part that matters: a
/// part lost to underflow is below 2^-1074, under 2^-110 of the sum.
const SUM_MIN: f64 = 1.0e-289;

/// `hypot(a, b)` (symmetric, so the pair order does not matter).
pub(crate) struct Hypot;

impl Guarded2 for Hypot {
    /// Within 1 ulp: the sum of squares is rounded at most twice (once
    /// with FMA) and `sqrt` halves its relative error.
    #[inline(always)]
    fn fast<const F: bool>(a: f64, b: f64) -> f64 {
        let s = if F {
            a.mul_add(a, b * b)
        } else {
            a * a + b * b
        };
        s.sqrt()
    }
    #[inline(always)]
    fn outside(a: f64, b: f64) -> bool {
        // Zero, tiny, overflowed and NaN sums go to libm.
        !(SUM_MIN..=f64::MAX).contains(&(a * a + b * b))
    }
    fn slow(a: f64, b: f64) -> f64 {
        a.hypot(b)
    }
}

/// `ys[i] = |zs[i]|` with the build at `lvl`.
pub(crate) fn abs_at<E: Lane>(lvl: Level, ys: &mut [E], zs: &[Complex<E>]) {
    pairs_at::<Hypot, E>(lvl, ys, zs);
}

/// `ys[i] = |zs[i]|` (`np.abs` of a complex array).
pub(crate) fn abs<E: Lane>(ys: &mut [E], zs: &[Complex<E>]) {
    abs_at(level(), ys, zs);
}

/// `ys[i] = arctan2(zs[i].im, zs[i].re)` (`np.angle`).
pub(crate) fn angle<E: Lane>(ys: &mut [E], zs: &[Complex<E>]) {
    pairs_at::<ArcTan2, E>(level(), ys, zs);
}

/// One element's `|z|`, computed as the slice loop does (the strided path
/// must give the same values).
pub(crate) fn abs_one<E: Lane>(z: Complex<E>) -> E {
    let mut y = [z.re];
    abs(&mut y, &[z]);
    y[0]
}

/// One element's angle, as [`angle`] computes it.
pub(crate) fn angle_one<E: Lane>(z: Complex<E>) -> E {
    let mut y = [z.re];
    angle(&mut y, &[z]);
    y[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::cpu::levels;

    fn ulps(a: f64, b: f64) -> u64 {
        if a == b || (a.is_nan() && b.is_nan()) {
            return 0;
        }
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    /// Values across every scale, with the edges libm must handle.
    fn samples() -> Vec<Complex<f64>> {
        let mut parts = vec![0.0, -0.0, 1.0, -3.5, 1e-300, 5e-324, 1e300, f64::MAX];
        parts.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 2.5e-162, 1e154]);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let exponent = (seed % 64) as i32 - 32;
            parts.push((seed >> 11) as f64 / (1u64 << 53) as f64 * 2f64.powi(exponent) - 0.3);
        }
        let n = parts.len();
        (0..n * 3)
            .map(|i| Complex::new(parts[i % n], parts[(i * 7 + 3) % n]))
            .collect()
    }

    #[test]
    fn abs_is_within_one_ulp_of_hypot_at_every_level() {
        let zs = samples();
        for lvl in levels() {
            let mut ys = vec![0.0; zs.len()];
            abs_at(lvl, &mut ys, &zs);
            for (y, z) in ys.iter().zip(&zs) {
                let want = z.re.hypot(z.im);
                assert!(ulps(*y, want) <= 1, "{lvl:?} |{z}| = {y}, libm {want}");
            }
        }
    }

    #[test]
    fn float32_abs_and_angle_round_the_float64_result() {
        let zs: Vec<Complex<f32>> = samples()
            .iter()
            .map(|z| Complex::new(z.re as f32, z.im as f32))
            .collect();
        let (mut a, mut t) = (vec![0f32; zs.len()], vec![0f32; zs.len()]);
        abs(&mut a, &zs);
        angle(&mut t, &zs);
        for ((a, t), z) in a.iter().zip(&t).zip(&zs) {
            let (re, im) = (f64::from(z.re), f64::from(z.im));
            assert!(
                ulps(f64::from(*a), re.hypot(im) as f32 as f64) <= 1,
                "|{z}|"
            );
            assert!(
                ulps(f64::from(*t), im.atan2(re) as f32 as f64) <= 1,
                "angle {z}"
            );
        }
    }

    #[test]
    fn angle_matches_arctan2_of_the_parts_and_one_element_calls_agree() {
        let zs = samples();
        let mut ys = vec![0.0; zs.len()];
        angle(&mut ys, &zs);
        for (y, z) in ys.iter().zip(&zs) {
            assert!(ulps(*y, z.im.atan2(z.re)) <= 2, "angle {z} = {y}");
            assert_eq!(y.to_bits(), angle_one(*z).to_bits(), "{z}");
        }
        let mut a = vec![0.0; zs.len()];
        abs(&mut a, &zs);
        for (y, z) in a.iter().zip(&zs) {
            assert_eq!(y.to_bits(), abs_one(*z).to_bits(), "{z}");
        }
    }
}
