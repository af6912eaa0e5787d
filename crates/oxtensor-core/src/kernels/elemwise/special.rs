//! The special-function kinds without a vector loop, one element at a time
//! with SciPy's values on the edge cases: `erfcx`, `gammaln`, `tri_gamma`
//! here; `polygamma` in `polygamma.rs`; the incomplete gamma and beta
//! functions and their inverses and derivatives in `special_gamma.rs` and
//! `special_beta.rs`; the Bessel functions in `special_bessel.rs`; Owen's T
//! in `special_owens.rs`; `hyp2f1` and its derivatives in
//! `special_hyp2f1.rs`. (`erf`, `erfc`, `erfinv`, `erfcinv`, `gamma`,
//! `psi` and `log1mexp` have vector loops in `vmath`, reached through
//! `vmath::kinds` as the trigonometric kinds are.)
//!
//! `gammaln` comes from `libm` (a port of musl's libm), `erfcx` from
//! `puruspe` (a port of libcerf). `tri_gamma` is written here: reflection
//! for negative arguments, the recurrence up to 10, then the asymptotic
//! series. Float32 inputs are computed in float64 and rounded, as SciPy's
//! loops do.

use super::map::{map1_slices, map2, map3, slice_mut, typed};
use super::polygamma::polygamma;
use super::special_bessel as bessel;
use super::special_beta as beta;
use super::special_gamma as gamma;
use super::special_hyp2f1::{hyp2f1, hyp2f1_der_a, hyp2f1_der_c};
use super::special_owens::owens_t;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::iter::{broadcast_strides, Nest};
use crate::kernels::vmath::psi::reflection;
use crate::kernels::Work;
use crate::scalar::ScalarKind;
use crate::tensor::{c_strides, Dims, Element, Tensor};
use num_complex::Complex;
use num_traits::Float;

/// A kind's element function, by arity.
#[derive(Clone, Copy)]
enum Special {
    Unary(fn(f64) -> f64),
    Binary(fn(f64, f64) -> f64),
    Ternary(fn(f64, f64, f64) -> f64),
    Quaternary(fn(f64, f64, f64, f64) -> f64),
}

/// The element function of the kinds this file runs.
fn function(k: ScalarKind) -> Option<Special> {
    use ScalarKind::*;
    use Special::*;
    Some(match k {
        Erfcx => Unary(erfcx),
        GammaLn => Unary(gammaln),
        TriGamma => Unary(trigamma),
        J0 => Unary(bessel::j0),
        J1 => Unary(bessel::j1),
        I0 => Unary(bessel::i0),
        I1 => Unary(bessel::i1),
        Polygamma => Binary(polygamma),
        GammaInc => Binary(gamma::gammainc),
        GammaIncC => Binary(gamma::gammaincc),
        GammaIncInv => Binary(gamma::gammaincinv),
        GammaIncCInv => Binary(gamma::gammainccinv),
        GammaU => Binary(gamma::gammau),
        GammaL => Binary(gamma::gammal),
        GammaIncDer => Binary(gamma::gammainc_der),
        Jv => Binary(bessel::jv),
        Iv => Binary(bessel::iv),
        Ive => Binary(bessel::ive),
        Kve => Binary(bessel::kve),
        OwensT => Binary(owens_t),
        BetaInc => Ternary(beta::betainc),
        BetaIncInv => Ternary(beta::betaincinv),
        BetaIncDerA => Ternary(beta::betainc_der_a),
        BetaIncDerB => Ternary(beta::betainc_der_b),
        Hyp2F1 => Quaternary(hyp2f1),
        Hyp2F1DerA => Quaternary(hyp2f1_der_a),
        Hyp2F1DerC => Quaternary(hyp2f1_der_c),
        _ => return None,
    })
}

/// Runs a special-function kind on a float compute dtype; `None` for the
/// kinds this file does not hold.
pub(crate) fn apply(
    k: ScalarKind,
    dtype: DType,
    ins: &[&Tensor],
    out: &mut Tensor,
) -> Result<Option<()>> {
    let Some(f) = function(k) else {
        return Ok(None);
    };
    match dtype {
        DType::Float32 => run::<f32>(f, ins, out),
        DType::Float64 => run::<f64>(f, ins, out),
        _ => return Ok(None),
    }
    Ok(Some(()))
}

/// `f` over inputs of type `T`, computed in float64 and rounded back.
fn run<T: Float + Element>(f: Special, ins: &[&Tensor], out: &mut Tensor) {
    let wide = |v: T| v.to_f64().unwrap_or(f64::NAN);
    let narrow = |y: f64| T::from(y).unwrap_or_else(T::nan);
    match f {
        Special::Unary(f) => heavy_map(ins[0], out, move |x: T| narrow(f(wide(x)))),
        Special::Binary(f) => map2(ins[0], ins[1], out, move |x: T, y: T| {
            narrow(f(wide(x), wide(y)))
        }),
        Special::Ternary(f) => map3(ins[0], ins[1], ins[2], out, move |x: T, y: T, z: T| {
            narrow(f(wide(x), wide(y), wide(z)))
        }),
        Special::Quaternary(f) => map4(ins, out, move |[a, b, c, d]: [T; 4]| {
            narrow(f(wide(a), wide(b), wide(c), wide(d)))
        }),
    }
}

