//! Special functions (`erf` and its inverses, `gamma`, `gammaln`, `psi`,
//! `tri_gamma`, `log1mexp`) with SciPy's values on the edge cases.
//!
//! `erf`, `erfc`, `gamma` and `gammaln` come from `libm` (a port of musl's
//! libm), `erfcx` from `puruspe` (a port of libcerf). The inverse error
//! functions start from `puruspe`'s estimate and are refined against `libm`'s
//! `erf`/`erfc`, which keeps full relative precision in the tails where the
//! estimate alone loses it. `psi` and `tri_gamma` are written here: reflection
//! for negative arguments, the recurrence up to 10, then the asymptotic series.
//! Float32 inputs are computed in float64 and rounded, as SciPy's loops do.

use super::map::map1;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};
use num_traits::Float;
use std::f64::consts::{FRAC_2_SQRT_PI, LN_2, PI};

/// Runs a special-function kind on a float compute dtype; `None` for the
/// kinds this file does not hold.
pub(super) fn apply(
    k: ScalarKind,
    dtype: DType,
    ins: &[&Tensor],
    out: &mut Tensor,
) -> Result<Option<()>> {
    use ScalarKind::*;
    let a = ins[0];
    if k == Log1mexp {
        match dtype {
            DType::Float32 => map1(a, out, log1mexp::<f32>),
            DType::Float64 => map1(a, out, log1mexp::<f64>),
            _ => return Ok(None),
        }
        return Ok(Some(()));
    }
    let f: fn(f64) -> f64 = match k {
        Erf => libm::erf,
        Erfc => libm::erfc,
        Erfcx => erfcx,
        Erfinv => erfinv,
        Erfcinv => erfcinv,
        Gamma => libm::tgamma,
        GammaLn => gammaln,
        Psi => digamma,
        TriGamma => trigamma,
        _ => return Ok(None),
    };
    match dtype {
        DType::Float32 => via_f64::<f32>(a, out, f),
        DType::Float64 => map1(a, out, f),
        _ => return Ok(None),
    }
    Ok(Some(()))
}

/// `f` computed in float64 for inputs of type `T`, rounded back to `T`.
fn via_f64<T: Float + Element>(a: &Tensor, out: &mut Tensor, f: fn(f64) -> f64) {
    map1(a, out, move |x: T| {
        let y = f(x.to_f64().unwrap_or(f64::NAN));
        T::from(y).unwrap_or_else(T::nan)
    });
}

/// `log(1 - exp(x))`, by PyTensor's split at `log(0.5)` (Mächler, 2012).
fn log1mexp<T: Float>(x: T) -> T {
    let cut = T::from(-LN_2).unwrap_or_else(T::zero);
    if x < cut {
        (-x.exp()).ln_1p()
    } else {
        (-x.exp_m1()).ln()
    }
}

/// `log|Γ(x)|`; SciPy gives -inf at -inf.
fn gammaln(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        x
    } else {
        libm::lgamma(x)
    }
}

/// `exp(x²) erfc(x)`.
fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x == f64::INFINITY {
        0.0
    } else if x == f64::NEG_INFINITY {
        f64::INFINITY
    } else {
        puruspe::erfcx(x)
    }
}

/// Two Halley steps for a root of `f(x) = e(x) - target`, where `e` is `erf`
/// or `erfc` (`sign` of `e'`: 1 or -1). For both, `f''/f' = -2x`.
fn halley(mut x: f64, target: f64, e: fn(f64) -> f64, sign: f64) -> f64 {
    for _ in 0..2 {
        let slope = sign * FRAC_2_SQRT_PI * (-x * x).exp();
        let u = (e(x) - target) / slope;
        if !u.is_finite() {
            break;
        }
        x -= u / (1.0 + x * u);
    }
    x
}

/// The inverse of `erf` on [-1, 1].
fn erfinv(p: f64) -> f64 {
    if p.is_nan() || p.abs() > 1.0 {
        return f64::NAN;
    }
    if p.abs() == 1.0 {
        return p * f64::INFINITY;
    }
    if p == 0.0 {
        return 0.0;
    }
    if p.abs() > 0.5 {
        // 1 - |p| is exact here, and erfc keeps its precision in the tail.
        return p.signum() * erfcinv(1.0 - p.abs());
    }
    // Near 0, erfinv(p) ≈ √π/2 (p + π p³/12); the estimate is refined anyway.
    let start = if p.abs() < 1e-4 {
        p * PI.sqrt() / 2.0 * (1.0 + PI * p * p / 12.0)
    } else {
        puruspe::inverf(p)
    };
    halley(start, p, libm::erf, 1.0)
}

