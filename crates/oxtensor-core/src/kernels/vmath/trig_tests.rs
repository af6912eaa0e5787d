//! Accuracy of `tan`, `arcsin`, `arccos`, `arctan` and `arctan2` against
//! libm (glibc's are correctly rounded or within 1 ulp of it) at every
//! build the CPU supports, over wide random ranges and the special values.

use super::inverse_trig::{ArcCos, ArcSin, ArcTan, ArcTan2};
use super::test_support::{check_binary, check_unary, Rng, SPECIAL};
use super::trig::Tan;
use std::f64::consts::{FRAC_PI_2, PI};

/// Next representable neighbours of `x`, `d` steps away.
fn nudge(x: f64, d: i64) -> f64 {
    f64::from_bits((x.to_bits() as i64 + d) as u64)
}

#[test]
fn tan_within_2_ulp() {
    let mut rng = Rng::new(1);
    let mut xs = rng.log_uniform(100_000, -40.0, 22.0);
    xs.extend((0..50_000).map(|_| rng.uniform(-8.0, 8.0)));
    // Doubles next to multiples of π/2, where the reduction cancels most.
    for _ in 0..20_000 {
        let k = (rng.unit() * 1_048_576.0 * 0.6) as i64;
        let x = k as f64 * FRAC_PI_2;
        xs.extend((-2..=2).map(|d| nudge(x, d)));
    }
    xs.extend(SPECIAL);
    xs.extend([
        1e-300,
        -3e-9,
        3.7e-9,
        0.785_398_163_397_448_3,
        1_048_576.0,
        1_048_577.0,
        1e22,
    ]);
    let worst = check_unary::<Tan>("tan", &xs, f64::tan, 2.0, 2.0);
    eprintln!("tan: worst {worst:?} ulp");
}

#[test]
fn arcsin_arccos_within_2_ulp() {
    let mut rng = Rng::new(2);
    let mut xs = rng.log_uniform(100_000, -60.0, 0.0);
    xs.extend((0..100_000).map(|_| rng.uniform(-1.0, 1.0)));
    for edge in [0.5f64, 1.0] {
        xs.extend((-40..=40).flat_map(|d| [nudge(edge, d), -nudge(edge, d)]));
    }
    xs.extend(SPECIAL);
    xs.extend([1.5, -2.0, 1e-310]);
    let worst = check_unary::<ArcSin>("arcsin", &xs, f64::asin, 2.0, 2.0);
    eprintln!("arcsin: worst {worst:?} ulp");
    let worst = check_unary::<ArcCos>("arccos", &xs, f64::acos, 2.0, 2.0);
    eprintln!("arccos: worst {worst:?} ulp");
}

#[test]
fn arctan_within_2_ulp() {
    let mut rng = Rng::new(3);
    let mut xs = rng.log_uniform(200_000, -60.0, 60.0);
    xs.extend((0..50_000).map(|_| rng.uniform(-6.0, 6.0)));
    for split in [
        0.198_912_367_379_658,
        0.668_178_637_919_298_9,
        1.496_605_762_665_489,
        5.027_339_492_125_848,
    ] {
        xs.extend((-3..=3).map(|d| nudge(split, d)));
    }
    xs.extend(SPECIAL);
    xs.extend([1e308, -1e-310]);
    let worst = check_unary::<ArcTan>("arctan", &xs, f64::atan, 2.0, 2.0);
    eprintln!("arctan: worst {worst:?} ulp");
}

#[test]
fn arctan2_within_2_ulp_and_numpy_special_values() {
    let mut rng = Rng::new(4);
    let ys = rng.log_uniform(150_000, -80.0, 80.0);
    let xs = rng.log_uniform(150_000, -80.0, 80.0);
    let worst = check_binary::<ArcTan2>("arctan2", &ys, &xs, f64::atan2, 2.0, 3.0);
    eprintln!("arctan2: worst {worst:?} ulp");
    // Every pair of edge values: libm's (= NumPy's) signed zeros, quadrants
    // and infinities, including through the far-scale fallback.
    let edges = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -0.3,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
        -1e-310,
        1e305,
        -1e305,
        f64::MAX,
    ];
    let (ys, xs): (Vec<f64>, Vec<f64>) = edges
        .iter()
        .flat_map(|&y| edges.iter().map(move |&x| (y, x)))
        .unzip();
    check_binary::<ArcTan2>("arctan2", &ys, &xs, f64::atan2, 1.0, 1.0);
}

#[test]
fn exact_special_values() {
    use super::variants::unary_one;
    let cases: [(fn(f64) -> f64, f64, f64); 12] = [
        (unary_one::<Tan, f64>, -0.0, -0.0),
        (unary_one::<Tan, f64>, 0.0, 0.0),
        (unary_one::<ArcSin, f64>, -0.0, -0.0),
        (unary_one::<ArcSin, f64>, 1.0, FRAC_PI_2),
        (unary_one::<ArcSin, f64>, -1.0, -FRAC_PI_2),
        (unary_one::<ArcCos, f64>, 1.0, 0.0),
        (unary_one::<ArcCos, f64>, -1.0, PI),
        (unary_one::<ArcCos, f64>, -0.0, FRAC_PI_2),
        (unary_one::<ArcTan, f64>, -0.0, -0.0),
        (unary_one::<ArcTan, f64>, f64::INFINITY, FRAC_PI_2),
        (unary_one::<ArcTan, f64>, f64::NEG_INFINITY, -FRAC_PI_2),
        (unary_one::<ArcTan, f64>, 1.0, PI / 4.0),
    ];
    for (i, (f, x, want)) in cases.into_iter().enumerate() {
        let got = f(x);
        assert!(
            got.to_bits() == want.to_bits(),
            "case {i}: f({x}) = {got}, want {want}"
        );
    }
    for f in [
        unary_one::<Tan, f64>,
        unary_one::<ArcSin, f64>,
        unary_one::<ArcCos, f64>,
    ] {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(f(x).is_nan(), "f({x}) should be NaN");
        }
    }
    for x in [1.0 + f64::EPSILON, -1.5, 2.0] {
        assert!(unary_one::<ArcSin, f64>(x).is_nan() && unary_one::<ArcCos, f64>(x).is_nan());
    }
}
