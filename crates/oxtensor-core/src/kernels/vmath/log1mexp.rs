//! `log1mexp(x) = log(1 - e^x)` for `x < 0`, by Mächler's split (PyTensor's):
//! `log1p(-e^x)` below `-ln 2`, `log(-expm1(x))` above. Branch-free, with
//! one exponential and one logarithm an element: `x = k ln2 + r` and
//! `e^r - 1` once, giving both `e^x` and `-expm1(x)` (where `k` is 0 or
//! -1), then the logarithm of the side's argument (`1 - e^x` as an exact
//! double-double, so `log1p` keeps its precision). float64: zero,
//! positives, NaN and negative subnormals go to the guarded loop's scalar
//! path (within 2 ulp elsewhere); float32 in float32 arithmetic, every
//! value by selects (within 3 ulp).

use super::dd::two_sum;
use super::exp::fma;
use super::exp::{clamp, expm1_poly, reduce, scale};
use super::exp32;
use super::guarded::guarded_kind;
use super::log::{add_e_ln2, log1p_fast, split_normal};
use super::log32::{decompose, fma32, log1p_m, LN2_HI, LN2_LO};
use super::simd::unary_kernels;
use std::f64::consts::LN_2;

/// `log1p(-y)` rounds to `-y` below this.
const TINY: f64 = 1.0 / (1u64 << 54) as f64;

/// `log(1 - e^x)` as PyTensor's scalar op computes it: NaN above 0, -inf
/// at ±0, `-0` at -inf (`log1p(-0)`).
pub(crate) fn log1mexp_scalar(x: f64) -> f64 {
    if x < -LN_2 {
        (-x.exp()).ln_1p()
    } else {
        (-x.exp_m1()).ln()
    }
}

/// `log(1 - e^x)` for `x <= -2^-1022` (-inf included).
#[inline(always)]
fn log1mexp_negative<const F: bool>(x: f64) -> f64 {
    // e^x = 2^k (1 + q); below -746 it is 0.
    let (t, r) = reduce::<F>(clamp(x, -746.0, 0.0));
    let q = expm1_poly::<F>(r);
    let y = scale(1.0 + q, t);
    // -expm1(x) = -2 (h q + (h - 1/2)), h = 2^(k-1): exact but for the
    // FMA's rounding when k is 0 or -1, as above -ln2.
    let h = f64::from_bits(t.to_bits().wrapping_add(1022) << 52);
    let m = -2.0 * fma::<F>(h, q, h - 0.5);
    // The logarithm's argument: 1 - y = u + c exactly, or m (normal).
    let far = x < -LN_2;
    let (u, c) = two_sum(1.0, -y);
    let v = if far { u } else { m };
    let (e, f) = split_normal(v);
    // c 2^-e; e is -1 or 0 when far (u in [1/2, 1]).
    let c2 = if e < 0.0 { 2.0 * c } else { c };
    let (hi, lo) = log1p_fast::<F, true>(f, if far { c2 } else { 0.0 });
    let (s, s_lo) = add_e_ln2::<F>(e, hi, lo);
    // log1p(-y) = -y for tiny y (-0 at y = 0, as PyTensor's).
    if far && y < TINY {
        -y
    } else {
        s + s_lo
    }
}

guarded_kind! {
    /// The float64 loop: the vector code for negative normal `x` and -inf.
    pub(super) struct Log1mexp;
    fast<F>(x) { log1mexp_negative::<F>(x) }
    outside(x) { x.is_nan() || x > -f64::MIN_POSITIVE }
    slow(x) { log1mexp_scalar(x) }
}

/// `log(1 - e^x)` for float32 in float32 arithmetic, as the float64
/// function (exp32's reduction and series, log32's logarithm); -inf at ±0,
/// NaN above 0 and at NaN, `-0` at -inf.
#[inline(always)]
fn log1mexp32<const F: bool>(x: f32) -> f32 {
    let (t, r) = exp32::reduce::<F>(exp32::clamp(x, -104.0, 0.0));
    let q = exp32::expm1_poly::<F>(r);
    let y = exp32::scale(1.0 + q, t);
    let h = f32::from_bits(t.to_bits().wrapping_add(126) << 23);
    let m = -2.0 * fma32::<F>(h, q, h - 0.5);
    // Below 2^-25, -expm1(x) is -x (where `h q` could round to 0).
    let m = if x > -1.0 / 33_554_432.0 { -x } else { m };
    let far = x < -std::f32::consts::LN_2;
    // 1 - y = u + c exactly (|1| >= |y|: Fast2Sum).
    let u = 1.0 - y;
    let c = (1.0 - u) - y;
    let (e, f) = decompose(if far { u } else { m });
    let c2 = if e < 0.0 { 2.0 * c } else { c };
    // c / (1 + f) to 3%, as log32's log1p.
    let corr = if far { c2 } else { 0.0 } * fma32::<F>(-f, fma32::<F>(-f, 1.0 - f, 1.0), 1.0);
    let v = fma32::<F>(e, LN2_HI, fma32::<F>(e, LN2_LO, log1p_m::<F>(f) + corr));
    let v = if far && y < 1.0 / 33_554_432.0 { -y } else { v };
    if x < 0.0 {
        v
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else {
        f32::NAN
    }
}

unary_kernels!(f32:
    /// The float32 loop, every input by selects.
    pub(super) Log1mexp32 => log1mexp32,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::cpu::levels;
    use crate::kernels::vmath::guarded::Guarded;
    use crate::kernels::vmath::simd::unary_at;
    use crate::kernels::vmath::test_support::{check_unary, guarded, ulps32, Rng};

    fn inputs() -> Vec<f64> {
        let mut rng = Rng(61);
        let mut xs: Vec<f64> = (0..100_000).map(|_| -rng.uniform(0.0, 40.0)).collect();
        xs.extend(
            rng.log_uniforms(50_000, -1030.0, 10.0)
                .iter()
                .map(|x| -x.abs()),
        );
        xs.extend([0.0, -0.0, 1.0, -LN_2, -1e-310, -745.0, -800.0]);
        xs.extend([
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -f64::MIN_POSITIVE,
        ]);
        xs
    }

    #[test]
    fn float64_within_2_ulp_of_libm() {
        // glibc's exp, expm1, log and log1p are within 1 ulp, and the
        // split keeps their errors from growing.
        let xs = inputs();
        check_unary(
            "log1mexp",
            &xs,
            guarded::<Log1mexp>(),
            log1mexp_scalar,
            (2, 2),
        );
    }

    #[test]
    fn float32_within_3_ulp() {
        let xs: Vec<f32> = inputs().iter().map(|&x| x as f32).collect();
        for lvl in levels() {
            let mut out = vec![0.0f32; xs.len()];
            unary_at::<Log1mexp32>(lvl, &mut out, &xs);
            for (&x, &y) in xs.iter().zip(&out) {
                let want = log1mexp_scalar(f64::from(x)) as f32;
                let same_zero = y != 0.0 || y.is_sign_negative() == want.is_sign_negative();
                assert!(
                    ulps32(y, want) <= 3 && same_zero,
                    "{x:e} at {lvl:?}: {y:e} vs {want:e}"
                );
            }
        }
    }

    #[test]
    fn edges_are_pytensors() {
        assert_eq!(log1mexp_scalar(0.0), f64::NEG_INFINITY);
        assert!(log1mexp_scalar(1.0).is_nan());
        let far = Log1mexp::fast::<true>(f64::NEG_INFINITY);
        assert!(far == 0.0 && far.is_sign_negative());
    }
}
