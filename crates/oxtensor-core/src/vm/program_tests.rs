//! Tests of `program.rs` and `link.rs`: linking, running, recycling,
//! lazy runs, profiles, outputs and errors.

use super::*;
use crate::build;
use crate::dtype::DType;
use crate::graph::testing::{graph_with, x_and_constant};
use crate::graph::{FunctionGraph, Graph, VarId};
use crate::tensor::{Scalar, Tensor};
use crate::types::TensorType;

fn f64s(v: &Value) -> Vec<f64> {
    v.tensor().unwrap().float_values().expect("float values")
}

#[test]
fn runs_a_chain_and_recycles() {
    let (mut g, x, two) = x_and_constant(2.0);
    let mut y = x;
    for _ in 0..5 {
        y = build::mul(&mut g, y, two).unwrap();
    }
    let s = build::sum(&mut g, y, None).unwrap();
    let fg = FunctionGraph::new(g, vec![x], vec![y, s]).unwrap();
    let prog = Program::link(
        &fg,
        HashMap::new(),
        &LinkOptions {
            allow_gc: true,
            profile: true,
            checker: None,
        },
    )
    .unwrap();
    let input = Tensor::from_vec(vec![3], vec![1.0, 2.0, 3.0]).unwrap();
    let out = prog.run(vec![input.into()]).unwrap();
    assert_eq!(f64s(&out[0]), vec![32.0, 64.0, 96.0]);
    assert_eq!(f64s(&out[1]), vec![192.0]);
    assert!(
        !prog.workspace.lock().unwrap().pool.is_empty(),
        "dead intermediates were recycled"
    );
    assert_eq!(prog.profile().unwrap().calls, 1);
}

#[test]
fn lazy_ifelse_computes_one_branch() {
    use crate::ops::ifelse::IfElse;
    let (mut g, [c, x, y]) = graph_with([
        ("c", DType::Bool, 0),
        ("x", DType::Float64, 1),
        ("y", DType::Float64, 1),
    ]);
    let bad = build::add(&mut g, x, y).unwrap();
    let good = build::exp(&mut g, x).unwrap();
    let out = g
        .apply_out(std::sync::Arc::new(IfElse { n_outs: 1 }), &[c, good, bad])
        .unwrap();
    let fg = FunctionGraph::new(g, vec![c, x, y], vec![out]).unwrap();
    let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
    let xv = Tensor::from_vec(vec![2], vec![0.0, 0.0]).unwrap();
    let yv = Tensor::from_vec(vec![3], vec![1.0; 3]).unwrap();
    // `x + y` would fail on these shapes: it must not run.
    let out = prog
        .run(vec![
            Tensor::scalar(true).into(),
            xv.clone().into(),
            yv.clone().into(),
        ])
        .unwrap();
    assert_eq!(f64s(&out[0]), vec![1.0, 1.0]);
    assert!(prog
        .run(vec![Tensor::scalar(false).into(), xv.into(), yv.into()])
        .is_err());
}

#[test]
fn lazy_profiles_count_the_nodes_that_ran() {
    use crate::ops::ifelse::IfElse;
    let (mut g, [c, x]) = graph_with([("c", DType::Bool, 0), ("x", DType::Float64, 1)]);
    let then = build::exp(&mut g, x).unwrap();
    let other = build::neg(&mut g, x).unwrap();
    let out = g
        .apply_out(std::sync::Arc::new(IfElse { n_outs: 1 }), &[c, then, other])
        .unwrap();
    let fg = FunctionGraph::new(g, vec![c, x], vec![out]).unwrap();
    let opts = LinkOptions {
        allow_gc: true,
        profile: true,
        checker: None,
    };
    let prog = Program::link(&fg, HashMap::new(), &opts).unwrap();
    let xv = Tensor::from_vec(vec![1], vec![0.0]).unwrap();
    prog.run(vec![Tensor::scalar(true).into(), xv.into()])
        .unwrap();
    let calls: Vec<(String, u64)> = prog
        .profile()
        .unwrap()
        .nodes
        .iter()
        .map(|n| (n.op_class.clone(), n.calls))
        .collect();
    assert!(calls.contains(&("IfElse".into(), 1)), "{calls:?}");
    let ran: u64 = calls.iter().map(|(_, n)| n).sum();
    assert_eq!(ran, 2, "if{{}} and the taken branch only: {calls:?}");
}

#[test]
fn outputs_may_be_inputs_constants_or_repeats() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let c = g.tensor_constant(Tensor::from_vec(vec![2], vec![5.0f64, 6.0]).unwrap());
    let y = build::neg(&mut g, x).unwrap();
    let fg = FunctionGraph::new(g, vec![x], vec![x, c, y, y]).unwrap();
    let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
    let input: Value = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap().into();
    // Twice: the workspace kept from the first call must start empty.
    for _ in 0..2 {
        let out = prog.run(std::slice::from_ref(&input)).unwrap();
        let got: Vec<Vec<f64>> = out.iter().map(f64s).collect();
        assert_eq!(
            got,
            [
                vec![1.0, 2.0],
                vec![5.0, 6.0],
                vec![-1.0, -2.0],
                vec![-1.0, -2.0]
            ]
        );
    }
}

