//! Test helpers for the element functions: a seeded generator of inputs
//! (log-uniform magnitudes, both signs), ulp distances, and checks that run
//! every build this CPU supports against a reference and against each other.

use super::variants::{binary_at, supported, unary_at, Binary, Level, Unary};

/// splitmix64: a small seeded generator, enough for test inputs.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [lo, hi).
    pub(super) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// `n` values of magnitude 2^e, e uniform in [lo, hi), of random sign.
    pub(super) fn log_uniform(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let m = self.uniform(lo, hi).exp2();
                if self.next() & 1 == 1 {
                    -m
                } else {
                    m
                }
            })
            .collect()
    }
}

/// NaN, infinities, zeros of both signs, the smallest numbers.
pub(super) const SPECIAL: [f64; 9] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    5e-324,
    f64::MAX,
];

/// Distance in units in the last place between `got` and `want` (0 for two
/// NaNs, infinite for a NaN against a number or zeros of opposite signs).
pub(super) fn ulps(got: f64, want: f64) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if got == 0.0 && want == 0.0 && got.is_sign_negative() != want.is_sign_negative() {
        return f64::INFINITY;
    }
    // Bits mapped to a monotonic integer line: adjacent doubles differ by 1.
    let line = |x: f64| {
        let b = x.to_bits() as i64;
        if b < 0 {
            i64::MIN.wrapping_sub(b)
        } else {
            b
        }
    };
    (line(got) as i128 - line(want) as i128).unsigned_abs() as f64
}

/// [`ulps`] for float32.
pub(super) fn ulps32(got: f32, want: f32) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if got == 0.0 && want == 0.0 && got.is_sign_negative() != want.is_sign_negative() {
        return f64::INFINITY;
    }
    let line = |x: f32| {
        let b = x.to_bits() as i32;
        if b < 0 {
            i32::MIN.wrapping_sub(b)
        } else {
            b
        }
    };
    (i64::from(line(got)) - i64::from(line(want))).unsigned_abs() as f64
}

/// The worst ulp error of `K` over `xs` against `reference` at every
/// supported level (asserted within `bound`, `baseline` for the build
/// without FMA), with the FMA builds (AVX2,
/// AVX-512) giving the same bits; float32 within 1 ulp of the rounded
/// reference. Returns the worst error at each level.
pub(super) fn check_unary<K: Unary>(
    name: &str,
    xs: &[f64],
    reference: fn(f64) -> f64,
    bound: f64,
    baseline: f64,
) -> Vec<(Level, f64)> {
    let want: Vec<f64> = xs.iter().map(|&x| reference(x)).collect();
    let mut fma_bits: Option<Vec<u64>> = None;
    let mut worst = vec![];
    for at in supported() {
        let mut w_at = 0.0f64;
        let bound = if at == Level::Baseline {
            baseline
        } else {
            bound
        };
        let mut ys = vec![0.0; xs.len()];
        unary_at::<K, f64>(at, &mut ys, xs);
        for ((&x, &y), &w) in xs.iter().zip(&ys).zip(&want) {
            let e = ulps(y, w);
            assert!(
                e <= bound,
                "{name}({x:e}) = {y:e} at {at:?}, reference {w:e}: {e} ulp"
            );
            w_at = w_at.max(e);
        }
        worst.push((at, w_at));
        same_fma_bits(name, at, &ys, &mut fma_bits);
        let xs32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        let mut ys32 = vec![0.0f32; xs.len()];
        unary_at::<K, f32>(at, &mut ys32, &xs32);
        for (&x, &y) in xs32.iter().zip(&ys32) {
            let w = reference(f64::from(x)) as f32;
            let e = ulps32(y, w);
            assert!(
                e <= 1.0,
                "{name}({x:e}f32) = {y:e} at {at:?}, reference {w:e}"
            );
        }
    }
    worst
}

/// As [`check_unary`] for a binary kind over pairs `(xs[i], ys[i])`.
pub(super) fn check_binary<K: Binary>(
    name: &str,
    xs: &[f64],
    ys: &[f64],
    reference: fn(f64, f64) -> f64,
    bound: f64,
    baseline: f64,
) -> Vec<(Level, f64)> {
    let want: Vec<f64> = xs.iter().zip(ys).map(|(&x, &y)| reference(x, y)).collect();
    let mut fma_bits: Option<Vec<u64>> = None;
    let mut worst = vec![];
    for at in supported() {
        let mut w_at = 0.0f64;
        let bound = if at == Level::Baseline {
            baseline
        } else {
            bound
        };
        let mut zs = vec![0.0; xs.len()];
        binary_at::<K, f64>(at, &mut zs, xs, ys);
        for (i, (&z, &w)) in zs.iter().zip(&want).enumerate() {
            let e = ulps(z, w);
            let (x, y) = (xs[i], ys[i]);
            assert!(
                e <= bound,
                "{name}({x:e}, {y:e}) = {z:e} at {at:?}, reference {w:e}: {e} ulp"
            );
            w_at = w_at.max(e);
        }
        worst.push((at, w_at));
        same_fma_bits(name, at, &zs, &mut fma_bits);
        let (xs32, ys32): (Vec<f32>, Vec<f32>) = xs
            .iter()
            .zip(ys)
            .map(|(&x, &y)| (x as f32, y as f32))
            .unzip();
        let mut zs32 = vec![0.0f32; xs.len()];
        binary_at::<K, f32>(at, &mut zs32, &xs32, &ys32);
        for ((&x, &y), &z) in xs32.iter().zip(&ys32).zip(&zs32) {
            let w = reference(f64::from(x), f64::from(y)) as f32;
            assert!(
                ulps32(z, w) <= 1.0,
                "{name}({x:e}f32, {y:e}f32) = {z:e} at {at:?}, reference {w:e}"
            );
        }
    }
    worst
}

/// The AVX2 and AVX-512 builds run the same FMA arithmetic: same bits.
fn same_fma_bits(name: &str, at: Level, ys: &[f64], seen: &mut Option<Vec<u64>>) {
    if at == Level::Baseline {
        return;
    }
    let bits: Vec<u64> = ys.iter().map(|y| y.to_bits()).collect();
    match seen {
        Some(prev) => {
            let same = prev.iter().zip(&bits).all(|(a, b)| {
                a == b || (f64::from_bits(*a).is_nan() && f64::from_bits(*b).is_nan())
            });
            assert!(same, "{name}: the FMA builds differ");
        }
        None => *seen = Some(bits),
    }
}
