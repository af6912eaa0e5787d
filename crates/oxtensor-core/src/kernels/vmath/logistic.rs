//! The logistic function and softplus of one `f64`, branch-free, both from
//! one `exp(-|x|)` (never overflowing) and a select on the sign of `x`.

use super::exp::exp;
use super::log::log1p;

/// `1 / (1 + e^-x)` within 1.5 ulp: `1 / (1 + t)` for `x >= 0` and
/// `t / (1 + t)` below, with `t = e^-|x|`, so neither branch loses the
/// relative precision of small results.
#[inline(always)]
pub(crate) fn sigmoid<const F: bool>(x: f64) -> f64 {
    let t = exp::<F>(-x.abs());
    let num = if x >= 0.0 { 1.0 } else { t };
    num / (1.0 + t)
}

/// `log(1 + e^x)` as `max(x, 0) + log1p(e^-|x|)`, exact algebra that never
/// overflows (PyTensor's cut-offs at -37, 18 and 33.3 are where the terms
/// dropped there fall below half an ulp, so results agree).
#[inline(always)]
pub(crate) fn softplus<const F: bool>(x: f64) -> f64 {
    let t = exp::<F>(-x.abs());
    // NaN kept: `x < 0` is false for it.
    let pos = if x < 0.0 { 0.0 } else { x };
    pos + log1p::<F>(t)
}
