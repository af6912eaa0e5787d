//! Test helpers for the element functions: a seeded generator of inputs
//! (log-uniform magnitudes, both signs), ulp distances, and checks that run
//! every build this CPU runs against a reference and against each other.

use crate::kernels::cpu::{levels, Level};

/// A splitmix64 stream: reproducible inputs without a dependency.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub(super) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// Magnitude log-uniform between 2^lo and 2^hi, either sign.
    pub(super) fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let m = self.uniform(lo, hi).exp2();
        if self.next() & 1 == 0 {
            m
        } else {
            -m
        }
    }

    /// `n` values of [`Rng::log_uniform`].
    pub(super) fn log_uniforms(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.log_uniform(lo, hi)).collect()
    }

    /// [`Rng::log_uniforms`] rounded to float32.
    pub(super) fn log_uniforms32(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f32> {
        self.log_uniforms(n, lo, hi)
            .iter()
            .map(|&x| x as f32)
            .collect()
    }
}

/// An accuracy test's inputs, drawn in order from one seeded stream: the
/// wide random ranges, then the neighbours of each formula's thresholds,
/// then [`SPECIAL`] and the test's own values.
pub(super) struct Inputs {
    pub(super) rng: Rng,
    pub(super) xs: Vec<f64>,
}

impl Inputs {
    /// `n` values of [`Rng::log_uniform`] from the stream `seed`.
    pub(super) fn log_uniform(seed: u64, n: usize, lo: f64, hi: f64) -> Inputs {
        let mut rng = Rng(seed);
        let xs = rng.log_uniforms(n, lo, hi);
        Inputs { rng, xs }
    }

    /// And `n` values uniform in [lo, hi).
    pub(super) fn uniform(mut self, n: usize, lo: f64, hi: f64) -> Inputs {
        let rng = &mut self.rng;
        self.xs.extend((0..n).map(|_| rng.uniform(lo, hi)));
        self
    }

    /// And the representable neighbours within `d` steps of each edge,
    /// with their negatives if `signed`.
    pub(super) fn around(mut self, edges: &[f64], d: i64, signed: bool) -> Inputs {
        for &edge in edges {
            let near = around(edge, d);
            if signed {
                self.xs.extend(near.flat_map(|x| [x, -x]));
            } else {
                self.xs.extend(near);
            }
        }
        self
    }

    /// The inputs, with [`SPECIAL`] and `extra`.
    pub(super) fn with(mut self, extra: &[f64]) -> Vec<f64> {
        self.xs.extend(SPECIAL);
        self.xs.extend(extra);
        self.xs
    }
}

/// The representable neighbours within `d` steps of `x`.
pub(super) fn around(x: f64, d: i64) -> impl Iterator<Item = f64> {
    (-d..=d).map(move |i| f64::from_bits((x.to_bits() as i64 + i) as u64))
}

/// The float32 values `below` steps under `x` to `above` steps over it by
/// bit pattern (for a positive `x`: toward zero, then away), not past +0.
pub(super) fn around32(x: f32, below: i64, above: i64) -> impl Iterator<Item = f32> {
    let b = i64::from(x.to_bits());
    (-below..=above).map(move |d| f32::from_bits((b + d).max(0) as u32))
}

/// The float32 nearest `k π/2` for `k < n`, each with its neighbours
/// within `d` steps: where the trigonometric reductions cancel most.
pub(super) fn near_half_pis32(n: u32, d: i64) -> impl Iterator<Item = f32> {
    (0..n).flat_map(move |k| around32((f64::from(k) * std::f64::consts::FRAC_PI_2) as f32, d, d))
}

/// `xs`, then each of them negated: the float32 tests' inputs, both signs.
pub(super) fn and_negated(mut xs: Vec<f32>) -> Vec<f32> {
    let negated: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(negated);
    xs
}

/// A unary kernel's float64 result at one `x`, at this CPU's best build.
pub(super) fn at_one(runs: &(Box<Run64>, Box<Run32>), x: f64) -> f64 {
    let mut y = [0.0];
    (runs.0)(crate::kernels::cpu::level(), &mut y, &[x], &[x]);
    y[0]
}

