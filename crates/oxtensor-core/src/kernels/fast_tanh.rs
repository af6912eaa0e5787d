//! A vectorisable `tanh` for `f32`. `f32::tanh` is a libm call per element
//! (measured on 10^6 values: 3.5x NumPy's time, whose float32 loop is SIMD);
//! this one is branch-free `f64` arithmetic that LLVM turns into SIMD code
//! (AVX2 with FMA when the CPU has them, chosen at run time). Computing in
//! `f64` leaves an error near 1e-12 relative before the one rounding to
//! `f32`, so results are the correctly rounded `f32` but for inputs whose
//! `tanh` lies that close to a tie (within 1 ulp always).
//!
//! `tanh(t) = m / (m + 2)` with `m = expm1(2t)`, and `expm1(y) = 2^k q(r) +
//! (2^k - 1)` for `y = k ln2 + r`, `|r| <= ln2/2`, with `q` the series of
//! `expm1` (accurate for small `t` too: no `1 - 2/(e+1)` cancellation).

use super::fast_exp::{fma, LOG2E, SHIFTER};

const LN2: f64 = std::f64::consts::LN_2;
/// `tanh` is 1 in `f64` from here on (1 - 2e^-40 rounds to 1), and
/// `expm1(2t)` stays far from overflow.
const SATURATE: f64 = 20.0;
/// `1/k!` for k = 1..=10: `expm1(r) = r (1 + r/2 + ...)` to r^10, whose
/// truncation error is below 1e-12 relative for |r| <= ln2/2.
const Q: [f64; 10] = [
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5_040.0,
    1.0 / 40_320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
];

/// `expm1(y)` for `y` in [0, 2 * SATURATE].
#[inline(always)]
fn expm1_small_range<const F: bool>(y: f64) -> f64 {
    let t = fma::<F>(y, LOG2E, SHIFTER);
    let k = t - SHIFTER;
    // k <= 58, so `k * LN2`'s rounding error (~1e-15) is far below what
    // the f32 result can see.
    let r = fma::<F>(-k, LN2, y);
    // Estrin's scheme: a dependency chain of 4 steps instead of Horner's 9
    // (the loop was latency-bound: measured 1.3x faster).
    let pair = |i: usize| fma::<F>(Q[i + 1], r, Q[i]);
    let (r2, r4) = (r * r, (r * r) * (r * r));
    let low = fma::<F>(pair(2), r2, pair(0));
    let high = fma::<F>(pair(6), r2, pair(4));
    let poly = fma::<F>(fma::<F>(pair(8), r4, high), r4, low);
    let q = r * poly;
    // The low bits of `t` hold k; shifted into the exponent field: 2^k.
    let scale = f64::from_bits(t.to_bits().wrapping_add(1023) << 52);
    fma::<F>(scale, q, scale - 1.0)
}

/// `tanh(x)` for `f32`, computed in `f64` (NaN stays NaN, the sign of zero
/// is kept); no branches, so a loop of these vectorises.
#[inline(always)]
fn tanh_body<const F: bool>(x: f32) -> f32 {
    let w = f64::from(x);
    // `min` of NaN gives 20: a NaN input is restored below.
    let t = w.abs().min(SATURATE);
    let m = expm1_small_range::<F>(2.0 * t);
    let r = (m / (m + 2.0)).copysign(w);
    if x.is_nan() {
        x
    } else {
        r as f32
    }
}

/// `tanh(x)` for one `f32` (the strided paths), through the same code as
/// [`tanh_f32_slice`] so both give the same bits.
pub fn tanh_f32(x: f32) -> f32 {
    let mut y = [0.0];
    tanh_f32_slice(&mut y, &[x]);
    y[0]
}

/// `ys[i] = tanh(xs[i])`, in AVX2+FMA code where the CPU has them.
pub fn tanh_f32_slice(ys: &mut [f32], xs: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    if super::lanes::has_avx2() && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features the function was compiled for.
        return unsafe { tanh_slice_avx2(ys, xs) };
    }
    tanh_slice::<false>(ys, xs);
}

#[inline(always)]
fn tanh_slice<const F: bool>(ys: &mut [f32], xs: &[f32]) {
    ys.iter_mut()
        .zip(xs)
        .for_each(|(y, &x)| *y = tanh_body::<F>(x));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn tanh_slice_avx2(ys: &mut [f32], xs: &[f32]) {
    tanh_slice::<true>(ys, xs);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libm's `tanh` in `f64`, rounded once: the correctly rounded answer
    /// but for ties within 1e-15.
    fn reference(x: f32) -> f32 {
        f64::from(x).tanh() as f32
    }

    fn inputs() -> Vec<f32> {
        let mut xs: Vec<f32> = (-200_000..200_000).map(|i| i as f32 * 1.3e-4).collect();
        xs.extend((-60..60).map(|e| 2f32.powi(e)));
        xs.extend((-60..60).map(|e| -(2f32.powi(e)) * 1.7));
        xs.extend([
            0.173,
            0.174,
            0.346,
            0.347,
            8.9,
            9.1,
            20.0,
            1e30,
            -1e30,
            f32::MAX,
        ]);
        xs.extend([
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ]);
        xs
    }

    #[test]
    fn within_one_ulp_of_the_rounded_f64_tanh_and_mostly_equal() {
        let xs = inputs();
        let mut ys = vec![0.0; xs.len()];
        tanh_f32_slice(&mut ys, &xs);
        let mut off = 0;
        for (&x, &y) in xs.iter().zip(&ys) {
            let want = reference(x);
            let ulps = (y.to_bits() as i64 - want.to_bits() as i64).abs();
            assert!(ulps <= 1, "tanh({x:e}) = {y:e}, want {want:e}");
            assert!((tanh_f32(x).to_bits() as i64 - want.to_bits() as i64).abs() <= 1);
            off += usize::from(ulps != 0);
        }
        assert!(
            off * 10_000 < xs.len(),
            "{off} of {} off by one ulp",
            xs.len()
        );
    }

    #[test]
    fn nan_and_signed_zeros_at_every_position() {
        for n in [1, 3, 8, 9, 33] {
            for at in [0, n / 2, n - 1] {
                let mut xs = vec![0.5f32; n];
                xs[at] = f32::NAN;
                let mut ys = vec![0.0; n];
                tanh_f32_slice(&mut ys, &xs);
                assert!(ys[at].is_nan());
                assert!(ys
                    .iter()
                    .enumerate()
                    .all(|(i, y)| i == at || *y == reference(0.5)));
            }
        }
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        let mut z = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY];
        let x = z;
        tanh_f32_slice(&mut z, &x);
        assert_eq!(
            z.map(f32::to_bits),
            [0.0f32, -0.0, 1.0, -1.0].map(f32::to_bits)
        );
    }
}
