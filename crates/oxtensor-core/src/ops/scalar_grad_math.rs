//! Partial derivatives of the math-library scalar ops: exponentials and
//! logarithms in other bases, rounding, inverse and hyperbolic
//! trigonometry, the error and gamma function families, `clip`, and the
//! parts of complex numbers. `scalar_grad::partials` hands these kinds here;
//! the formulas are PyTensor's. SciPy's other special functions (incomplete
//! gamma and beta, Bessel, Owen's T, `hyp2f1`) are in `scalar_grad_special.rs`.

use super::scalar_grad::{tensor, Partial};
use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, VarId};
use crate::scalar::ScalarKind as K;
use std::f64::consts::{FRAC_2_SQRT_PI, LN_10, LN_2, PI};

/// The partials of `kind` applied to `x` with output `z`; `dt` is the
/// gradient dtype.
pub fn partials(g: &mut Graph, kind: K, x: &[VarId], z: VarId, dt: DType) -> Result<Vec<Partial>> {
    use Partial::*;
    if is_complex_part(kind) {
        return complex_part(g, kind, x[0]);
    }
    let c = |g: &mut Graph, v: f64| build::scalar_constant(g, dt, v);
    // Integer inputs of float outputs: the formulas run in the float dtype
    // (`sqr` of an int8 would wrap).
    let xs: Vec<VarId> = x
        .iter()
        .map(|&v| as_float(g, v, dt))
        .collect::<Result<_>>()?;
    let a = xs[0];
    let t = |v: VarId| Ok(vec![Times(v)]);
    match kind {
        K::RoundHalfToEven | K::RoundHalfAwayFromZero | K::Trunc => Ok(vec![Zero]),
        K::Exp2 => {
            let ln2 = c(g, LN_2);
            t(build::mul(g, z, ln2)?)
        }
        K::Log2 | K::Log10 => {
            let ln = c(g, if kind == K::Log2 { LN_2 } else { LN_10 });
            let d = build::mul(g, a, ln)?;
            t(reciprocal(g, d, dt)?)
        }
        K::ArcSin | K::ArcCos => {
            let d = one_and_sqr(g, a, dt, K::Sub, true)?;
            let r = rsqrt(g, d, dt)?;
            t(if kind == K::ArcSin {
                r
            } else {
                build::neg(g, r)?
            })
        }
        K::ArcTan | K::ArcTanh => {
            let op = if kind == K::ArcTan { K::Add } else { K::Sub };
            let d = one_and_sqr(g, a, dt, op, true)?;
            t(reciprocal(g, d, dt)?)
        }
        K::ArcSinh | K::ArcCosh => {
            let op = if kind == K::ArcSinh { K::Add } else { K::Sub };
            let d = one_and_sqr(g, a, dt, op, false)?;
            t(rsqrt(g, d, dt)?)
        }
        K::ArcTan2 => arctan2(g, xs[0], xs[1]),
        K::Sinh => t(build::elemwise(g, K::Cosh, &[a])?),
        K::Cosh => t(build::elemwise(g, K::Sinh, &[a])?),
        K::Deg2Rad => t(c(g, PI / 180.0)),
        K::Rad2Deg => t(c(g, 180.0 / PI)),
        K::Log1mexp => t(log1mexp(g, a, dt)?),
        K::Erf if tensor(g, x[0])?.dtype.is_complex() => Err(Error::NotImplemented(
            "the gradient of erf of a complex input is not implemented".into(),
        )),
        K::Erf | K::Erfc => {
            let s = c(g, if kind == K::Erf { 1.0 } else { -1.0 } * FRAC_2_SQRT_PI);
            let e = exp_neg_sqr(g, a)?;
            t(build::mul(g, s, e)?)
        }
        K::Erfcx => {
            // -2/√π + 2 x erfcx(x)
            let two = c(g, 2.0);
            let s = c(g, -FRAC_2_SQRT_PI);
            let xz = build::mul(g, a, z)?;
            let xz2 = build::mul(g, two, xz)?;
            t(build::add(g, s, xz2)?)
        }
        K::Erfinv | K::Erfcinv => {
            let s = c(
                g,
                if kind == K::Erfinv { 1.0 } else { -1.0 } * PI.sqrt() / 2.0,
            );
            let z2 = build::sqr(g, z)?;
            let e = build::exp(g, z2)?;
            t(build::mul(g, s, e)?)
        }
        K::Gamma => {
            let p = build::elemwise(g, K::Psi, &[a])?;
            t(build::mul(g, z, p)?)
        }
        K::GammaLn => t(build::elemwise(g, K::Psi, &[a])?),
        K::Psi => t(build::elemwise(g, K::TriGamma, &[a])?),
        K::TriGamma => {
            let two = build::scalar_constant(g, DType::Int64, 2.0);
            t(build::elemwise(g, K::Polygamma, &[two, a])?)
        }
        // The order is an integer: no derivative; ψ⁽ⁿ⁾' = ψ⁽ⁿ⁺¹⁾.
        K::Polygamma => {
            let order_dt = tensor(g, x[0])?.dtype;
            let one = build::scalar_constant(g, order_dt, 1.0);
            let next = build::add(g, x[0], one)?;
            let why = format!(
                "polygamma is not differentiable with respect to its integer order ({})",
                g.describe_var(x[0])
            );
            Ok(vec![
                Undefined(why),
                Times(build::elemwise(g, K::Polygamma, &[next, xs[1]])?),
            ])
        }
        K::Clip => clip_masks(g, x),
        // x / hypot(x, y) and y / hypot(x, y), as PyTensor's.
        K::Hypot => Ok(vec![
            Times(build::true_div(g, xs[0], z)?),
            Times(build::true_div(g, xs[1], z)?),
        ]),
        // log(y) and x / y (log1p(y) and x / (1 + y)), without the
        // kernel's 0 at x = 0: at (0, 0) they are -inf and NaN, as PyTensor's.
        K::XLogY => Ok(vec![
            Times(build::log(g, xs[1])?),
            Times(build::true_div(g, xs[0], xs[1])?),
        ]),
        K::XLog1pY => {
            let one = c(g, 1.0);
            let y1 = build::add(g, one, xs[1])?;
            Ok(vec![
                Times(build::elemwise(g, K::Log1p, &[xs[1]])?),
                Times(build::true_div(g, xs[0], y1)?),
            ])
        }
        other => match super::scalar_grad_special::partials(g, other, &xs, z, dt)? {
            Some(p) => Ok(p),
            None => Err(Error::NotImplemented(format!(
                "no gradient is defined for the scalar op {}",
                other.name()
            ))),
        },
    }
}

