//! Error-free transformations for double-double arithmetic (a value held
//! as an unevaluated sum `hi + lo`): the extra precision `pow`, `log1p` and
//! the base-2 and base-10 logarithms need, in branch-free code.

use super::exp::fma;

/// Veltkamp's splitting constant `2^27 + 1`: `a * SPLIT` cuts `a` into two
/// halves of 26 bits whose products are exact.
const SPLIT: f64 = 134_217_729.0;

/// `a * b` as `(p, e)` with `p + e` exactly the product (for products that
/// neither overflow nor lose bits to underflow): one FMA when `F`, else
/// Dekker's product of split halves (valid for `|a|, |b| < 2^995`).
#[inline(always)]
pub(super) fn two_prod<const F: bool>(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if F {
        return (p, fma::<true>(a, b, -p));
    }
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// `c - a * b` to within 2^-105 relative to `c`, when `c` is within a
/// few ulp of `a * b` (the remainder of a division `c / b` rounded to `a`):
/// one FMA, exact, or Dekker's product.
#[inline(always)]
pub(super) fn residual<const F: bool>(a: f64, b: f64, c: f64) -> f64 {
    if F {
        return fma::<true>(-a, b, c);
    }
    let (p, e) = two_prod::<false>(a, b);
    (c - p) - e
}

#[inline(always)]
fn split(a: f64) -> (f64, f64) {
    let c = SPLIT * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// `a + b` as `(s, e)` with `s + e` exactly the sum, when `|a| >= |b|` or
/// `a` is 0 (Dekker's Fast2Sum).
#[inline(always)]
pub(super) fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// `a + b` as `(s, e)` with `s + e` exactly the sum, whatever the order of
/// magnitudes (Knuth's TwoSum).
#[inline(always)]
pub(super) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_sums_are_exact() {
        // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: the last term is the error.
        let a = 1.0 + 2f64.powi(-30);
        for (p, e) in [two_prod::<true>(a, a), two_prod::<false>(a, a)] {
            assert_eq!((p, e), (1.0 + 2f64.powi(-29), 2f64.powi(-60)));
        }
        let third = 1.0 / 3.0;
        let (p, e) = two_prod::<false>(third, 3.0);
        assert_eq!(p, 1.0);
        assert_eq!(e, fma::<true>(third, 3.0, -1.0));
        for (a, b, c) in [(third, 3.0, 1.0), (0.7, 1.3, 0.91), (-1e-3, 7.0, -7e-3)] {
            let want = fma::<true>(-a, b, c);
            assert_eq!(
                (residual::<true>(a, b, c), residual::<false>(a, b, c)),
                (want, want)
            );
        }
        assert_eq!(fast_two_sum(1.0, 2f64.powi(-60)), (1.0, 2f64.powi(-60)));
        assert_eq!(two_sum(2f64.powi(-60), 1.0), (1.0, 2f64.powi(-60)));
        assert_eq!(two_sum(-0.1, 0.1), (0.0, 0.0));
    }
}
