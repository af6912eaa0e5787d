//! Everyday graphs through `FAST_RUN` with the shape and structural
//! rewrites: a centred matrix, logistic regression's gradient and an MLP
//! training step compile to the nodes PyTensor keeps, and compute what
//! the unrewritten graph computes.

use oxtensor_core::compile::{compile, Mode};
use oxtensor_core::grad::{grad, GradRequest};
use oxtensor_core::ops::shape::ShapeI;
use oxtensor_core::prelude::*;

use crate::support::{matrix, op_names, spec, vector};
use oxtensor_core::scalar::ScalarKind;
use oxtensor_core::value::Value;
use std::sync::Arc;

fn data(shape: &[usize], seed: f64) -> Tensor {
    let n = shape.iter().product();
    let v = (0..n).map(|i| ((i as f64 + seed) * 0.37).sin()).collect();
    Tensor::from_vec(shape.to_vec(), v).unwrap()
}

fn mean0(g: &mut Graph, x: VarId) -> VarId {
    let s = build::sum(g, x, Some(&[0])).unwrap();
    let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[x]).unwrap();
    let n = build::cast(g, n, DType::Float64).unwrap();
    build::true_div(g, s, n).unwrap()
}

/// Compiles `outputs` with FAST_RUN and without rewrites; checks the
/// values agree on `args`; returns the FAST_RUN graph's op names.
fn compiled_ops(g: Graph, inputs: &[VarId], outputs: &[VarId], args: &[Tensor]) -> Vec<String> {
    let fast = compile(g.clone(), spec(inputs, outputs), &Mode::fast_run()).unwrap();
    let plain = compile(
        g,
        spec(inputs, outputs),
        &Mode::fast_run().excluding(&["fast_run"]),
    )
    .unwrap();
    let args: Vec<Value> = args.iter().cloned().map(Value::Tensor).collect();
    let (want, got) = (
        plain.program.run(args.clone()).unwrap(),
        fast.program.run(args).unwrap(),
    );
    for (w, o) in want.iter().zip(&got) {
        let (w, o) = (w.tensor().unwrap(), o.tensor().unwrap());
        assert_eq!(w.shape(), o.shape());
        for i in 0..w.len() {
            let (a, b) = (f64_of(w.get(i)), f64_of(o.get(i)));
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{a} vs {b}");
        }
    }
    op_names(&fast.built.fgraph)
}

fn f64_of(s: oxtensor_core::tensor::Scalar) -> f64 {
    match s {
        oxtensor_core::tensor::Scalar::Float(x, _) => x,
        oxtensor_core::tensor::Scalar::Int(x) => x as f64,
        other => panic!("{other:?}"),
    }
}

#[test]
fn centred_matrix() {
    let mut g = Graph::new();
    let x = matrix(&mut g, "x");
    let m = mean0(&mut g, x);
    let row = build::dimshuffle(&mut g, m, vec![None, Some(0)]).unwrap();
    let c = build::sub(&mut g, x, row).unwrap();
    let ops = compiled_ops(g, &[x], &[c], &[data(&[4, 3], 0.0)]);
    // The row of means is computed once, its lengths read from `x`.
    assert!(ops.len() <= 7, "{ops:?}");
    assert_eq!(
        ops.iter().filter(|o| o.starts_with("Sum")).count(),
        1,
        "{ops:?}"
    );
}

