//! The float32 logarithm of an unevaluated sum `w + w_lo` (the float32
//! arc-hyperbolic functions form their logarithm's argument so), in
//! float32 arithmetic with FMA: `w = 2^e m`, `log m = 2 atanh(s)` with
//! `s = (m - 1)/(m + 1)` as a float32 pair (`|s| <= 0.1716`, so three
//! terms in `s^2` suffice), `e ln2 + 2s` as an exact pair and the small
//! terms (`w_lo / w` among them) added once: within 0.55 ulp of the exact
//! result (the divisions leave the multiply-add pipes free).

use super::log32::{decompose_normal, fma32, LN2_HI, LN2_LO};

/// `(2 atanh(s) - 2s) / s^3` in `z = s^2` on [0, 0.02944]: a fit (numpy,
/// least squares reweighted towards minimax) in float32 coefficients,
/// within 2^-30 of `2 atanh(s)` relative.
const R: [f32; 3] = [0.666_667_76, 0.399_775_7, 0.298_709_78];

/// `(a + b, its rounding error)` for `|a| >= |b|` (or `a = 0`).
#[inline(always)]
pub(super) fn fast_two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    (s, b - (s - a))
}

/// `f / (2 + f)` as a pair `(s, s_lo)`, for `f = m - 1` (exact) with `m` in
/// [sqrt(1/2), sqrt(2)).
#[inline(always)]
pub(super) fn reduce<const F: bool>(f: f32) -> (f32, f32) {
    let (d, d_lo) = fast_two_sum(2.0, f);
    let s = f / d;
    // f - s d is exact (s is the quotient rounded); then less s d_lo.
    let rem = fma32::<F>(-s, d_lo, fma32::<F>(-s, d, f));
    (s, rem / d)
}

/// `k (e ln2 + 2 atanh(s + s_lo) + c)` for `|s| <= 0.1716`, `s_lo` and the
/// correction `c` below 2^-20 of `s` and of 1, and `k` 1 or 1/2 (exact
/// scalings, folded into the constants).
#[inline(always)]
pub(super) fn combine<const F: bool>(e: f32, (s, s_lo): (f32, f32), c: f32, k: f32) -> f32 {
    let z = s * s;
    let r = fma32::<F>(fma32::<F>(R[2] * k, z, R[1] * k), z, R[0] * k);
    // `e LN2_HI` is exact (9 bits times at most 8), and at least ln2/2 above
    // |2s| unless e = 0: the pair is exact.
    let (t, t_lo) = fast_two_sum(e * (LN2_HI * k), (2.0 * k) * s);
    let small = fma32::<F>(2.0 * k, s_lo, fma32::<F>(e, LN2_LO * k, c * k));
    t + fma32::<F>(s * z, r, t_lo + small)
}

/// `log(2 (w + w_lo))` for normal `w >= 1/2` and `|w_lo| <= ulp(w)`.
#[inline(always)]
pub(super) fn log_twice<const F: bool>(w: f32, w_lo: f32) -> f32 {
    let (e, f) = decompose_normal(w);
    combine::<F>(e + 1.0, reduce::<F>(f), w_lo / w, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `log_twice` of pairs whose low part matters, against float64's
    /// logarithm of the exact sum: within 0.55 ulp (the FMA build only: the
    /// exact remainders need FMA).
    #[test]
    fn log_twice_of_pairs_within_0_55_ulp() {
        let mut worst = 0.0f64;
        for i in 0..200_000u32 {
            let w = f32::from_bits(0x3f00_0000 + i * 4001);
            for lo in [0.0, 0.3, -0.45] {
                let w_lo = lo * (f32::from_bits(w.to_bits() + 1) - w);
                let exact = (2.0 * (f64::from(w) + f64::from(w_lo))).ln();
                let got = log_twice::<true>(w, w_lo);
                let ulp = f64::from(f32::from_bits(got.to_bits() + 1) - got);
                worst = worst.max((f64::from(got) - exact).abs() / ulp);
            }
        }
        assert!(worst < 0.55, "{worst} ulp");
    }
}
