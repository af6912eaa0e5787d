//! The Gaussian hypergeometric function ₂F₁(a, b; c; z) on the real line,
//! and its derivatives in `a` and `c` (in `b` by the symmetry in a ↔ b).
//!
//! The value sums the hypergeometric series (DLMF 15.2.1) for `0 ≤ z < 1`;
//! for `z < 0` it first applies Pfaff's transformation (DLMF 15.8.1),
//! ₂F₁(a, b; c; z) = (1-z)^-a ₂F₁(a, c-b; c; z/(z-1)), whose argument lies
//! in [0, 1), which avoids the alternating series' cancellation and reaches
//! `z < -1`; at `z = 1` it is Gauss's sum (DLMF 15.4.20) where it
//! converges. As SciPy's real `hyp2f1`, `z > 1` gives infinity and so
//! does a pole `c = 0, -1, ...` that the series reaches.
//!
//! The value's series runs in double-double arithmetic (Dekker; the sums
//! and products of Hida, Li and Bailey's QD library), parameters and the
//! Pfaff argument included: where `c < min(a, b)` and `z < 0` its terms
//! cancel by up to ~10⁸ (2F1(19, 17.5; 0.3; -0.85) lost 7 digits in
//! doubles).
//!
//! The derivatives are the series itself in dual numbers, term by term,
//! with PyTensor's rules: 0 at `z = 0`, NaN where the series does not
//! converge (|z| > 1, or z = ±1 with c ≤ a + b, unless it terminates), at
//! least 10 terms, and stop once a term's derivative is under 1e-14.

use super::special_dual::Dual;
use dd::Dd;

const EPS: f64 = f64::EPSILON;
const MAX_TERMS: usize = 1_000_000;

fn nonpositive_int(v: f64) -> bool {
    v <= 0.0 && v == v.floor()
}

/// The series `Σ (a)ₖ (b)ₖ / ((c)ₖ k!) zᵏ`, in duals; `None` if it had
/// not converged after `MAX_TERMS` terms. `done(k, term, sum)` says when
/// to stop; a zero factor `(a + k)` ends a terminating series.
fn series(
    a: Dual,
    b: Dual,
    c: Dual,
    z: f64,
    done: impl Fn(usize, Dual, Dual) -> bool,
) -> Option<Dual> {
    let mut term = Dual::c(1.0);
    let mut sum = term;
    for k in 0..MAX_TERMS {
        let kf = k as f64;
        let ratio = (a + kf) * (b + kf) / ((c + kf) * (kf + 1.0)) * z;
        if ratio.v == 0.0 {
            return Some(sum);
        }
        term = term * ratio;
        sum = sum + term;
        if done(k, term, sum) || !sum.v.is_finite() {
            return Some(sum);
        }
    }
    None
}

/// ₂F₁(a, b; c; z).
pub(crate) fn hyp2f1(a: f64, b: f64, c: f64, z: f64) -> f64 {
    if [a, b, c, z].iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    // SciPy's (Cephes') order of its special cases, which decides the
    // degenerate ones (c = 0 with a or b = 0).
    if z == 0.0 {
        return 1.0;
    }
    if z == 1.0 && c == 0.0 {
        return f64::INFINITY;
    }
    if a == c {
        return (1.0 - z).powf(-b);
    }
    if a == 0.0 || b == 0.0 {
        return 1.0;
    }
    // A terminating series: the number of terms before its zero factor.
    let terms = [a, b]
        .iter()
        .filter(|v| nonpositive_int(**v))
        .map(|v| -v)
        .fold(f64::INFINITY, f64::min);
    if nonpositive_int(c) && -c < terms {
        return f64::INFINITY;
    }
    let value = |a: Dd, b: Dd, z: Dd| value_series(a, b, Dd::from(c), z);
    if terms.is_finite() {
        return value(a.into(), b.into(), z.into());
    }
    if z == 1.0 {
        return gauss_sum(a, b, c);
    }
    if z > 1.0 {
        return f64::INFINITY;
    }
    if z < 0.0 {
        // Pfaff on whichever parameter keeps the new series' terms of one sign.
        let w = Dd::from(z) / Dd::diff(z, 1.0);
        let (p, q) = if c - b >= 0.0 || c - a < 0.0 {
            (a, Dd::diff(c, b))
        } else {
            (b, Dd::diff(c, a))
        };
        return (1.0 - z).powf(-p) * value(p.into(), q, w);
    }
    value(a.into(), b.into(), z.into())
}

