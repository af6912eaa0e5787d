//! Partial derivatives of SciPy's special functions: the incomplete gamma
//! and beta families, the Bessel functions, Owen's T and `hyp2f1`. The
//! formulas are PyTensor's; its derivatives in shape parameters, which it
//! builds as `ScalarLoop` graphs, are the `*_der*` kernels here. Where
//! PyTensor's gradient is not implemented (Bessel orders, the inverses'
//! shape parameters) the partial is undefined (a `NullType`), as there.
//! `gammau` and `gammal`, which PyTensor leaves without a gradient, get
//! theirs from `gammaincc`'s and `gammainc`'s.

use super::scalar_grad::Partial;
use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, VarId};
use crate::scalar::ScalarKind as K;
use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// The partials of `kind` at the float inputs `x` with output `z`, or
/// `None` for a kind not of this family; `dt` is the gradient dtype.
pub fn partials(
    g: &mut Graph,
    kind: K,
    x: &[VarId],
    z: VarId,
    dt: DType,
) -> Result<Option<Vec<Partial>>> {
    use Partial::*;
    let c = |g: &mut Graph, v: f64| build::scalar_constant(g, dt, v);
    let undefined = |i: usize| {
        Undefined(format!(
            "the gradient of {} with respect to input {i} is not implemented",
            kind.name()
        ))
    };
    Ok(Some(match kind {
        K::GammaInc | K::GammaIncC | K::GammaU | K::GammaL => {
            incomplete_gamma(g, kind, x[0], x[1], z, dt)?
        }
        // d/dp of the inverse: 1 / (the density at y) = Γ(k) e^y y^(1-k).
        K::GammaIncInv | K::GammaIncCInv => {
            let (k, y) = (x[0], z);
            let one = c(g, 1.0);
            let gk = build::elemwise(g, K::Gamma, &[k])?;
            let ey = build::exp(g, y)?;
            let e = build::sub(g, one, k)?;
            let ye = build::pow(g, y, e)?;
            let d = product(g, &[ey, gk, ye])?;
            let d = if kind == K::GammaIncInv {
                d
            } else {
                build::neg(g, d)?
            };
            vec![undefined(0), Times(d)]
        }
        K::J0 => {
            let j1 = build::elemwise(g, K::J1, &[x[0]])?;
            vec![Times(build::neg(g, j1)?)]
        }
        K::J1 | K::I1 => {
            // (J₀ - J₂)/2 and (I₀ + I₂)/2.
            let (order0, orderv) = if kind == K::J1 {
                (K::J0, K::Jv)
            } else {
                (K::I0, K::Iv)
            };
            let two = c(g, 2.0);
            let f0 = build::elemwise(g, order0, &[x[0]])?;
            let f2 = build::elemwise(g, orderv, &[two, x[0]])?;
            let s = if kind == K::J1 {
                build::sub(g, f0, f2)?
            } else {
                build::add(g, f0, f2)?
            };
            vec![Times(half(g, s, dt)?)]
        }
        K::I0 => vec![Times(build::elemwise(g, K::I1, &[x[0]])?)],
        K::Jv | K::Iv | K::Ive => {
            let (v, xv) = (x[0], x[1]);
            let one = c(g, 1.0);
            let below = build::sub(g, v, one)?;
            let above = build::add(g, v, one)?;
            let lo = build::elemwise(g, kind, &[below, xv])?;
            let hi = build::elemwise(g, kind, &[above, xv])?;
            let d = match kind {
                K::Jv => build::sub(g, lo, hi)?,
                K::Iv => build::add(g, lo, hi)?,
                // ive' = (ive(v-1) - 2 sign(x) ive(v) + ive(v+1)) / 2,
                // with PyTensor's sign (-1 at 0).
                _ => {
                    let zero = c(g, 0.0);
                    let pos = build::elemwise(g, K::Gt, &[xv, zero])?;
                    let (two, minus_two) = (c(g, 2.0), c(g, -2.0));
                    let s = build::switch(g, pos, two, minus_two)?;
                    let mid = build::mul(g, s, z)?;
                    let ends = build::add(g, lo, hi)?;
                    build::sub(g, ends, mid)?
                }
            };
            vec![undefined(0), Times(half(g, d, dt)?)]
        }
        // kve' = (1 - v/x) kve(v, x) - kve(v-1, x).
        K::Kve => {
            let (v, xv) = (x[0], x[1]);
            let one = c(g, 1.0);
            let ratio = build::true_div(g, v, xv)?;
            let f = build::sub(g, one, ratio)?;
            let fz = build::mul(g, f, z)?;
            let below = build::sub(g, v, one)?;
            let k1 = build::elemwise(g, K::Kve, &[below, xv])?;
            vec![undefined(0), Times(build::sub(g, fz, k1)?)]
        }
        K::OwensT => owens_t(g, x[0], x[1], dt)?,
        K::BetaInc => {
            let (a, b, xv) = (x[0], x[1], x[2]);
            let da = build::elemwise(g, K::BetaIncDerA, x)?;
            let db = build::elemwise(g, K::BetaIncDerB, x)?;
            // The beta density x^(a-1) (1-x)^(b-1) / B(a, b).
            let one = c(g, 1.0);
            let a1 = build::sub(g, a, one)?;
            let b1 = build::sub(g, b, one)?;
            let nx = build::neg(g, xv)?;
            let l1mx = build::elemwise(g, K::Log1p, &[nx])?;
            let lx = build::log(g, xv)?;
            let t1 = build::mul(g, l1mx, b1)?;
            let t2 = build::mul(g, lx, a1)?;
            let lb = betaln(g, a, b)?;
            let s = build::add(g, t1, t2)?;
            let e = build::sub(g, s, lb)?;
            vec![Times(da), Times(db), Times(build::exp(g, e)?)]
        }
        // d/dp of the inverse: B(a, b) (1-y)^(1-b) y^(1-a).
        K::BetaIncInv => {
            let (a, b, y) = (x[0], x[1], z);
            let one = c(g, 1.0);
            let lb = betaln(g, a, b)?;
            let eb = build::exp(g, lb)?;
            let omy = build::sub(g, one, y)?;
            let omb = build::sub(g, one, b)?;
            let oma = build::sub(g, one, a)?;
            let p1 = build::pow(g, omy, omb)?;
            let p2 = build::pow(g, y, oma)?;
            vec![
                undefined(0),
                undefined(1),
                Times(product(g, &[eb, p1, p2])?),
            ]
        }
        K::Hyp2F1 => {
            let (a, b, cc, zz) = (x[0], x[1], x[2], x[3]);
            let da = build::elemwise(g, K::Hyp2F1DerA, x)?;
            let db = build::elemwise(g, K::Hyp2F1DerA, &[b, a, cc, zz])?;
            let dc = build::elemwise(g, K::Hyp2F1DerC, x)?;
            // (ab/c) ₂F₁(a+1, b+1; c+1; z).
            let one = c(g, 1.0);
            let shifted: Vec<VarId> = [a, b, cc]
                .iter()
                .map(|&p| build::add(g, p, one))
                .collect::<Result<_>>()?;
            let next = build::elemwise(g, K::Hyp2F1, &[shifted[0], shifted[1], shifted[2], zz])?;
            let ab = build::mul(g, a, b)?;
            let f = build::true_div(g, ab, cc)?;
            vec![
                Times(da),
                Times(db),
                Times(dc),
                Times(build::mul(g, f, next)?),
            ]
        }
        K::GammaIncDer | K::BetaIncDerA | K::BetaIncDerB | K::Hyp2F1DerA | K::Hyp2F1DerC => {
            (0..x.len()).map(undefined).collect()
        }
        _ => return Ok(None),
    }))
}

