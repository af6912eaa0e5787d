//! Accuracy of `sin`, `cos`, `tan`, `arcsin`, `arccos`, `arctan` and `arctan2` against
//! libm (glibc's are correctly rounded or within 1 ulp of it) at every
//! build the CPU runs, over wide random ranges and the special values.

use super::inverse_trig::{ArcCos, ArcSin, ArcTan, ArcTan2};
use super::test_support::{
    around, at_one, check, check_unary as unary, guarded, guarded2, plain, Inputs, Rng,
};
use super::trig::{Cos, Sin, Tan};
use std::f64::consts::{FRAC_PI_2, PI};

#[test]
fn tan_within_2_ulp() {
    let mut inputs = Inputs::log_uniform(1, 100_000, -40.0, 22.0).uniform(50_000, -8.0, 8.0);
    // Doubles next to multiples of π/2, where the reduction cancels most.
    for _ in 0..20_000 {
        let k = inputs.rng.uniform(0.0, 1_048_576.0 * 0.6) as i64;
        inputs.xs.extend(around(k as f64 * FRAC_PI_2, 2));
    }
    let xs = inputs.with(&[
        1e-300,
        -3e-9,
        3.7e-9,
        std::f64::consts::FRAC_PI_4,
        1_048_576.0,
        1_048_577.0,
        1e22,
    ]);
    unary("tan", &xs, guarded::<Tan>(), f64::tan, (2, 2));
}

#[test]
fn sin_cos_within_1_ulp() {
    let mut inputs = Inputs::log_uniform(5, 100_000, -40.0, 22.0).uniform(50_000, -8.0, 8.0);
    // Doubles next to multiples of π/2 (zeros of one of the two) and of
    // π/4 (where the reduction switches polynomial).
    for _ in 0..20_000 {
        let k = inputs.rng.uniform(0.0, 1_048_576.0 * 1.2) as i64;
        let edges = [k as f64 * FRAC_PI_2, (k as f64 + 0.5) * FRAC_PI_2];
        inputs = inputs.around(&edges, 2, true);
    }
    let xs = inputs.with(&[1e-310, -1e-300, 3e-9, 1_048_576.0, 1_048_577.0, -1e22]);
    unary("sin", &xs, guarded::<Sin>(), f64::sin, (1, 1));
    unary("cos", &xs, guarded::<Cos>(), f64::cos, (1, 1));
}

#[test]
fn arcsin_arccos_within_2_ulp() {
    let xs = Inputs::log_uniform(2, 100_000, -60.0, 0.0)
        .uniform(100_000, -1.0, 1.0)
        .around(&[0.5, 1.0], 40, true)
        .with(&[1.5, -2.0, 1e-310]);
    unary("arcsin", &xs, plain::<ArcSin>(), f64::asin, (2, 2));
    unary("arccos", &xs, plain::<ArcCos>(), f64::acos, (2, 2));
}

#[test]
fn arctan_within_2_ulp() {
    let splits = [
        0.198_912_367_379_658,
        0.668_178_637_919_298_9,
        1.496_605_762_665_489,
        5.027_339_492_125_848,
    ];
    let xs = Inputs::log_uniform(3, 200_000, -60.0, 60.0)
        .uniform(50_000, -6.0, 6.0)
        .around(&splits, 3, false)
        .with(&[1e308, -1e-310]);
    unary("arctan", &xs, plain::<ArcTan>(), f64::atan, (2, 2));
}

#[test]
fn arctan2_within_2_ulp_and_numpy_special_values() {
    let mut rng = Rng(4);
    let ys = rng.log_uniforms(150_000, -80.0, 80.0);
    let xs = rng.log_uniforms(150_000, -80.0, 80.0);
    let runs = guarded2::<ArcTan2>();
    let worst = check(
        "arctan2",
        (&ys, &xs),
        (&*runs.0, &*runs.1),
        &f64::atan2,
        (2, 3, 1),
    );
    eprintln!("arctan2: worst {worst:?} ulp");
    // Every pair of edge values: libm's (= NumPy's) signed zeros, quadrants
    // and infinities, including through the far-scale fallback.
    let inf = f64::INFINITY;
    let edges = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -0.3,
        inf,
        -inf,
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
    check(
        "arctan2",
        (&ys, &xs),
        (&*runs.0, &*runs.1),
        &f64::atan2,
        (1, 1, 1),
    );
}

#[test]
fn exact_special_values() {
    let one = at_one;
    let (tan, asin, acos, atan) = (
        guarded::<Tan>(),
        plain::<ArcSin>(),
        plain::<ArcCos>(),
        plain::<ArcTan>(),
    );
    let cases = [
        (&tan, -0.0, -0.0),
        (&tan, 0.0, 0.0),
        (&asin, -0.0, -0.0),
        (&asin, 1.0, FRAC_PI_2),
        (&asin, -1.0, -FRAC_PI_2),
        (&acos, 1.0, 0.0),
        (&acos, -1.0, PI),
        (&acos, -0.0, FRAC_PI_2),
        (&atan, -0.0, -0.0),
        (&atan, f64::INFINITY, FRAC_PI_2),
        (&atan, f64::NEG_INFINITY, -FRAC_PI_2),
        (&atan, 1.0, PI / 4.0),
    ];
    for (i, (f, x, want)) in cases.into_iter().enumerate() {
        let got = one(f, x);
        assert!(
            got.to_bits() == want.to_bits(),
            "case {i}: f({x}) = {got}, want {want}"
        );
    }
    for f in [&tan, &asin, &acos] {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(one(f, x).is_nan(), "f({x}) should be NaN");
        }
    }
    for x in [1.0 + f64::EPSILON, -1.5, 2.0] {
        assert!(one(&asin, x).is_nan() && one(&acos, x).is_nan());
    }
}