/// The distance in ulps (0 for two NaNs or ±0, `u64::MAX` for NaN vs number).
pub(super) fn ulps(a: f64, b: f64) -> u64 {
    let ord = |x: f64| {
        let b = x.to_bits() as i64;
        i128::from(if b < 0 { i64::MIN - b } else { b })
    };
    distance([a.is_nan(), b.is_nan()], ord(a), ord(b))
}

/// [`ulps`] for float32.
pub(super) fn ulps32(a: f32, b: f32) -> u64 {
    let ord = |x: f32| {
        let b = x.to_bits() as i32;
        i128::from(if b < 0 { i32::MIN - b } else { b })
    };
    distance([a.is_nan(), b.is_nan()], ord(a), ord(b))
}

/// The distance between two values' positions in float order, by whether
/// each is NaN: 0 for two NaNs, `u64::MAX` for NaN vs number.
fn distance(nan: [bool; 2], a: i128, b: i128) -> u64 {
    match nan {
        [true, true] => 0,
        [false, false] => (a - b).unsigned_abs() as u64,
        _ => u64::MAX,
    }
}

/// Zeros of opposite signs (which [`ulps`] counts as equal).
fn zero_signs_differ(a: f64, b: f64) -> bool {
    a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative()
}

/// NaN, infinities, zeros of both signs, the extremes.
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

/// A kernel run at a level: `run(level, out, a, b)` (`b` unused for unary).
pub(super) type Run64 = dyn Fn(Level, &mut [f64], &[f64], &[f64]);
/// As [`Run64`] on float32.
pub(super) type Run32 = dyn Fn(Level, &mut [f32], &[f32], &[f32]);

/// `name` at every level the CPU runs, on the pairs `(xs[i], ys[i])`,
/// against `reference`: within `bound` ulp (`base` for the build without
/// FMA), zeros of the right sign, the FMA builds (AVX2, AVX-512) giving the
/// same bits; float32 within 1 ulp of the reference rounded (`bound32`).
/// Returns the worst float64 error at each level.
pub(super) fn check(
    name: &str,
    (xs, ys): (&[f64], &[f64]),
    (run64, run32): (&Run64, &Run32),
    reference: &dyn Fn(f64, f64) -> f64,
    (bound, base, bound32): (u64, u64, u64),
) -> Vec<(Level, u64)> {
    let want: Vec<f64> = xs.iter().zip(ys).map(|(&x, &y)| reference(x, y)).collect();
    let (xs32, ys32): (Vec<f32>, Vec<f32>) = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| (x as f32, y as f32))
        .unzip();
    let mut fma_bits: Option<Vec<u64>> = None;
    let mut worst = vec![];
    for lvl in levels() {
        let limit = if lvl == Level::Base { base } else { bound };
        let mut out = vec![0.0; xs.len()];
        run64(lvl, &mut out, xs, ys);
        let mut w = 0;
        for (i, (&z, &r)) in out.iter().zip(&want).enumerate() {
            let d = ulps(z, r);
            let (x, y) = (xs[i], ys[i]);
            assert!(
                d <= limit && !zero_signs_differ(z, r),
                "{name}({x:e}, {y:e}) = {z:e} at {lvl:?}, reference {r:e}: {d} ulp"
            );
            w = w.max(d);
        }
        worst.push((lvl, w));
        if lvl != Level::Base {
            let bits: Vec<u64> = out.iter().map(|z| z.to_bits()).collect();
            let same = |a: &Vec<u64>| {
                a.iter().zip(&bits).all(|(p, q)| {
                    p == q || (f64::from_bits(*p).is_nan() && f64::from_bits(*q).is_nan())
                })
            };
            assert!(
                fma_bits.as_ref().is_none_or(same),
                "{name}: the FMA builds differ"
            );
            fma_bits = Some(bits);
        }
        let mut out32 = vec![0.0f32; xs.len()];
        run32(lvl, &mut out32, &xs32, &ys32);
        for ((&x, &y), &z) in xs32.iter().zip(&ys32).zip(&out32) {
            let r = reference(f64::from(x), f64::from(y)) as f32;
            assert!(
                ulps32(z, r) <= bound32 && !zero_signs_differ(f64::from(z), f64::from(r)),
                "{name}({x:e}f32, {y:e}f32) = {z:e} at {lvl:?}, reference {r:e}"
            );
        }
    }
    worst
}

