//! The special-function kinds without a vector loop: `erfcx`, `gammaln`
//! and `tri_gamma`, one element at a time with SciPy's values on the edge
//! cases. (`erf`, `erfc`, `erfinv`, `erfcinv`, `gamma`, `psi` and
//! `log1mexp` have vector loops in `vmath`, reached through
//! `vmath::kinds` as the trigonometric kinds are.)
//!
//! `polygamma` (binary) is in `polygamma.rs`.
//!
//! `gammaln` comes from `libm` (a port of musl's libm), `erfcx` from
//! `puruspe` (a port of libcerf). `tri_gamma` is written here: reflection
//! for negative arguments, the recurrence up to 10, then the asymptotic
//! series. Float32 inputs are computed in float64 and rounded, as SciPy's
//! loops do.

use super::map::{map1_slices, map2};
use super::polygamma::polygamma;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::vmath::psi::reflection;
use crate::kernels::Work;
use crate::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};
use num_traits::Float;

/// Runs a special-function kind on a float compute dtype; `None` for the
/// kinds this file does not hold.
pub(crate) fn apply(
    k: ScalarKind,
    dtype: DType,
    ins: &[&Tensor],
    out: &mut Tensor,
) -> Result<Option<()>> {
    use ScalarKind::*;
    if k == Polygamma {
        match dtype {
            DType::Float32 => via_f64_2::<f32>(ins[0], ins[1], out, polygamma),
            DType::Float64 => heavy_map2(ins[0], ins[1], out, polygamma),
            _ => return Ok(None),
        }
        return Ok(Some(()));
    }
    let a = ins[0];
    let f: fn(f64) -> f64 = match k {
        Erfcx => erfcx,
        GammaLn => gammaln,
        TriGamma => trigamma,
        _ => return Ok(None),
    };
    match dtype {
        DType::Float32 => via_f64::<f32>(a, out, f),
        DType::Float64 => heavy_map(a, out, f),
        _ => return Ok(None),
    }
    Ok(Some(()))
}

/// `f` computed in float64 for inputs of type `T`, rounded back to `T`.
fn via_f64<T: Float + Element>(a: &Tensor, out: &mut Tensor, f: fn(f64) -> f64) {
    heavy_map(a, out, move |x: T| {
        let y = f(x.to_f64().unwrap_or(f64::NAN));
        T::from(y).unwrap_or_else(T::nan)
    });
}

/// `f` of two operands computed in float64 for inputs of type `T`.
fn via_f64_2<T: Float + Element>(a: &Tensor, b: &Tensor, out: &mut Tensor, f: fn(f64, f64) -> f64) {
    heavy_map2(a, b, out, move |x: T, y: T| {
        let wide = |v: T| v.to_f64().unwrap_or(f64::NAN);
        T::from(f(wide(x), wide(y))).unwrap_or_else(T::nan)
    });
}

/// `out[i] = f(a[i], b[i])` (operands broadcast) for a costly `f`.
fn heavy_map2<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    out: &mut Tensor,
    f: impl Fn(A, B) -> O + Sync,
) {
    map2(a, b, out, f);
}

/// `out[i] = f(a[i])` for a costly `f` (tens of ns): split across threads
/// from `PARALLEL_MIN` elements, not from the memory-bound loops' 12 MiB
/// (`gammaln` of 10^6 float32 ran on one thread, twice float64's time).
fn heavy_map<A: Element, O: Element>(a: &Tensor, out: &mut Tensor, f: impl Fn(A) -> O + Sync) {
    let slices = |ys: &mut [O], xs: &[A]| ys.iter_mut().zip(xs).for_each(|(y, &x)| *y = f(x));
    map1_slices(a, out, Work::Heavy, &f, slices);
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
    use crate::kernels::vmath::psi::digamma;

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
        assert_eq!(trigamma(-2.0), f64::INFINITY);
        assert_eq!(trigamma(f64::INFINITY), 0.0);
    }

    #[test]
    fn erfcx_and_gammaln_edges_are_scipys() {
        assert_eq!(erfcx(f64::NEG_INFINITY), f64::INFINITY);
        assert_eq!(erfcx(f64::INFINITY), 0.0);
        assert!(close(erfcx(1.0), 0.427583576155807, 1e-14));
        assert_eq!(gammaln(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(gammaln(1.0), 0.0);
    }
}