/// The hypergeometric series in double-double, to a double's precision;
/// NaN if it had not converged after `MAX_TERMS` terms.
fn value_series(a: Dd, b: Dd, c: Dd, z: Dd) -> f64 {
    let one = Dd::from(1.0);
    let mut term = one;
    let mut sum = one;
    let mut k = Dd::from(0.0);
    for _ in 0..MAX_TERMS {
        let ratio = (a + k) * (b + k) / ((c + k) * (k + one)) * z;
        if ratio.hi == 0.0 {
            return sum.hi;
        }
        term = term * ratio;
        sum = sum + term;
        if term.hi.abs() <= 1e-3 * EPS * sum.hi.abs() || !sum.hi.is_finite() {
            return sum.hi;
        }
        k = k + one;
    }
    f64::NAN
}

/// Double-double numbers `hi + lo` (|lo| ≤ ulp(hi)/2): about 32 digits.
mod dd {
    use std::ops::{Add, Div, Mul, Sub};

    #[derive(Clone, Copy, Debug)]
    pub(super) struct Dd {
        pub hi: f64,
        pub lo: f64,
    }

    /// `a + b` exactly, as a rounded sum and its error (Knuth).
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    }

    /// [`two_sum`] for `|a| ≥ |b|` (Dekker).
    fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        (s, b - (s - a))
    }

    impl Dd {
        /// `a - b` exactly.
        pub fn diff(a: f64, b: f64) -> Dd {
            let (hi, lo) = two_sum(a, -b);
            Dd { hi, lo }
        }
    }

    impl From<f64> for Dd {
        fn from(hi: f64) -> Dd {
            Dd { hi, lo: 0.0 }
        }
    }

    impl From<Dd> for f64 {
        fn from(x: Dd) -> f64 {
            x.hi
        }
    }

    impl Add for Dd {
        type Output = Dd;
        fn add(self, o: Dd) -> Dd {
            let (s, e) = two_sum(self.hi, o.hi);
            let (t, f) = two_sum(self.lo, o.lo);
            let (s, e) = quick_two_sum(s, e + t);
            let (hi, lo) = quick_two_sum(s, e + f);
            Dd { hi, lo }
        }
    }

    impl Sub for Dd {
        type Output = Dd;
        fn sub(self, o: Dd) -> Dd {
            self + Dd {
                hi: -o.hi,
                lo: -o.lo,
            }
        }
    }

    impl Mul for Dd {
        type Output = Dd;
        fn mul(self, o: Dd) -> Dd {
            let p = self.hi * o.hi;
            // The product's rounding error, exactly, by a fused multiply-add.
            let e = self.hi.mul_add(o.hi, -p) + (self.hi * o.lo + self.lo * o.hi);
            let (hi, lo) = quick_two_sum(p, e);
            Dd { hi, lo }
        }
    }

    impl Div for Dd {
        type Output = Dd;
        fn div(self, o: Dd) -> Dd {
            // Long division: three quotient digits, each from the remainder.
            let q1 = self.hi / o.hi;
            let r = self - o * Dd::from(q1);
            let q2 = r.hi / o.hi;
            let r = r - o * Dd::from(q2);
            let q3 = r.hi / o.hi;
            let (hi, lo) = quick_two_sum(q1, q2);
            Dd { hi, lo } + Dd::from(q3)
        }
    }
}

/// ₂F₁(a, b; c; 1) = Γ(c) Γ(c-a-b) / (Γ(c-a) Γ(c-b)) where `c > a + b`.
fn gauss_sum(a: f64, b: f64, c: f64) -> f64 {
    if c <= a + b {
        return f64::INFINITY;
    }
    let (lc, sc) = libm::lgamma_r(c);
    let (lcab, scab) = libm::lgamma_r(c - a - b);
    let (lca, sca) = libm::lgamma_r(c - a);
    let (lcb, scb) = libm::lgamma_r(c - b);
    if nonpositive_int(c - a) || nonpositive_int(c - b) {
        return 0.0;
    }
    f64::from(sc * scab * sca * scb) * (lc + lcab - lca - lcb).exp()
}

/// Whether the series converges, as PyTensor's gradient decides.
fn converges(a: f64, b: f64, c: f64, z: f64) -> bool {
    let mut terms = 0.0;
    let a_poly = nonpositive_int(a);
    if a_poly {
        terms = a.abs().floor();
    }
    let b_poly = nonpositive_int(b) && b.abs() >= terms;
    if b_poly {
        terms = b.abs().floor();
    }
    let undefined = nonpositive_int(c) && c.abs() <= terms;
    !undefined && (a_poly || b_poly || z.abs() < 1.0 || (z.abs() == 1.0 && c > a + b))
}