/// [`check`] of a unary kernel: float64 within `fma` ulp (`base` in the
/// build without FMA), float32 within 1; prints the worst error per level
/// (seen with `--nocapture`).
pub(super) fn check_unary(
    name: &str,
    xs: &[f64],
    runs: (Box<Run64>, Box<Run32>),
    f: fn(f64) -> f64,
    (fma, base): (u64, u64),
) {
    let worst = check(
        name,
        (xs, xs),
        (&*runs.0, &*runs.1),
        &|x, _| f(x),
        (fma, base, 1),
    );
    eprintln!("{name}: worst {worst:?} ulp");
}

/// The runs of a [`Unary`](super::simd::Unary) float64 kernel (float32
/// through [`Wide`](super::kinds::Wide)).
pub(super) fn plain<K: super::simd::Unary<T = f64> + 'static>() -> (Box<Run64>, Box<Run32>) {
    use super::simd::unary_at;
    (
        Box::new(|l, out, xs, _| unary_at::<K>(l, out, xs)),
        Box::new(|l, out, xs, _| unary_at::<super::kinds::Wide<K>>(l, out, xs)),
    )
}

/// The runs of a [`Guarded`](super::guarded::Guarded) kernel.
pub(super) fn guarded<K: super::guarded::Guarded + 'static>() -> (Box<Run64>, Box<Run32>) {
    use super::guarded::unary_at;
    (
        Box::new(|l, out, xs, _| unary_at::<K, f64>(l, out, xs)),
        Box::new(|l, out, xs, _| unary_at::<K, f32>(l, out, xs)),
    )
}

/// The runs of a [`Guarded2`](super::guarded::Guarded2) kernel.
pub(super) fn guarded2<K: super::guarded::Guarded2 + 'static>() -> (Box<Run64>, Box<Run32>) {
    use super::guarded::binary_at;
    use crate::kernels::elemwise::map::Part::Full;
    (
        Box::new(|l, out, xs, ys| binary_at::<K, f64>(l, out, Full(xs), Full(ys))),
        Box::new(|l, out, xs, ys| binary_at::<K, f32>(l, out, Full(xs), Full(ys))),
    )
}

/// A float32 kernel run at a build.
pub(super) type Run32At = fn(Level, &mut [f32], &[f32]);

/// The float32 kernel `run` at every build the CPU runs, on `xs`: within
/// `bound` ulp of `reference` rounded to float32 (`base` in the build
/// without FMA), zeros and infinities exact (sign included), NaN where
/// the reference is; the FMA builds give the same bits.
pub(super) fn check32(
    name: &str,
    xs: &[f32],
    (run, reference): (Run32At, fn(f64) -> f64),
    (bound, base): (u64, u64),
) {
    let mut fma_bits: Option<Vec<u32>> = None;
    for lvl in levels() {
        let limit = if lvl == Level::Base { base } else { bound };
        let mut ys = vec![0.0f32; xs.len()];
        run(lvl, &mut ys, xs);
        for (&x, &y) in xs.iter().zip(&ys) {
            let want = reference(f64::from(x)) as f32;
            let inexact = want.is_finite() && want != 0.0 || want.is_nan();
            assert!(
                ulps32(y, want) <= limit && (inexact || y.to_bits() == want.to_bits()),
                "{name}({x:e}) = {y:e} at {lvl:?}, want {want:e}"
            );
        }
        if lvl != Level::Base {
            let bits: Vec<u32> = ys.iter().map(|y| y.to_bits()).collect();
            let same = |b: &Vec<u32>| {
                b.iter().zip(&bits).all(|(p, q)| {
                    p == q || f32::from_bits(*p).is_nan() && f32::from_bits(*q).is_nan()
                })
            };
            assert!(
                fma_bits.as_ref().is_none_or(same),
                "{name}: the FMA builds differ"
            );
            fma_bits = Some(bits);
        }
    }
}
