//! Polynomial evaluation for the element functions: Estrin's scheme, whose
//! dependency chain is log2(n) multiply-adds long instead of Horner's n
//! (the loops are latency-bound with Horner: measured 1.3x on float32 tanh).

use super::exp::fma;

/// One level of Estrin's scheme: the first `n` entries of `v` paired into
/// `v[i] = v[2i] + v[2i + 1] p` (an odd last one moved down); the new count.
#[inline(always)]
fn level<const F: bool, const N: usize>(v: &mut [f64; N], n: usize, p: f64) -> usize {
    for i in 0..n / 2 {
        v[i] = fma::<F>(v[2 * i + 1], p, v[2 * i]);
    }
    if n % 2 == 1 {
        v[n / 2] = v[n - 1];
    }
    n.div_ceil(2)
}

/// `c[0] + c[1] x + ... + c[N-1] x^(N-1)` by Estrin's scheme: pairs of
/// terms first, then pairs of pairs in `x^2`, `x^4`, `x^8`, `x^16`
/// (N <= 32). Five levels written out, each a loop of constant trip count once `N`
/// is known, so the whole evaluation unrolls into straight-line vector
/// code (a loop over the levels stayed a scalar loop through memory).
#[inline(always)]
pub(crate) fn estrin<const F: bool, const N: usize>(x: f64, c: &[f64; N]) -> f64 {
    const { assert!(N >= 1 && N <= 32) };
    let mut v = *c;
    let x2 = x * x;
    let x4 = x2 * x2;
    let n = level::<F, N>(&mut v, N, x);
    let n = level::<F, N>(&mut v, n, x2);
    let n = level::<F, N>(&mut v, n, x4);
    let x8 = x4 * x4;
    let n = level::<F, N>(&mut v, n, x8);
    level::<F, N>(&mut v, n, x8 * x8);
    v[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estrin_equals_horner_for_every_length() {
        let c = [
            1.5, -2.0, 0.25, 3.0, -0.5, 0.125, 7.0, -1.0, 0.75, 2.0, -3.5, 0.5, 1.25, 0.5, -0.25,
            1.0, 2.0, -1.5, 0.75, 0.5, -2.0, 1.0, 0.25,
        ];
        for x in [0.0, 0.5, -0.75, 1.0, 2.0] {
            let horner = |n: usize| c[..n].iter().rev().fold(0.0, |acc, &k| acc * x + k);
            let got = [
                estrin::<false, 1>(x, &[c[0]]),
                estrin::<false, 2>(x, c[..2].try_into().unwrap()),
                estrin::<false, 5>(x, c[..5].try_into().unwrap()),
                estrin::<false, 8>(x, c[..8].try_into().unwrap()),
                estrin::<true, 9>(x, c[..9].try_into().unwrap()),
                estrin::<false, 13>(x, c[..13].try_into().unwrap()),
                estrin::<true, 17>(x, c[..17].try_into().unwrap()),
                estrin::<false, 23>(x, &c),
            ];
            for (g, n) in got.iter().zip([1, 2, 5, 8, 9, 13, 17, 23]) {
                assert!(
                    (g - horner(n)).abs() <= 1e-12 * horner(n).abs().max(1.0),
                    "{n} {x}"
                );
            }
        }
    }
}
