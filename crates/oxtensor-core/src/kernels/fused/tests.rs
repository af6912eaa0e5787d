//! Fused chains against the same graphs run node by node: bit for bit
//! across sizes (empty, one block, several, parallel chunks), dtypes
//! (constants of another dtype converted as the nodes convert them),
//! strided inputs, extra outputs, and the error of shapes that do not
//! broadcast.

use super::testing::{fused, interpreted, link, programs};
use crate::build;
use crate::dtype::DType;
use crate::graph::testing::exp_chain;
use crate::graph::{FunctionGraph, Graph, VarId};
use crate::scalar::ScalarOp;
use crate::tensor::Tensor;
use crate::types::TensorType;
use crate::value::Value;

/// `exp(x * 2 - y) * x + 0.5f32`, and `x * 2` as an extra output when
/// `expose` (an output of the composite too).
fn graph(dtype: DType, expose: bool) -> FunctionGraph {
    let mut g = Graph::new();
    let x = g.input(TensorType::with_ndim(dtype, 1), Some("x"));
    let y = g.input(TensorType::with_ndim(dtype, 1), Some("y"));
    let two = g.tensor_constant(Tensor::scalar(2.0f64));
    // float32, as Python's exact `0.5` is: converted in a float64 chain.
    let half = g.tensor_constant(Tensor::scalar(0.5f32));
    let two = cast(&mut g, two, dtype);
    let outs = exp_chain(&mut g, [x, y, two, half], expose);
    FunctionGraph::new(g, vec![x, y], outs).unwrap()
}

fn cast(g: &mut Graph, v: VarId, dtype: DType) -> VarId {
    if dtype == DType::Float64 {
        return v;
    }
    build::elemwise(g, ScalarOp::Cast(dtype), &[v]).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.tensor().unwrap().float_values().expect("float values")
}

fn input(dtype: DType, n: usize, seed: f64) -> Value {
    let xs: Vec<f64> = (0..n).map(|i| ((i as f64 + seed) * 0.37).sin()).collect();
    let t = Tensor::from_vec(vec![n], xs).unwrap();
    crate::kernels::elemwise::cast::cast(&t, dtype)
        .unwrap()
        .into()
}

#[test]
fn fused_chains_match_unfused_runs_bit_for_bit() {
    for dtype in [DType::Float64, DType::Float32] {
        let (fused, plain, _) = programs(&graph(dtype, false));
        for n in [0, 1, 10, 64, 65, 2048, 5000, 70_001] {
            let args = vec![input(dtype, n, 0.0), input(dtype, n, 1.5)];
            let before = interpreted();
            let (a, b) = (fused.run(&args).unwrap(), plain.run(&args).unwrap());
            assert_eq!(interpreted(), before, "the fused kernel ran");
            let ta = a[0].tensor().unwrap();
            assert_eq!((ta.dtype(), ta.shape()), (dtype, &[n][..]));
            assert_eq!(floats(&a[0]), floats(&b[0]), "{dtype} n = {n}");
        }
    }
}

#[test]
fn values_other_nodes_read_are_outputs_of_the_composite() {
    let fg = graph(DType::Float64, true);
    let f = fused(&fg);
    assert_eq!(
        f.num_apply_nodes(),
        3,
        "the composite and the constants' ExpandDims"
    );
    let (fused, plain) = (link(&f), link(&fg));
    for n in [7, 5000, 70_001] {
        let args = vec![input(DType::Float64, n, 0.0), input(DType::Float64, n, 1.0)];
        let (a, b) = (fused.run(&args).unwrap(), plain.run(&args).unwrap());
        assert_eq!(floats(&a[0]), floats(&b[0]));
        assert_eq!(floats(&a[1]), floats(&b[1]));
    }
}

#[test]
fn strided_inputs_fuse_and_bad_lengths_name_the_node() {
    let (fused, plain, _) = programs(&graph(DType::Float64, false));
    let base = input(DType::Float64, 20, 0.0);
    let t = base.tensor().unwrap();
    let strided: Value = t.view(&[10], &[16], 0).unwrap().into();
    let args = vec![strided, input(DType::Float64, 10, 2.0)];
    let (a, b) = (fused.run(&args).unwrap(), plain.run(&args).unwrap());
    assert_eq!(floats(&a[0]), floats(&b[0]));
    // A length-1 `y` where the type does not let it broadcast: the
    // elementwise kernel's error, naming the composite node once.
    let bad = vec![input(DType::Float64, 3, 0.0), input(DType::Float64, 1, 0.0)];
    let err = fused.run(&bad).unwrap_err().to_string();
    assert!(err.contains("Runtime broadcasting not allowed"), "{err}");
    assert!(
        err.contains("Apply node that caused the error: Composite{"),
        "{err}"
    );
    assert_eq!(err.matches("Apply node").count(), 1, "{err}");
    let bad = vec![input(DType::Float64, 3, 0.0), input(DType::Float64, 4, 0.0)];
    let err = fused.run(&bad).unwrap_err().to_string();
    assert!(err.contains("Input dimension mismatch"), "{err}");
}