/// The inverse of `erfc` on [0, 2].
fn erfcinv(q: f64) -> f64 {
    if q.is_nan() || !(0.0..=2.0).contains(&q) {
        return f64::NAN;
    }
    if q == 0.0 {
        return f64::INFINITY;
    }
    if q == 2.0 {
        return f64::NEG_INFINITY;
    }
    if q >= 0.5 {
        // erfcinv(q) = erfinv(1 - q), and 1 - q is exact for q in [0.5, 2].
        return erfinv(1.0 - q);
    }
    halley(puruspe::inverfc(q), q, libm::erfc, -1.0)
}

/// `π / tan(πx)` and `(π / sin(πx))²`, with `x` reduced to [-1/2, 1/2]
/// first: both have period 1, and `x - round(x)` is exact.
fn reflection(x: f64) -> (f64, f64) {
    let r = PI * (x - x.round());
    (PI / r.tan(), (PI / r.sin()).powi(2))
}

/// The digamma function ψ(x) = Γ'(x)/Γ(x).
fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        // SciPy: ψ(±0) = ∓∞.
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        return digamma(1.0 - x) - reflection(x).0;
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    // ln x - 1/(2x) - Σ B₂ₖ / (2k x²ᵏ), through k = 7.
    let f = 1.0 / (x * x);
    let series = f
        * (1.0 / 12.0
            - f * (1.0 / 120.0
                - f * (1.0 / 252.0
                    - f * (1.0 / 240.0 - f * (1.0 / 132.0 - f * (691.0 / 32760.0 - f / 12.0))))));
    acc + x.ln() - 0.5 / x - series
}

/// The trigamma function ψ'(x).
fn trigamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    if x <= 0.0 && x == x.floor() {
        // The poles, and -∞ (where SciPy also gives +∞).
        return f64::INFINITY;
    }
    if x < 0.0 {
        return reflection(x).1 - trigamma(1.0 - x);
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    // 1/x + 1/(2x²) + Σ B₂ₖ / x²ᵏ⁺¹, through k = 7.
    let f = 1.0 / (x * x);
    let series = (1.0 / 6.0
        - f * (1.0 / 30.0
            - f * (1.0 / 42.0
                - f * (1.0 / 30.0 - f * (5.0 / 66.0 - f * (691.0 / 2730.0 - f * 7.0 / 6.0))))))
        * f
        / x;
    acc + 1.0 / x + 0.5 * f + series
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rtol: f64) -> bool {
        (a - b).abs() <= rtol * b.abs().max(1e-300)
    }

    #[test]
    fn polygammas_match_scipy() {
        // (x, ψ(x), ψ'(x)) from SciPy.
        let cases = [
            (1.0, -0.5772156649015329, 1.6449340668482266),
            (0.5, -1.9635100260214235, 4.93480220054468),
            (-1.5, 0.7031566406452434, 9.379246644989124),
            (30.0, 3.384438132685525, 0.033895060357739946),
            (1e-08, -100000000.57721564, 1e+16),
        ];
        for (x, psi, tri) in cases {
            assert!(close(digamma(x), psi, 1e-13), "ψ({x}) = {}", digamma(x));
            assert!(close(trigamma(x), tri, 1e-13), "ψ'({x}) = {}", trigamma(x));
        }
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        assert!(digamma(-2.0).is_nan());
        assert_eq!(trigamma(-2.0), f64::INFINITY);
    }

    #[test]
    fn inverse_error_functions_round_trip() {
        for p in [1e-300, 1e-10, 0.3, 0.5, 0.9, 1.0 - 1e-12, -0.75] {
            let x = erfinv(p);
            assert!(close(libm::erf(x), p, 1e-14), "erf(erfinv({p}))");
        }
        for q in [1e-300, 1e-20, 0.01, 0.6, 1.5, 2.0 - 1e-12] {
            let x = erfcinv(q);
            assert!(close(libm::erfc(x), q, 1e-13), "erfc(erfcinv({q}))");
        }
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert!(erfinv(1.5).is_nan());
        assert_eq!(erfcinv(2.0), f64::NEG_INFINITY);
        assert_eq!(erfcx(f64::NEG_INFINITY), f64::INFINITY);
        assert_eq!(log1mexp(0.0f64), f64::NEG_INFINITY);
        assert!(log1mexp(1.0f64).is_nan());
    }
}