#[test]
fn logistic_regression_gradient() {
    let mut g = Graph::new();
    let x = matrix(&mut g, "x");
    let y = vector(&mut g, "y");
    let w = vector(&mut g, "w");
    let b = g.input(TensorType::scalar(DType::Float64), Some("b"));
    let xw = build::dot(&mut g, x, w).unwrap();
    let z = build::add(&mut g, xw, b).unwrap();
    let p = build::sigmoid(&mut g, z).unwrap();
    let lp = build::log(&mut g, p).unwrap();
    let one = g.tensor_constant(Tensor::scalar(1.0f64));
    let q = build::sub(&mut g, one, p).unwrap();
    let lq = build::log(&mut g, q).unwrap();
    let ny = build::sub(&mut g, one, y).unwrap();
    let t1 = build::mul(&mut g, y, lp).unwrap();
    let t2 = build::mul(&mut g, ny, lq).unwrap();
    let ll = build::add(&mut g, t1, t2).unwrap();
    let s = build::sum(&mut g, ll, None).unwrap();
    let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[y]).unwrap();
    let n = build::cast(&mut g, n, DType::Float64).unwrap();
    let mean = build::true_div(&mut g, s, n).unwrap();
    let loss = build::neg(&mut g, mean).unwrap();
    let grads = grad(&mut g, &GradRequest::new(loss, &[w, b]), None)
        .unwrap()
        .grads;
    let (gw, gb) = (grads[0].unwrap(), grads[1].unwrap());
    let args = [
        data(&[5, 3], 0.0),
        Tensor::from_vec(vec![5], vec![0.0, 1.0, 1.0, 0.0, 1.0]).unwrap(),
        data(&[3], 2.0),
        Tensor::scalar(0.1f64),
    ];
    let ops = compiled_ops(g, &[x, y, w, b], &[loss, gw, gb], &args);
    // The gradient's broadcasts are gone: no `Second`, `Alloc` or
    // `Squeeze` of an `ExpandDims` is left.
    assert!(ops.len() <= 32, "{} {ops:?}", ops.len());
    assert!(
        !ops.iter()
            .any(|o| ["Second", "Alloc", "Squeeze{axis=0}"].contains(&o.as_str())),
        "{ops:?}"
    );
}

#[test]
fn mlp_training_step() {
    let mut g = Graph::new();
    let x = matrix(&mut g, "x");
    let t = matrix(&mut g, "t");
    let w1 = matrix(&mut g, "w1");
    let b1 = vector(&mut g, "b1");
    let w2 = matrix(&mut g, "w2");
    let b2 = vector(&mut g, "b2");
    let h = build::dot(&mut g, x, w1).unwrap();
    let h = build::add(&mut g, h, b1).unwrap();
    let h = build::elemwise(&mut g, ScalarKind::Tanh, &[h]).unwrap();
    let o = build::dot(&mut g, h, w2).unwrap();
    let o = build::add(&mut g, o, b2).unwrap();
    let e = build::exp(&mut g, o).unwrap();
    let se = build::sum(&mut g, e, Some(&[1])).unwrap();
    let se = build::dimshuffle(&mut g, se, vec![Some(0), None]).unwrap();
    let sm = build::true_div(&mut g, e, se).unwrap();
    let lsm = build::log(&mut g, sm).unwrap();
    let tl = build::mul(&mut g, t, lsm).unwrap();
    let rows = build::sum(&mut g, tl, Some(&[1])).unwrap();
    let m = build::sum(&mut g, rows, None).unwrap();
    let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[x]).unwrap();
    let n = build::cast(&mut g, n, DType::Float64).unwrap();
    let m = build::true_div(&mut g, m, n).unwrap();
    let loss = build::neg(&mut g, m).unwrap();
    let params = [w1, b1, w2, b2];
    let grads = grad(&mut g, &GradRequest::new(loss, &params), None)
        .unwrap()
        .grads;
    let lr = g.tensor_constant(Tensor::scalar(0.1f64));
    let mut outs = vec![loss];
    for (&p, gp) in params.iter().zip(grads) {
        let step = build::mul(&mut g, lr, gp.unwrap()).unwrap();
        outs.push(build::sub(&mut g, p, step).unwrap());
    }
    let onehot =
        Tensor::from_vec(vec![4, 2], vec![1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0]).unwrap();
    let args = [
        data(&[4, 3], 0.0),
        onehot,
        data(&[3, 5], 1.0),
        data(&[5], 2.0),
        data(&[5, 2], 3.0),
        data(&[2], 4.0),
    ];
    let mut inputs = vec![x, t];
    inputs.extend(params);
    let ops = compiled_ops(g, &inputs, &outs, &args);
    assert!(ops.len() <= 53, "{} {ops:?}", ops.len());
    assert!(
        !ops.iter().any(|o| o == "Second" || o == "Alloc"),
        "{ops:?}"
    );
}
