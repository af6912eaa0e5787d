//! float32 `arcsinh`, `arccosh` and `arctanh` in float32 arithmetic (16
//! lanes on AVX-512): the logarithm's argument as an exact-enough float32
//! pair (FMA products, error-free sums, a square root or quotient with its
//! remainder), then `log_pair32`'s logarithm, as two stages of a
//! [`Staged`] loop; within 0.55 ulp of the exact result (every float32
//! checked), so within 1 of libm's rounded. On one thread: 1.0x NumPy's
//! time (arctanh 1.2x), where the float64 route with `narrow`'s `log1p`
//! took 2.2–2.6x; one loop instead of two stages takes 1.15–1.3x.
//! Without FMA (the baseline build) the pairs cannot be formed, so that
//! build keeps the float64 route in its first stage.

use super::log32::{decompose_normal, fma32};
use super::log_pair32::{combine, fast_two_sum, log_twice, reduce};
use super::narrow::log1p_lite;
use super::simd::Staged;

/// `h = |x|/2` beyond which `sqrt(h^2 ± 1/4)` is `h` to 2^-66 (and
/// `h^2` could overflow).
const BIG: f32 = 4_294_967_296.0;
/// Below this `|x|`, `arcsinh x = x - x^3/6` to 2^-50.
const TINY: f32 = 1.0 / 4096.0;

/// `h^2` as an exact pair.
#[inline(always)]
fn square<const F: bool>(h: f32) -> (f32, f32) {
    let p = h * h;
    (p, fma32::<F>(h, h, -p))
}

/// `sqrt(t + t_lo)` as a pair: the remainder of the rounded root is exact.
#[inline(always)]
fn sqrt_pair<const F: bool>(t: f32, t_lo: f32) -> (f32, f32) {
    let s = t.sqrt();
    (s, (fma32::<F>(-s, s, t) + t_lo) / (s + s))
}

/// `(s, s_lo)`, or `(h, 0)` past [`BIG`].
#[inline(always)]
fn or_big(h: f32, (s, s_lo): (f32, f32)) -> (f32, f32) {
    if h > BIG {
        (h, 0.0)
    } else {
        (s, s_lo)
    }
}

/// `np.arcsinh` on float32: `log(2 (h + sqrt(h^2 + 1/4)))` with `h =
/// |x|/2` (halved so that the sum cannot overflow).
pub(crate) struct ArcSinh32;

impl Staged for ArcSinh32 {
    type T = f32;
    /// `w + w_lo = h + sqrt(h^2 + 1/4)`.
    #[inline(always)]
    fn first<const F: bool>(x: f32) -> (f32, f32) {
        if !F {
            return (wide_asinh(x), 0.0);
        }
        let h = 0.5 * x.abs();
        let (p, p_lo) = square::<F>(h);
        let (big, small) = if p > 0.25 { (p, 0.25) } else { (0.25, p) };
        let (u, u_lo) = fast_two_sum(big, small);
        let (s, s_lo) = or_big(h, sqrt_pair::<F>(u, u_lo + p_lo));
        let (w, w_lo) = fast_two_sum(s, h);
        (w, w_lo + s_lo)
    }

    #[inline(always)]
    fn second<const F: bool>(x: f32, w: f32, w_lo: f32) -> f32 {
        if !F {
            return w;
        }
        let a = x.abs();
        let r = if a < TINY {
            fma32::<F>(a * a, a * (-1.0 / 6.0), a)
        } else {
            log_twice::<F>(w, w_lo)
        };
        // inf and NaN are their own arcsinh.
        let r = if a < f32::INFINITY { r } else { a };
        r.copysign(x)
    }
}

/// `np.arccosh` on float32: `log(2 (h + sqrt(h^2 - 1/4)))` with `h = x/2`.
pub(crate) struct ArcCosh32;

impl Staged for ArcCosh32 {
    type T = f32;
    /// `w + w_lo = h + sqrt(h^2 - 1/4)`.
    #[inline(always)]
    fn first<const F: bool>(x: f32) -> (f32, f32) {
        if !F {
            return (wide_acosh(x), 0.0);
        }
        let h = 0.5 * x;
        let (p, p_lo) = square::<F>(h);
        let (t, t_lo) = fast_two_sum(p, -0.25);
        let (s, s_lo) = or_big(h, sqrt_pair::<F>(t, t_lo + p_lo));
        let (w, w_lo) = fast_two_sum(h, s);
        (w, w_lo + s_lo)
    }