/// `out[i] = f(ins[0][i], ..., ins[3][i])`, operands broadcast to `out`'s
/// shape, on one thread (only `hyp2f1` and its derivatives take four).
fn map4<T: Element>(ins: &[&Tensor], out: &mut Tensor, f: impl Fn([T; 4]) -> T) {
    let shape = Dims::from(out.shape());
    ins.iter().for_each(|t| typed::<T>(t));
    let strides = [
        broadcast_strides(ins[0], &shape),
        broadcast_strides(ins[1], &shape),
        broadcast_strides(ins[2], &shape),
        broadcast_strides(ins[3], &shape),
        c_strides(out.dtype(), &shape),
    ];
    let nest = Nest::new(&shape, strides);
    let ptrs: [*const u8; 4] = std::array::from_fn(|k| ins[k].as_ptr());
    let po = slice_mut::<T>(out).as_mut_ptr() as *mut u8;
    nest.for_each_run(|offsets, n, steps| {
        for i in 0..n as isize {
            // SAFETY: the offsets and steps come from `broadcast_strides`,
            // which checked that each operand broadcasts to `shape`; the
            // operands hold `T`s (asserted above) and `out` is a fresh
            // C-contiguous `T` tensor of that shape.
            unsafe {
                let args: [T; 4] = std::array::from_fn(|k| {
                    *(ptrs[k].offset(offsets[k] + i * steps[k]) as *const T)
                });
                *(po.offset(offsets[4] + i * steps[4]) as *mut T) = f(args);
            }
        }
    });
}

/// erf of a complex number, as SciPy's: 1 - e^(-z²) w(iz) with the
/// Faddeeva function `w` (`puruspe`, a port of libcerf), on the right
/// half-plane (erf is odd); the Maclaurin series (DLMF 7.6.1) for |z| < 1/2
/// and next to the imaginary axis, where `w` would be evaluated on the real
/// axis and `puruspe`'s is wrong there (its Dawson function: Im w(2) =
/// 0.967, not 0.340). Near that axis the series' terms do not cancel.
pub(crate) fn erf_complex(z: Complex<f64>) -> Complex<f64> {
    if z.re < 0.0 {
        return -erf_complex(-z);
    }
    if z.norm() < 0.5 || z.re < 1e-6 * z.im.abs() {
        let z2 = z * z;
        let (mut power, mut sum) = (z, z);
        for n in 1..5000 {
            power = -power * z2 / n as f64;
            let term = power / (2 * n + 1) as f64;
            sum += term;
            if term.norm() <= 1e-17 * sum.norm() {
                break;
            }
        }
        return sum * std::f64::consts::FRAC_2_SQRT_PI;
    }
    let (re, im) = puruspe::faddeeva(-z.im, z.re);
    Complex::new(1.0, 0.0) - (-(z * z)).exp() * Complex::new(re, im)
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
    use crate::kernels::elemwise::special_check::{check_rows, close};
    use crate::kernels::vmath::psi::digamma;

    #[test]
    fn polygammas_match_scipy() {
        // ([x], [ψ(x), ψ'(x)]) from SciPy.
        check_rows(
            [
                ("digamma", |[x]| digamma(x)),
                ("trigamma", |[x]| trigamma(x)),
            ],
            &[
                ([1.0], [-0.5772156649015329, 1.6449340668482266]),
                ([0.5], [-1.9635100260214235, 4.93480220054468]),
                ([-1.5], [0.7031566406452434, 9.379246644989124]),
                ([30.0], [3.384438132685525, 0.033895060357739946]),
                ([1e-08], [-100000000.57721564, 1e+16]),
            ],
            1e-13,
        );
        assert_eq!(trigamma(-2.0), f64::INFINITY);
        assert_eq!(trigamma(f64::INFINITY), 0.0);
    }

    #[test]
    fn complex_erf_matches_scipy() {
        // (z, scipy.special.erf(z)).
        let cases = [
            (
                Complex::new(0.3, -0.2),
                Complex::new(0.341_237_481_472_138_5, -0.208_528_837_882_768_94),
            ),
            (
                Complex::new(-1.7, 0.25),
                Complex::new(-0.990_257_844_532_815_7, 0.014_120_431_386_143_203),
            ),
            (
                Complex::new(0.0, 2.0),
                Complex::new(0.0, 18.564_802_414_575_553),
            ),
        ];
        for (z, want) in cases {
            let got = erf_complex(z);
            assert!(
                (got - want).norm() <= 1e-13 * want.norm(),
                "erf({z}) = {got}"
            );
        }
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