fn is_complex_part(kind: K) -> bool {
    matches!(kind, K::Real | K::Imag | K::Conj | K::Angle)
}

/// `real`, `imag`, `conj`, `angle`: real inputs only (oxtensor has no
/// complex gradients); `real` and `conj` pass real gradients through,
/// `imag` and `angle` are constant on the reals.
fn complex_part(g: &Graph, kind: K, x: VarId) -> Result<Vec<Partial>> {
    if tensor(g, x)?.dtype.is_complex() {
        return Err(Error::NotImplemented(format!(
            "the gradient of {} of a complex input is not implemented",
            kind.name()
        )));
    }
    Ok(vec![match kind {
        K::Real | K::Conj => Partial::One,
        _ => Partial::Zero,
    }])
}

/// `v` cast to `dt` when it is an integer or bool.
fn as_float(g: &mut Graph, v: VarId, dt: DType) -> Result<VarId> {
    if tensor(g, v)?.dtype.is_discrete() {
        build::cast(g, v, dt)
    } else {
        Ok(v)
    }
}

/// `1 op a²` (`1 + a²`, `1 - a²`), or `a² op 1` unless `one_first`: the
/// radicands and denominators of the inverse trigonometric derivatives.
fn one_and_sqr(g: &mut Graph, a: VarId, dt: DType, op: K, one_first: bool) -> Result<VarId> {
    let one = build::scalar_constant(g, dt, 1.0);
    let a2 = build::sqr(g, a)?;
    let operands = if one_first { [one, a2] } else { [a2, one] };
    build::elemwise(g, op, &operands)
}

fn reciprocal(g: &mut Graph, d: VarId, dt: DType) -> Result<VarId> {
    let one = build::scalar_constant(g, dt, 1.0);
    build::true_div(g, one, d)
}

fn rsqrt(g: &mut Graph, d: VarId, dt: DType) -> Result<VarId> {
    let s = build::elemwise(g, K::Sqrt, &[d])?;
    reciprocal(g, s, dt)
}

/// `exp(-x²)`.
fn exp_neg_sqr(g: &mut Graph, a: VarId) -> Result<VarId> {
    let a2 = build::sqr(g, a)?;
    let n = build::neg(g, a2)?;
    build::exp(g, n)
}

/// `arctan2(y, x)`: `x / (x² + y²)` and `-y / (x² + y²)`.
fn arctan2(g: &mut Graph, y: VarId, x: VarId) -> Result<Vec<Partial>> {
    let x2 = build::sqr(g, x)?;
    let y2 = build::sqr(g, y)?;
    let r2 = build::add(g, x2, y2)?;
    let dy = build::true_div(g, x, r2)?;
    let ny = build::neg(g, y)?;
    let dx = build::true_div(g, ny, r2)?;
    Ok(vec![Partial::Times(dy), Partial::Times(dx)])
}

/// `-1 / expm1(-x)`, which is -inf (not NaN) at 0.
fn log1mexp(g: &mut Graph, a: VarId, dt: DType) -> Result<VarId> {
    let n = build::neg(g, a)?;
    let m = build::elemwise(g, K::Expm1, &[n])?;
    let minus_one = build::scalar_constant(g, dt, -1.0);
    let res = build::true_div(g, minus_one, m)?;
    let inf = build::elemwise(g, K::IsInf, &[res])?;
    let ninf = build::scalar_constant(g, dt, f64::NEG_INFINITY);
    build::switch(g, inf, ninf, res)
}

/// `clip(x, lo, hi)`: the gradient goes to whichever input was returned.
fn clip_masks(g: &mut Graph, x: &[VarId]) -> Result<Vec<Partial>> {
    let (v, lo, hi) = (x[0], x[1], x[2]);
    let ge = build::elemwise(g, K::Ge, &[v, lo])?;
    let le = build::elemwise(g, K::Le, &[v, hi])?;
    let inside = build::and(g, ge, le)?;
    let below = build::elemwise(g, K::Lt, &[v, lo])?;
    let above = build::elemwise(g, K::Gt, &[v, hi])?;
    Ok([inside, below, above].map(Partial::Times).to_vec())
}