    #[inline(always)]
    fn second<const F: bool>(x: f32, w: f32, w_lo: f32) -> f32 {
        if !F {
            return w;
        }
        let r = log_twice::<F>(w, w_lo);
        // At 1 the root's remainder is 0/0; below 1 and NaN: NaN (no
        // comparison holds for NaN).
        if x > 1.0 && x < f32::INFINITY {
            r
        } else if x == 1.0 {
            0.0
        } else if x == f32::INFINITY {
            x
        } else {
            f32::NAN
        }
    }
}

/// `np.arctanh` on float32: `log(q)/2`, `q = (1 + a)/(1 - a)`, `a = |x|`.
pub(crate) struct ArcTanh32;

impl Staged for ArcTanh32 {
    type T = f32;
    /// `q + q_lo`, from `1 ± a` as exact pairs.
    #[inline(always)]
    fn first<const F: bool>(x: f32) -> (f32, f32) {
        if !F {
            return (wide_atanh(x), 0.0);
        }
        let a = x.abs();
        let (n, n_lo) = fast_two_sum(1.0, a);
        let (d, d_lo) = fast_two_sum(1.0, -a);
        let q = n / d;
        let rem = fma32::<F>(-q, d, n);
        (q, (rem + fma32::<F>(-q, d_lo, n_lo)) / d)
    }

    #[inline(always)]
    fn second<const F: bool>(x: f32, q: f32, q_lo: f32) -> f32 {
        if !F {
            return q;
        }
        let a = x.abs();
        let (e, f) = decompose_normal(q);
        // Below 0.1716 (q < sqrt 2, e = 0) log q is 2 atanh(a): take s = a,
        // exact, rather than q's reduction.
        let near = e == 0.0;
        let s = if near { (a, 0.0) } else { reduce::<F>(f) };
        let c = if near { 0.0 } else { q_lo / q };
        atanh_domain(a, combine::<F>(e, s, c, 0.5), x)
    }
}

/// `arctanh(x)` from `r`, its value for `a = |x| < 1`: infinite at 1, NaN
/// beyond (and for NaN), with `x`'s sign.
#[inline(always)]
fn atanh_domain<A: PartialOrd + From<f32>>(a: A, r: f32, x: f32) -> f32 {
    let r = if a < A::from(1.0) {
        r
    } else if a == A::from(1.0) {
        f32::INFINITY
    } else {
        f32::NAN
    };
    r.copysign(x)
}

/// `arcsinh` in float64 (the baseline build): `log1p(a + a^2 / (1 +
/// sqrt(1 + a^2)))`, exact inputs (a float32 is exact in float64), 2^-40.
#[inline(always)]
fn wide_asinh(x: f32) -> f32 {
    let a = f64::from(x.abs());
    let r = log1p_lite::<false>(a + a * a / (1.0 + (1.0 + a * a).sqrt())) as f32;
    // inf and NaN are their own arcsinh.
    let r = if a < f64::INFINITY { r } else { x.abs() };
    r.copysign(x)
}

/// `arccosh` in float64: `log1p((a - 1) + sqrt((a - 1)(a + 1)))`.
#[inline(always)]
fn wide_acosh(x: f32) -> f32 {
    let a = f64::from(x);
    let d = a - 1.0;
    let r = log1p_lite::<false>(d + (d * (a + 1.0)).sqrt()) as f32;
    if a == f64::INFINITY {
        f32::INFINITY
    } else if a >= 1.0 {
        r
    } else {
        f32::NAN
    }
}

/// `arctanh` in float64: `log1p(2a / (1 - a)) / 2`.
#[inline(always)]
fn wide_atanh(x: f32) -> f32 {
    let a = f64::from(x.abs());
    atanh_domain(
        a,
        (0.5 * log1p_lite::<false>(2.0 * a / (1.0 - a))) as f32,
        x,
    )
}

#[cfg(test)]
#[path = "arc_hyperbolic32_tests.rs"]
mod tests;
