//! Accuracy of `sinh`, `cosh`, `tanh`, `arcsinh`, `arccosh` and `arctanh`
//! against libm (glibc's within 1-2 ulp of the correctly rounded result)
//! at every build the CPU runs, over wide random ranges, the thresholds of
//! each formula and the special values.

use super::hyperbolic::{ArcCosh, ArcSinh, ArcTanh, Cosh, Sinh, Tanh};
use super::test_support::{at_one, check_unary as unary, guarded, plain, Inputs};

#[test]
fn sinh_cosh_within_2_ulp() {
    let xs = Inputs::log_uniform(11, 150_000, -40.0, 9.5)
        .uniform(50_000, -6.0, 6.0)
        .around(&[709.0, 709.78, 710.47, 710.5], 3, true)
        .with(&[]);
    unary("sinh", &xs, guarded::<Sinh>(), f64::sinh, (2, 2));
    unary("cosh", &xs, guarded::<Cosh>(), f64::cosh, (2, 2));
}

#[test]
fn tanh_within_2_ulp() {
    let xs = Inputs::log_uniform(12, 200_000, -40.0, 5.0)
        .around(&[19.0, 19.1, 22.0], 3, true)
        .with(&[]);
    unary("tanh", &xs, plain::<Tanh>(), f64::tanh, (2, 3));
}

#[test]
fn arcsinh_within_2_ulp() {
    let xs = Inputs::log_uniform(13, 200_000, -60.0, 70.0)
        .around(&[268_435_456.0], 3, true)
        .with(&[1e300, -1e-310]);
    unary("arcsinh", &xs, guarded::<ArcSinh>(), libm::asinh, (2, 2));
}

#[test]
fn arccosh_within_2_ulp() {
    let mut above_one = Inputs::log_uniform(14, 200_000, -50.0, 70.0);
    above_one.xs.iter_mut().for_each(|v| *v = 1.0 + v.abs());
    let xs = above_one
        .uniform(20_000, -3.0, 1.0)
        .around(&[1.0], 5, false)
        .around(&[268_435_456.0], 3, false)
        .with(&[1e300, f64::MAX]);
    unary("arccosh", &xs, guarded::<ArcCosh>(), libm::acosh, (2, 2));
}

#[test]
fn arctanh_within_2_ulp() {
    let xs = Inputs::log_uniform(15, 200_000, -60.0, 0.0)
        .uniform(20_000, -1.5, 1.5)
        .around(&[0.5, 1.0], 5, true)
        .with(&[]);
    unary("arctanh", &xs, guarded::<ArcTanh>(), libm::atanh, (2, 2));
}

#[test]
fn special_values_as_numpy() {
    let one = |runs, x| at_one(&runs, x);
    let inf = f64::INFINITY;
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let cases: [(&str, f64, f64); 16] = [
        ("sinh", -0.0, -0.0),
        ("sinh", -inf, -inf),
        ("cosh", -inf, inf),
        ("cosh", -0.0, 1.0),
        ("tanh", -0.0, -0.0),
        ("tanh", -inf, -1.0),
        ("arcsinh", -0.0, -0.0),
        ("arcsinh", -inf, -inf),
        ("arccosh", 1.0, 0.0),
        ("arccosh", inf, inf),
        ("arccosh", 0.5, f64::NAN),
        ("arccosh", -inf, f64::NAN),
        ("arctanh", -0.0, -0.0),
        ("arctanh", 1.0, inf),
        ("arctanh", -1.0, -inf),
        ("arctanh", 1.5, f64::NAN),
    ];
    for (name, x, want) in cases {
        let got = match name {
            "sinh" => one(guarded::<Sinh>(), x),
            "cosh" => one(guarded::<Cosh>(), x),
            "tanh" => one(plain::<Tanh>(), x),
            "arcsinh" => one(guarded::<ArcSinh>(), x),
            "arccosh" => one(guarded::<ArcCosh>(), x),
            _ => one(guarded::<ArcTanh>(), x),
        };
        assert!(same(got, want), "{name}({x}) = {got}, want {want}");
    }
}
