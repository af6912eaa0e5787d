//! Tests of the float32 arc-hyperbolic kernels: every 4099th float32 bit
//! pattern and the neighbourhoods of each formula's edges, at every build,
//! within 1 ulp of libm's rounded result; the special values; and, ignored
//! (minutes in a release build), every float32 against the exact result.

use super::super::simd::staged_at;
use super::super::test_support::{and_negated, around32, check32, Run32At};
use super::*;
use crate::kernels::cpu::{level, levels};

type Case = (&'static str, Run32At, fn(f64) -> f64);

const CASES: [Case; 3] = [
    ("arcsinh", staged_at::<ArcSinh32>, f64::asinh),
    ("arccosh", staged_at::<ArcCosh32>, f64::acosh),
    ("arctanh", staged_at::<ArcTanh32>, f64::atanh),
];

/// Every 4099th bit pattern (both signs, NaNs and infinities included),
/// and 300 patterns either side of: `TINY`, 1 (arccosh's zero, arctanh's
/// pole), arctanh's switch to `s = a` (0.1716), `2 BIG`, the overflow of
/// `x^2` in float32, the largest float32, the smallest normal.
fn inputs() -> Vec<f32> {
    let mut xs: Vec<f32> = (0..=u32::MAX).step_by(4099).map(f32::from_bits).collect();
    let edges = [TINY, 1.0, 0.171_572_88, 2.0 * BIG, 1.844_674_4e19];
    for edge in edges.into_iter().chain([f32::MAX, f32::MIN_POSITIVE]) {
        xs.extend(around32(edge, 300, 300));
    }
    xs.extend((1..300).map(f32::from_bits));
    and_negated(xs)
}

#[test]
fn within_1_ulp_of_libm_rounded_at_every_build() {
    let xs = inputs();
    for (name, run, reference) in CASES {
        check32(name, &xs, (run, reference), (1, 1));
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|y| y.to_bits()).collect()
}

#[test]
fn edges_infinities_and_nan() {
    let inf = f32::INFINITY;
    let xs = [0.0f32, -0.0, 1.0, -1.0, inf, -inf, f32::NAN, 0.5, 2.0, 3e38];
    // x^2 overflows in float32 at 3e38; arcsinh and arccosh are log(2x) to
    // 2^-150 there.
    let log_2x = (2.0 * f64::from(3e38f32)).ln() as f32;
    for lvl in levels() {
        let run = |f: Run32At| {
            let mut ys = [7.0f32; 10];
            f(lvl, &mut ys, &xs);
            ys
        };
        let s = run(staged_at::<ArcSinh32>);
        let want = [0.0f32, -0.0, 1f32.asinh(), -(1f32.asinh()), inf, -inf];
        assert_eq!(bits(&s[..6]), bits(&want), "{lvl:?}");
        assert!(s[6].is_nan());
        assert_eq!(s[9], log_2x, "{lvl:?}");
        let c = run(staged_at::<ArcCosh32>);
        assert!([0, 1, 3, 5, 6, 7].iter().all(|&i| c[i].is_nan()), "{lvl:?}");
        assert_eq!((c[2].to_bits(), c[4], c[9]), (0, inf, log_2x), "{lvl:?}");
        let t = run(staged_at::<ArcTanh32>);
        assert_eq!(bits(&t[..2]), bits(&[0.0, -0.0]), "{lvl:?}");
        assert_eq!((t[2], t[3]), (inf, -inf), "{lvl:?}");
        assert!([4, 5, 6, 8, 9].iter().all(|&i| t[i].is_nan()), "{lvl:?}");
    }
}

/// Subnormal arguments: arcsinh and arctanh are `x` itself (the cube is
/// far below half an ulp), at every build.
#[test]
fn subnormals_are_their_own_arcsinh_and_arctanh() {
    let xs: Vec<f32> = (1..2000u32)
        .map(|i| f32::from_bits(i * 4099 % 0x80_0000))
        .chain([1e-45, -1e-45, -1e-40])
        .collect();
    for lvl in levels() {
        for run in [staged_at::<ArcSinh32> as Run32At, staged_at::<ArcTanh32>] {
            let mut ys = vec![0.0f32; xs.len()];
            run(lvl, &mut ys, &xs);
            assert_eq!(bits(&ys), bits(&xs), "{lvl:?}");
        }
    }
}

/// The distance from `y` to the exact `want`, in ulps of `want`'s binade.
fn ulps_from_exact(y: f32, want: f64) -> f64 {
    let binade = ((want.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let ulp = 2f64.powi(binade.max(-126) - 23);
    (f64::from(y) - want).abs() / ulp
}

/// Every float32 at the process's build: within 0.55 ulp of the exact
/// result (libm's float64, whose own error is far below that), zeros and
/// infinities exact, NaN where the result is. In a release build:
/// `cargo test -p oxtensor-core --release --lib every_float32 -- --ignored`.
#[test]
#[ignore = "every float32: minutes in a release build"]
fn every_float32_within_0_55_ulp_of_exact() {
    let mut ys = vec![0.0f32; 1 << 16];
    for (name, run, reference) in CASES {
        let mut worst = (0.0f64, 0.0f32);
        for high in 0..1u32 << 16 {
            let xs: Vec<f32> = (0..1u32 << 16)
                .map(|low| f32::from_bits(high << 16 | low))
                .collect();
            run(level(), &mut ys, &xs);
            for (&x, &y) in xs.iter().zip(&ys) {
                let want = reference(f64::from(x));
                let rounded = want as f32;
                if rounded.is_nan() {
                    assert!(y.is_nan(), "{name}({x:e}) = {y:e}");
                    continue;
                }
                if rounded.is_infinite() || rounded == 0.0 {
                    assert_eq!(y.to_bits(), rounded.to_bits(), "{name}({x:e})");
                    continue;
                }
                let err = ulps_from_exact(y, want);
                if err > worst.0 {
                    worst = (err, x);
                }
            }
        }
        eprintln!("{name}: worst {:.3} ulp at {:e}", worst.0, worst.1);
        assert!(
            worst.0 <= 0.55,
            "{name}: {:.3} ulp at {:e}",
            worst.0,
            worst.1
        );
    }
}