/// The derivative of the series in the parameter `a`, `b` and `c` seed.
fn derivative(a: Dual, b: Dual, c: Dual, z: f64) -> f64 {
    if [a.v, b.v, c.v, z].iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    if z == 0.0 {
        return 0.0;
    }
    if !converges(a.v, b.v, c.v, z) {
        return f64::NAN;
    }
    let done = |k: usize, t: Dual, _: Dual| k >= 10 && t.d.abs() <= 1e-14;
    series(a, b, c, z, done).map_or(f64::NAN, |s| s.d)
}

/// ∂₂F₁(a, b; c; z)/∂a (∂/∂b is this with `a` and `b` swapped).
pub(crate) fn hyp2f1_der_a(a: f64, b: f64, c: f64, z: f64) -> f64 {
    derivative(Dual::var(a), Dual::c(b), Dual::c(c), z)
}

/// ∂₂F₁(a, b; c; z)/∂c.
pub(crate) fn hyp2f1_der_c(a: f64, b: f64, c: f64, z: f64) -> f64 {
    derivative(Dual::c(a), Dual::c(b), Dual::var(c), z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elemwise::special_check::check_rows;

    #[test]
    fn values_match_scipy() {
        // ([a, b, c, z], [scipy.special.hyp2f1(a, b, c, z)]).
        check_rows(
            [("hyp2f1", |[a, b, c, z]| hyp2f1(a, b, c, z))],
            &[
                ([1.0, 1.0, 2.0, -5.0], [0.358_351_893_845_610_1]),
                ([0.5, 1.5, 2.5, 0.6], [1.278_662_789_835_944]),
                ([19.0, 17.5, 0.3, -0.85], [-2.264_857_715_769_39e-5]),
                ([3.0, 4.0, 12.5, 1.0], [4.278_321_678_321_678]),
                ([-3.0, 2.0, 1.5, 2.0], [-2.428_571_428_571_428_4]),
            ],
            1e-11,
        );
        assert_eq!(hyp2f1(2.0, 13.0, 21.0, 1.2), f64::INFINITY);
        assert_eq!(hyp2f1(1.0, 12.0, 10.0, 1.0), f64::INFINITY);
        assert_eq!(hyp2f1(1.0, 1.0, -2.0, 0.5), f64::INFINITY);
        // SciPy's degenerate cases.
        for (a, b, c, z, want) in [
            (0.0, 1.0, 0.0, 1.0, f64::INFINITY),
            (1.0, 0.0, 0.0, 1.0, f64::INFINITY),
            (0.0, 1.0, 0.0, 0.5, 2.0),
            (1.0, 0.0, 0.0, 0.5, 1.0),
            (2.0, 0.0, 2.0, 1.0, 1.0),
            (0.0, 2.0, 1.0, 1.0, 1.0),
            (0.0, 3.0, 0.0, -1.0, 0.125),
            (-2.0, 1.0, -2.0, 0.5, 2.0),
        ] {
            assert_eq!(hyp2f1(a, b, c, z), want, "2F1({a}, {b}; {c}; {z})");
        }
    }

    #[test]
    fn derivatives_match_stans_cases() {
        // ([a, b, c, z], [∂a, ∂b, ∂c]) from STAN's grad_2F1 tests; ∂b is ∂a
        // with a and b swapped.
        check_rows(
            [
                ("hyp2f1_der_a", |[a, b, c, z]| hyp2f1_der_a(a, b, c, z)),
                ("hyp2f1_der_b", |[a, b, c, z]| hyp2f1_der_a(b, a, c, z)),
                ("hyp2f1_der_c", |[a, b, c, z]| hyp2f1_der_c(a, b, c, z)),
            ],
            &[
                (
                    [3.70975, 1.0, 2.70975, -0.2],
                    [-0.0488658806159776, -0.193844936204681, 0.0677809985598383],
                ),
                (
                    [1.0, 31.0, 41.0, 1.0],
                    [6.825270649241036, 0.4938271604938271, -0.382716049382716],
                ),
                (
                    [-0.5, -4.5, -3.2, 0.9],
                    [0.85880025358111, 0.4677704416159314, -4.19010422485256],
                ),
                (
                    [3.70975, 1.0, 2.70975, 0.999696],
                    [29369830.002773938, 36347869.41885337, -30843032.10697079],
                ),
            ],
            1e-9,
        );
        assert!(hyp2f1_der_a(1.0, 1.0, 2.0, -5.0).is_nan());
        assert_eq!(hyp2f1_der_c(1.0, 1.0, 2.0, 0.0), 0.0);
    }
}
