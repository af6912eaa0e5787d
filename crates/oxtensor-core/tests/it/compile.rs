//! Compiling from Rust with the rewrite phases, as Python does.

use oxtensor_core::compile::{compile, Mode, OnUnused};
use oxtensor_core::prelude::*;

use crate::support::{op_names, spec, values, vector};

#[test]
fn fast_run_specializes_and_stabilizes() {
    let mut g = Graph::new();
    let x = vector(&mut g, "x");
    let two = g.tensor_constant(Tensor::scalar(2.0f64));
    let one = g.tensor_constant(Tensor::scalar(1.0f64));
    let sq = build::pow(&mut g, x, two).unwrap();
    let s = build::add(&mut g, one, x).unwrap();
    let l = build::log(&mut g, s).unwrap();
    let c = compile(g, spec(&[x], &[sq, l]), &Mode::fast_run()).unwrap();
    let names = op_names(&c.built.fgraph);
    assert!(
        names.contains(&"Sqr".to_owned()) && names.contains(&"Log1p".to_owned()),
        "{names:?}"
    );
    let out = c
        .program
        .run(vec![Tensor::from_vec(vec![2], vec![1e-20, 3.0])
            .unwrap()
            .into()])
        .unwrap();
    assert_eq!(values(&out[0]), [1e-40, 9.0]);
    assert_eq!(values(&out[1])[0], 1e-20, "log1p keeps tiny values");
    assert!(c
        .built
        .profile
        .rewriters
        .contains_key("local_pow_specialize"));
}

/// `x ** 2` of a float vector `x`: the graph, `x` and the power.
fn x_squared() -> (Graph, VarId, VarId) {
    let mut g = Graph::new();
    let x = vector(&mut g, "x");
    let two = g.tensor_constant(Tensor::scalar(2.0f64));
    let sq = build::pow(&mut g, x, two).unwrap();
    (g, x, sq)
}

#[test]
fn fast_compile_canonicalizes_but_does_not_specialize() {
    let (mut g, x, sq) = x_squared();
    let n = build::neg(&mut g, sq).unwrap();
    let nn = build::neg(&mut g, n).unwrap();
    let c = compile(g, spec(&[x], &[nn]), &Mode::fast_compile()).unwrap();
    let names = op_names(&c.built.fgraph);
    assert!(names.iter().any(|n| n == "Pow"), "{names:?}");
    assert!(!names.iter().any(|n| n == "Neg"), "{names:?}");
}

#[test]
fn the_callers_graph_is_never_changed() {
    let (g, x, sq) = x_squared();
    let before = g.describe_node(g.var(sq).owner().unwrap());
    let keep = g.clone();
    let c = compile(g, spec(&[x], &[sq]), &Mode::fast_run()).unwrap();
    assert_eq!(keep.describe_node(keep.var(sq).owner().unwrap()), before);
    // The compiled graph's input is the caller's variable itself.
    assert_eq!(c.built.fgraph.inputs(), [x]);
}

#[test]
fn unused_inputs_and_givens() {
    let mut g = Graph::new();
    let x = vector(&mut g, "x");
    let y = vector(&mut g, "y");
    let e = build::exp(&mut g, x).unwrap();
    let err = compile(g.clone(), spec(&[x, y], &[e]), &Mode::fast_run())
        .err()
        .unwrap();
    assert!(matches!(err.root(), Error::UnusedInput(_)), "{err}");
    assert!(
        err.to_string().contains("input variable at index 1"),
        "{err}"
    );
    let mut warn = spec(&[x, y], &[e]);
    warn.on_unused_input = OnUnused::Warn;
    let c = compile(g.clone(), warn, &Mode::fast_run()).unwrap();
    assert_eq!(c.built.warnings.len(), 1);
    // givens: x -> y, so the function of y computes exp(y).
    let mut given = spec(&[y], &[e]);
    given.givens = vec![(x, y)];
    let c = compile(g, given, &Mode::fast_run()).unwrap();
    let out = c
        .program
        .run(vec![Tensor::from_vec(vec![1], vec![0.0]).unwrap().into()])
        .unwrap();
    assert_eq!(values(&out[0]), [1.0]);
}

#[test]
fn a_given_may_replace_an_implicit_input_it_reads() {
    // `givens={s: exp(s)}` for a shared `s`: the replacement reads the
    // original `s`, so the function computes exp(exp(s)).
    let mut g = Graph::new();
    let s = vector(&mut g, "s");
    let e = build::exp(&mut g, s).unwrap();
    let mut explicit = spec(&[s], &[e]);
    explicit.givens = vec![(s, e)];
    let err = compile(g.clone(), explicit.clone(), &Mode::fast_run())
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("through the `givens` parameter"),
        "{err}"
    );
    // PyTensor raises RuntimeError here; the host maps this kind to it.
    assert!(matches!(err.root(), Error::Runtime(_)), "{err:?}");
    let mut implicit = explicit;
    implicit.inputs[0].implicit = true;
    let c = compile(g, implicit, &Mode::fast_run()).unwrap();
    let out = c
        .program
        .run(vec![Tensor::from_vec(vec![1], vec![0.0]).unwrap().into()])
        .unwrap();
    assert!((values(&out[0])[0] - std::f64::consts::E).abs() < 1e-12);
}
