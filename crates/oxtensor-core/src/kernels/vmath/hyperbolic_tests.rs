//! Accuracy of `sinh`, `cosh`, `tanh`, `arcsinh`, `arccosh` and `arctanh`
//! against libm (glibc's within 1-2 ulp of the correctly rounded result)
//! at every build the CPU runs, over wide random ranges, the thresholds of
//! each formula and the special values.

use super::hyperbolic::{ArcCosh, ArcSinh, ArcTanh, Cosh, Sinh, Tanh};
use super::test_support::{check_unary as unary, guarded, plain, Rng, Run32, Run64, SPECIAL};

/// The representable neighbours within `d` steps of `x`.
fn around(x: f64, d: i64) -> impl Iterator<Item = f64> {
    (-d..=d).map(move |i| f64::from_bits((x.to_bits() as i64 + i) as u64))
}

#[test]
fn sinh_cosh_within_2_ulp() {
    let mut rng = Rng(11);
    let mut xs = rng.log_uniforms(150_000, -40.0, 9.5);
    xs.extend((0..50_000).map(|_| rng.uniform(-6.0, 6.0)));
    for edge in [709.0, 709.78, 710.47, 710.5] {
        xs.extend(around(edge, 3).flat_map(|x| [x, -x]));
    }
    xs.extend(SPECIAL);
    unary("sinh", &xs, guarded::<Sinh>(), f64::sinh, (2, 2));
    unary("cosh", &xs, guarded::<Cosh>(), f64::cosh, (2, 2));
}

#[test]
fn tanh_within_2_ulp() {
    let mut rng = Rng(12);
    let mut xs = rng.log_uniforms(200_000, -40.0, 5.0);
    for edge in [19.0, 19.1, 22.0] {
        xs.extend(around(edge, 3).flat_map(|x| [x, -x]));
    }
    xs.extend(SPECIAL);
    unary("tanh", &xs, plain::<Tanh>(), f64::tanh, (2, 3));
}

#[test]
fn arcsinh_within_2_ulp() {
    let mut rng = Rng(13);
    let mut xs = rng.log_uniforms(200_000, -60.0, 70.0);
    xs.extend(around(268_435_456.0, 3).flat_map(|x| [x, -x]));
    xs.extend(SPECIAL);
    xs.extend([1e300, -1e-310]);
    unary("arcsinh", &xs, guarded::<ArcSinh>(), libm::asinh, (2, 2));
}

#[test]
fn arccosh_within_2_ulp() {
    let mut rng = Rng(14);
    let mut xs: Vec<f64> = rng
        .log_uniforms(200_000, -50.0, 70.0)
        .iter()
        .map(|v| 1.0 + v.abs())
        .collect();
    xs.extend((0..20_000).map(|_| rng.uniform(-3.0, 1.0)));
    xs.extend(around(1.0, 5));
    xs.extend(around(268_435_456.0, 3));
    xs.extend(SPECIAL);
    xs.extend([1e300, f64::MAX]);
    unary("arccosh", &xs, guarded::<ArcCosh>(), libm::acosh, (2, 2));
}

#[test]
fn arctanh_within_2_ulp() {
    let mut rng = Rng(15);
    let mut xs = rng.log_uniforms(200_000, -60.0, 0.0);
    xs.extend((0..20_000).map(|_| rng.uniform(-1.5, 1.5)));
    for edge in [0.5, 1.0] {
        xs.extend(around(edge, 5).flat_map(|x| [x, -x]));
    }
    xs.extend(SPECIAL);
    unary("arctanh", &xs, guarded::<ArcTanh>(), libm::atanh, (2, 2));
}

#[test]
fn special_values_as_numpy() {
    let one = |runs: (Box<Run64>, Box<Run32>), x: f64| {
        let mut y = [0.0];
        (runs.0)(crate::kernels::cpu::level(), &mut y, &[x], &[x]);
        y[0]
    };
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
