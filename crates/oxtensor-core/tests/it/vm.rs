//! Building, compiling and running graphs with no Python in the process.

use oxtensor_core::prelude::*;

use crate::support::{matrix, values, vector};
use oxtensor_core::vm::{LinkOptions, Program};
use std::collections::HashMap;

/// `outputs` of `g` linked into a program over `inputs`.
fn linked(g: Graph, inputs: Vec<VarId>, outputs: Vec<VarId>) -> Program {
    let fg = FunctionGraph::new(g, inputs, outputs).unwrap();
    Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap()
}

#[test]
fn compiles_and_runs_a_matrix_graph() {
    let mut g = Graph::new();
    let (x, w) = (matrix(&mut g, "x"), vector(&mut g, "w"));
    let xw = build::dot(&mut g, x, w).unwrap();
    let e = build::exp(&mut g, xw).unwrap();
    let s = build::sum(&mut g, e, None).unwrap();
    let program = linked(g, vec![x, w], vec![xw, s]);

    let xv = Tensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let wv = Tensor::from_vec(vec![2], vec![0.5, -0.5]).unwrap();
    let out = program.run(vec![xv.into(), wv.into()]).unwrap();
    assert_eq!(values(&out[0]), vec![-0.5, -0.5]);
    let expected = 2.0 * (-0.5f64).exp();
    assert!((values(&out[1])[0] - expected).abs() < 1e-12);
}

#[test]
fn bad_shapes_are_errors_not_panics() {
    let mut g = Graph::new();
    let x = g.input(TensorType::with_ndim(DType::Float32, 1), Some("x"));
    let y = g.input(TensorType::with_ndim(DType::Float32, 1), Some("y"));
    let z = build::mul(&mut g, x, y).unwrap();
    let program = linked(g, vec![x, y], vec![z]);
    let a = Tensor::from_vec(vec![3], vec![1.0f32; 3]).unwrap();
    let b = Tensor::from_vec(vec![4], vec![1.0f32; 4]).unwrap();
    let err = program.run(vec![a.into(), b.into()]).unwrap_err();
    assert!(err.to_string().contains("Mul(x, y)"), "{err}");
}