/// `v / 2`.
fn half(g: &mut Graph, v: VarId, dt: DType) -> Result<VarId> {
    let h = build::scalar_constant(g, dt, 0.5);
    build::mul(g, h, v)
}

fn product(g: &mut Graph, vs: &[VarId]) -> Result<VarId> {
    build::elemwise(g, K::Mul, vs)
}

/// `ln B(a, b) = ln Γ(a) + ln Γ(b) - ln Γ(a + b)`.
fn betaln(g: &mut Graph, a: VarId, b: VarId) -> Result<VarId> {
    let la = build::elemwise(g, K::GammaLn, &[a])?;
    let lb = build::elemwise(g, K::GammaLn, &[b])?;
    let ab = build::add(g, a, b)?;
    let lab = build::elemwise(g, K::GammaLn, &[ab])?;
    let s = build::add(g, la, lb)?;
    build::sub(g, s, lab)
}

/// `gammainc`, `gammaincc` and the unregularized `gammal`, `gammau`: in
/// `k` through ∂P/∂k, in `x` the density `x^(k-1) e^-x` (over Γ(k) when
/// regularized).
fn incomplete_gamma(
    g: &mut Graph,
    kind: K,
    k: VarId,
    x: VarId,
    z: VarId,
    dt: DType,
) -> Result<Vec<Partial>> {
    let one = build::scalar_constant(g, dt, 1.0);
    let dp = build::elemwise(g, K::GammaIncDer, &[k, x])?;
    let nx = build::neg(g, x)?;
    let lx = build::log(g, x)?;
    let k1 = build::sub(g, k, one)?;
    let t = build::mul(g, k1, lx)?;
    let unscaled = build::add(g, nx, t)?;
    let regularized = matches!(kind, K::GammaInc | K::GammaIncC);
    let exponent = if regularized {
        let lg = build::elemwise(g, K::GammaLn, &[k])?;
        build::sub(g, unscaled, lg)?
    } else {
        unscaled
    };
    let density = build::exp(g, exponent)?;
    let lower = matches!(kind, K::GammaInc | K::GammaL);
    let dx = if lower {
        density
    } else {
        build::neg(g, density)?
    };
    let dk = if regularized {
        if lower {
            dp
        } else {
            build::neg(g, dp)?
        }
    } else {
        // d/dk (R Γ(k)) = Γ(k) (±∂P/∂k + R ψ(k)), R the regularized value.
        let gk = build::elemwise(g, K::Gamma, &[k])?;
        let psi = build::elemwise(g, K::Psi, &[k])?;
        let r = build::true_div(g, z, gk)?;
        let rpsi = build::mul(g, r, psi)?;
        let sum = if lower {
            build::add(g, dp, rpsi)?
        } else {
            build::sub(g, rpsi, dp)?
        };
        build::mul(g, gk, sum)?
    };
    Ok(vec![Partial::Times(dk), Partial::Times(dx)])
}