#[test]
fn prepared_constants_compute_the_same_and_errors_show_them_as_declared() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let c = g.tensor_constant(Tensor::from_vec(vec![2], vec![2i8, -3]).unwrap());
    let y = build::mul(&mut g, x, c).unwrap();
    let fg = FunctionGraph::new(g, vec![x], vec![y]).unwrap();
    let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
    assert!(
        prog.constants
            .iter()
            .any(|v| v.tensor().unwrap().dtype() == DType::Float64),
        "the int8 constant was cast once, at link time"
    );
    let two = Tensor::from_vec(vec![2], vec![1.5f64, 2.0]).unwrap();
    assert_eq!(
        f64s(&prog.run(vec![two.into()]).unwrap()[0]),
        vec![3.0, -6.0]
    );
    let three = Tensor::from_vec(vec![3], vec![1.0f64; 3]).unwrap();
    let err = prog.run(vec![three.into()]).unwrap_err().to_string();
    assert!(err.contains("Inputs dtypes: [float64, int8]"), "{err}");
}

#[test]
fn small_runs_count_inputs_and_constants() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let c = g.tensor_constant(Tensor::from_vec(vec![1000], vec![1.0f64; 1000]).unwrap());
    let y = build::add(&mut g, x, c).unwrap();
    let fg = FunctionGraph::new(g, vec![x], vec![y]).unwrap();
    let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
    let input =
        |n: usize| -> Vec<Value> { vec![Tensor::zeros(DType::Float64, &[n]).unwrap().into()] };
    // 1000 constant elements plus the input's, against 1024.
    assert!(prog.is_small_run(&input(24)));
    assert!(!prog.is_small_run(&input(25)));
}

#[test]
fn one_step_programs_run_directly_and_take_outputs_back() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let y = build::neg(&mut g, x).unwrap();
    let link = |outs: Vec<VarId>| {
        let fg = FunctionGraph::new(g.clone(), vec![x], outs).unwrap();
        Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap()
    };
    let prog = link(vec![y]);
    assert!(prog.single);
    let input: Value = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap().into();
    let out = prog.run(std::slice::from_ref(&input)).unwrap();
    assert_eq!(f64s(&out[0]), [-1.0, -2.0]);
    let t = out[0].tensor().unwrap().clone();
    let ptr = t.as_ptr();
    drop(out);
    // Given back, the output's buffer serves the next call.
    prog.recycle(t);
    let again = prog.run(std::slice::from_ref(&input)).unwrap();
    assert_eq!(again[0].tensor().unwrap().as_ptr(), ptr);
    assert_eq!(f64s(&again[0]), [-1.0, -2.0]);
    // Repeated outputs, or outputs that are not the step's, go through
    // storage.
    assert!(!link(vec![y, y]).single);
    assert!(!link(vec![x, y]).single);
}

#[test]
fn errors_name_the_node() {
    let (mut g, [x, y]) = graph_with([("x", DType::Float64, 1), ("y", DType::Float64, 1)]);
    let z = build::add(&mut g, x, y).unwrap();
    let fg = FunctionGraph::new(g, vec![x, y], vec![z]).unwrap();
    let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
    let a = Tensor::from_vec(vec![3], vec![1.0; 3]).unwrap();
    let b = Tensor::from_vec(vec![2], vec![1.0; 2]).unwrap();
    let err = prog.run(vec![a.into(), b.into()]).unwrap_err().to_string();
    assert!(
        err.contains("Apply node that caused the error: Add(x, y)"),
        "{err}"
    );
    assert!(err.contains("Inputs shapes: [[3], [2]]"), "{err}");
}

#[test]
fn bool_inputs_read_as_bytes_skip_the_check() {
    use crate::scalar::ScalarKind;
    let mut g = Graph::new();
    let ty = TensorType::with_ndim(DType::Bool, 1);
    let (x, y, w, v) = (
        g.input(ty.clone(), Some("x")),
        g.input(ty.clone(), Some("y")),
        g.input(ty.clone(), Some("w")),
        g.input(ty, Some("v")),
    );
    let z = build::elemwise(&mut g, ScalarKind::And, &[x, y]).unwrap();
    let n = build::elemwise(&mut g, ScalarKind::Invert, &[z]).unwrap();
    let f = build::cast(&mut g, w, DType::Float64).unwrap();
    let any = build::reduce(&mut g, crate::reduction::ReduceKind::Any, v, None).unwrap();
    let fg = FunctionGraph::new(g, vec![x, y, w, v], vec![n, f, y, any]).unwrap();
    let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
    // `x` only feeds `and` and `v` `any`; `y` is also an output; `w` is
    // cast (read as bool).
    let flags: Vec<bool> = (0..5).map(|i| prog.takes_bool_bytes(i)).collect();
    assert_eq!(flags, [true, false, false, true, false]);
    let raw = Tensor::from_bytes(DType::Bool, vec![3], vec![2, 0, 0x80]).unwrap();
    let ones = Tensor::from_bytes(DType::Bool, vec![3], vec![1, 1, 0]).unwrap();
    let out = prog
        .run(vec![
            raw.clone().into(),
            ones.clone().into(),
            ones.into(),
            raw.into(),
        ])
        .unwrap();
    let got: Vec<Scalar> = (0..3).map(|i| out[0].tensor().unwrap().get(i)).collect();
    assert_eq!(got, [false, true, true].map(Scalar::Bool));
    assert_eq!(out[3].tensor().unwrap().get(0), Scalar::Bool(true));
}
