//! The polygamma function ψ⁽ⁿ⁾(x) of an integer order `n` (given as a
//! float: the kernel's inputs are in the compute dtype). Order 0 is the
//! digamma function; from order 1 on, `ψ⁽ⁿ⁾(x) = (-1)ⁿ⁺¹ n! ζ(n + 1, x)`
//! with the Hurwitz zeta function summed directly until the terms are past
//! 9, then finished by the Euler–Maclaurin formula (twelve Bernoulli terms).
//! A negative or fractional order gives NaN, as SciPy's `polygamma` does.

use crate::kernels::vmath::psi::digamma;

/// `(2j)! / B₂ⱼ` for j = 1..=12 (the nearest doubles): the Euler–Maclaurin
/// tail's denominators.
const EM_DENOMINATORS: [f64; 12] = [
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1_892_437_580.318_379_2,
    74_724_249_600.0,
    -2_950_130_727_918.164,
    116_467_828_143_500.67,
    -4_597_978_722_407_473.0,
    1.815_210_540_194_354_6e17,
    -7.166_165_256_175_667e18,
];

/// ψ⁽ⁿ⁾(x).
pub(crate) fn polygamma(n: f64, x: f64) -> f64 {
    if n.is_nan() || x.is_nan() || n < 0.0 || n != n.floor() {
        return f64::NAN;
    }
    if n == 0.0 {
        return digamma(x);
    }
    // n! ≥ f64::MAX past 170: the result overflows wherever ζ is finite.
    let factorial: f64 = (1..=n.min(171.0) as u32).map(f64::from).product();
    let sign = if n % 2.0 == 0.0 { -1.0 } else { 1.0 };
    sign * factorial * hurwitz_zeta(n + 1.0, x)
}

/// `ζ(s, q) = Σₖ (q + k)⁻ˢ` for an integer `s > 1`: infinite at the poles
/// `q = 0, -1, -2, ...`; negative `q` elsewhere are summed as they are
/// (an integer power of a negative base is real).
fn hurwitz_zeta(s: f64, q: f64) -> f64 {
    if q == f64::INFINITY {
        return 0.0;
    }
    if q <= 0.0 && q == q.floor() {
        return f64::INFINITY;
    }
    let mut a = q;
    let mut term = a.powf(-s);
    let mut sum = term;
    let mut steps = 0;
    while steps < 9 || a <= 9.0 {
        steps += 1;
        a += 1.0;
        term = a.powf(-s);
        sum += term;
        if (term / sum).abs() < f64::EPSILON {
            return sum;
        }
    }
    // The integral of the rest, minus half the last term counted twice,
    // then the Bernoulli corrections s(s+1)...(s+2j-2) B₂ⱼ/(2j)! a^(-s-2j+1).
    sum += term * a / (s - 1.0);
    sum -= 0.5 * term;
    let (mut rising, mut k) = (1.0, 0.0);
    for denominator in EM_DENOMINATORS {
        rising *= s + k;
        term /= a;
        let t = rising * term / denominator;
        sum += t;
        if (t / sum).abs() < f64::EPSILON {
            break;
        }
        k += 1.0;
        rising *= s + k;
        term /= a;
        k += 1.0;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elemwise::special_check::check_rows;

    #[test]
    fn polygamma_matches_scipy() {
        // ([n, x], [scipy.special.polygamma(n, x)]).
        check_rows(
            [("polygamma", |[n, x]| polygamma(n, x))],
            &[
                ([1.0, 0.5], [4.93480220054468]),
                ([1.0, -1.5], [9.379246644989124]),
                ([2.0, 0.5], [-16.828796644234316]),
                ([3.0, 2.5], [0.2239058488172521]),
                ([4.0, 30.0], [-7.914941340181022e-06]),
                ([5.0, 0.001], [1.1999999999999998e+20]),
                ([2.0, -0.3], [67.63908119988314]),
            ],
            1e-12,
        );
        assert_eq!(polygamma(0.0, 1.0), digamma(1.0));
        assert_eq!(polygamma(1.0, -2.0), f64::INFINITY);
        assert!(polygamma(1.5, 1.0).is_nan());
        assert!(polygamma(-1.0, 1.0).is_nan());
        assert!(polygamma(1.0, f64::NAN).is_nan());
    }
}