/// Owen's T: ∂/∂h = -e^(-h²/2) erf(ah/√2) / (2√(2π)) and
/// ∂/∂a = e^(-(1+a²)h²/2) / (2π(1+a²)).
fn owens_t(g: &mut Graph, h: VarId, a: VarId, dt: DType) -> Result<Vec<Partial>> {
    let c = |g: &mut Graph, v: f64| build::scalar_constant(g, dt, v);
    let h2 = build::sqr(g, h)?;
    let minus_half = c(g, -0.5);
    let e1 = build::mul(g, minus_half, h2)?;
    let g1 = build::exp(g, e1)?;
    let ah = build::mul(g, a, h)?;
    let s = c(g, FRAC_1_SQRT_2);
    let arg = build::mul(g, ah, s)?;
    let erf = build::elemwise(g, K::Erf, &[arg])?;
    let k = c(g, -1.0 / (2.0 * (2.0 * PI).sqrt()));
    let dh = product(g, &[k, g1, erf])?;
    let one = c(g, 1.0);
    let a2 = build::sqr(g, a)?;
    let a21 = build::add(g, a2, one)?;
    let t = build::mul(g, a21, h2)?;
    let e2 = build::mul(g, minus_half, t)?;
    let g2 = build::exp(g, e2)?;
    let two_pi = c(g, 2.0 * PI);
    let den = build::mul(g, two_pi, a21)?;
    let da = build::true_div(g, g2, den)?;
    Ok(vec![Partial::Times(dh), Partial::Times(da)])
}
