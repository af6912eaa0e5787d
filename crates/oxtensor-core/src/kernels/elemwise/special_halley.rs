//! The root finder the incomplete gamma and beta functions' inverses share:
//! Halley's method inside a bisection bracket, on an increasing function
//! whose derivative (a density) is known in closed form.

/// The `x` in `[lo, hi]` (`hi` may be infinite) where the increasing `f`
/// is zero, from the guess `x`: Halley steps with `f' = density(x)` and
/// `f''/f' = curvature(x)`, a bisection (a doubling while `hi` is infinite)
/// where a step leaves the bracket, and NaN where `f` is NaN (its series
/// did not converge). Stops within 4 ulp, or after 300 steps.
pub(super) fn halley_in_bracket(
    f: impl Fn(f64) -> f64,
    density: impl Fn(f64) -> f64,
    curvature: impl Fn(f64) -> f64,
    mut x: f64,
    (mut lo, mut hi): (f64, f64),
) -> f64 {
    let eps = f64::EPSILON;
    for _ in 0..300 {
        let fx = f(x);
        if fx == 0.0 || fx.is_nan() {
            return if fx == 0.0 { x } else { f64::NAN };
        }
        if fx < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = fx / density(x);
        let halley = newton / (1.0 - 0.5 * (newton * curvature(x)).clamp(-1.0, 1.0));
        let mut next = x - if halley.is_finite() { halley } else { newton };
        if !(next > lo && next < hi && next.is_finite()) {
            next = if hi.is_finite() {
                0.5 * (lo + hi)
            } else {
                2.0 * x.max(1.0)
            };
        }
        if (next - x).abs() <= 4.0 * eps * next.abs() || hi - lo <= 4.0 * eps * hi.min(f64::MAX) {
            return next;
        }
        x = next;
    }
    x
}
