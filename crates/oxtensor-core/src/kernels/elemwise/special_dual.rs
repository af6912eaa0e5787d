//! Forward-mode dual numbers `v + d ε` (ε² = 0) for the special-function
//! kernels: an iteration written once over duals gives a function's value
//! and its derivative in one parameter (the incomplete gamma and beta
//! functions' derivatives in their shape parameters, `hyp2f1`'s in its
//! parameters), each converging with the other. The modified Lentz method
//! for their continued fractions is here too, written once over duals.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A value `v` and its derivative `d` in the chosen parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Dual {
    pub v: f64,
    pub d: f64,
}

impl Dual {
    /// A constant (derivative 0).
    pub fn c(v: f64) -> Dual {
        Dual { v, d: 0.0 }
    }

    /// The parameter itself (derivative 1).
    pub fn var(v: f64) -> Dual {
        Dual { v, d: 1.0 }
    }

    /// `e^self`.
    pub fn exp(self) -> Dual {
        let e = self.v.exp();
        Dual {
            v: e,
            d: e * self.d,
        }
    }

    /// `1 / self`.
    pub fn recip(self) -> Dual {
        let r = 1.0 / self.v;
        Dual {
            v: r,
            d: -self.d * r * r,
        }
    }
}

impl Add for Dual {
    type Output = Dual;
    fn add(self, o: Dual) -> Dual {
        Dual {
            v: self.v + o.v,
            d: self.d + o.d,
        }
    }
}

impl Add<f64> for Dual {
    type Output = Dual;
    fn add(self, o: f64) -> Dual {
        Dual {
            v: self.v + o,
            d: self.d,
        }
    }
}

impl Sub for Dual {
    type Output = Dual;
    fn sub(self, o: Dual) -> Dual {
        Dual {
            v: self.v - o.v,
            d: self.d - o.d,
        }
    }
}

impl Sub<f64> for Dual {
    type Output = Dual;
    fn sub(self, o: f64) -> Dual {
        Dual {
            v: self.v - o,
            d: self.d,
        }
    }
}

impl Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual {
            v: self.v * o.v,
            d: self.d * o.v + self.v * o.d,
        }
    }
}

impl Mul<f64> for Dual {
    type Output = Dual;
    fn mul(self, o: f64) -> Dual {
        Dual {
            v: self.v * o,
            d: self.d * o,
        }
    }
}

impl Div for Dual {
    type Output = Dual;
    fn div(self, o: Dual) -> Dual {
        let v = self.v / o.v;
        Dual {
            v,
            d: (self.d - v * o.d) / o.v,
        }
    }
}

impl Neg for Dual {
    type Output = Dual;
    fn neg(self) -> Dual {
        Dual {
            v: -self.v,
            d: -self.d,
        }
    }
}

/// What the modified Lentz method puts for a denominator nearer zero than
/// this, so that no step divides by zero.
pub(crate) const TINY: f64 = 1e-300;

/// The modified Lentz method's state for a continued fraction
/// `b₀ + a₁/(b₁ + a₂/(b₂ + ...))`: the running ratios `c` and `d` and the
/// value so far `h`. The incomplete gamma and beta functions step theirs
/// here with their own terms.
pub(crate) struct Lentz {
    pub c: Dual,
    pub d: Dual,
    pub h: Dual,
}

impl Lentz {
    /// Starts from `c` and the first denominator `d₀` (moved off zero).
    pub fn new(c: Dual, d0: Dual) -> Lentz {
        let d = guard(d0).recip();
        Lentz { c, d, h: d }
    }

    /// Takes the term `a/(b + ...)` into `c` and `d`, not yet into `h`.
    pub fn next(&mut self, a: Dual, b: Dual) {
        self.d = guard(b + a * self.d).recip();
        self.c = guard(b + a / self.c);
    }

    /// Takes the last term's factor `d c` into `h`; whether that ends the
    /// fraction: value and derivative converged, or `h` no longer finite
    /// (more terms cannot help).
    pub fn converged(&mut self) -> bool {
        let delta = self.d * self.c;
        self.h = self.h * delta;
        let eps = f64::EPSILON;
        let converged = (delta.v - 1.0).abs() <= eps
            && delta.d.abs() <= eps * (1.0 + self.h.d.abs() / self.h.v.abs());
        converged || !self.h.v.is_finite()
    }
}

/// A denominator moved off zero to [`TINY`].
fn guard(v: Dual) -> Dual {
    if v.v.abs() < TINY {
        Dual::c(TINY)
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_follow_the_rules() {
        let x = Dual::var(2.0);
        let y = (x * x + 1.0) / (x - 0.5) * Dual::c(3.0);
        // d/dx 3(x²+1)/(x-1/2) = 3(2x(x-1/2) - (x²+1))/(x-1/2)² = 3(6-5)/2.25
        assert_eq!(y.v, 10.0);
        assert!((y.d - 3.0 / 2.25).abs() < 1e-15);
        let e = (-x).exp();
        assert!((e.d + (-2.0f64).exp()).abs() < 1e-16);
        assert_eq!(x.recip().d, -0.25);
    }
}
