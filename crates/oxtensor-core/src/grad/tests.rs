//! Differentiating and running graphs with no Python.

use super::*;
use crate::build;
use crate::dtype::DType;
use crate::graph::testing::{graph_with, run_graph};
use crate::kernels::elemwise::cast::cast;
use crate::tensor::Tensor;
use crate::types::TensorType;
use crate::Error;

fn run(g: &Graph, inputs: &[VarId], outputs: &[VarId], values: Vec<Tensor>) -> Vec<Vec<f64>> {
    let out = run_graph(g, inputs, outputs, values);
    out.iter()
        .map(|v| cast(v.tensor().unwrap(), DType::Float64).unwrap())
        .map(|t| t.float_values().unwrap())
        .collect()
}

fn vector(g: &mut Graph, name: &str) -> VarId {
    g.input(TensorType::with_ndim(DType::Float64, 1), Some(name))
}

#[test]
fn grad_of_a_sum_of_products() {
    let mut g = Graph::new();
    let x = vector(&mut g, "x");
    let two = g.tensor_constant(Tensor::scalar(2.0f64));
    let y = build::mul(&mut g, x, x).unwrap();
    let y = build::mul(&mut g, y, two).unwrap();
    let cost = build::sum(&mut g, y, None).unwrap();
    g.set_name(cost, Some("cost"));
    let gx = grad(&mut g, &GradRequest::new(cost, &[x]), None)
        .unwrap()
        .grads[0]
        .unwrap();
    assert_eq!(g.var(gx).name.as_deref(), Some("(dcost/dx)"));
    let xs = Tensor::from_vec(vec![3], vec![1.0, -2.0, 0.5]).unwrap();
    assert_eq!(run(&g, &[x], &[gx], vec![xs]), vec![vec![4.0, -8.0, 2.0]]);
}

#[test]
fn matrix_products_and_reductions() {
    let (mut g, [a]) = graph_with([("a", DType::Float64, 2)]);
    let v = vector(&mut g, "v");
    let av = build::dot(&mut g, a, v).unwrap();
    let e = build::exp(&mut g, av).unwrap();
    let cost = build::sum(&mut g, e, None).unwrap();
    let r = grad(&mut g, &GradRequest::new(cost, &[a, v]), None).unwrap();
    let (ga, gv) = (r.grads[0].unwrap(), r.grads[1].unwrap());
    let am = Tensor::from_vec(vec![2, 2], vec![0.1, 0.2, 0.3, 0.4]).unwrap();
    let vv = Tensor::from_vec(vec![2], vec![1.0, 2.0]).unwrap();
    let out = run(&g, &[a, v], &[ga, gv], vec![am, vv]);
    let (e0, e1) = ((0.1f64 + 0.4).exp(), (0.3f64 + 0.8).exp());
    let want_a = [e0, 2.0 * e0, e1, 2.0 * e1];
    let want_v = [0.1 * e0 + 0.3 * e1, 0.2 * e0 + 0.4 * e1];
    for (got, want) in out[0].iter().zip(want_a).chain(out[1].iter().zip(want_v)) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
}

#[test]
fn disconnected_and_integer_rules() {
    let mut g = Graph::new();
    let x = vector(&mut g, "x");
    let y = vector(&mut g, "y");
    let cost = build::sum(&mut g, x, None).unwrap();
    let err = grad(&mut g, &GradRequest::new(cost, &[y]), None).unwrap_err();
    assert!(matches!(err, Error::Disconnected(_)), "{err}");
    let req = GradRequest {
        return_disconnected: ReturnDisconnected::None,
        disconnected_inputs: OnDisconnected::Ignore,
        ..GradRequest::new(cost, &[y])
    };
    assert_eq!(grad(&mut g, &req, None).unwrap().grads, vec![None]);
    // Through an integer cast the gradient is zero, not disconnected.
    let xi = build::cast(&mut g, x, DType::Int64).unwrap();
    let back = build::cast(&mut g, xi, DType::Float64).unwrap();
    let c2 = build::sum(&mut g, back, None).unwrap();
    let r = grad(&mut g, &GradRequest::new(c2, &[x, xi]), None).unwrap();
    let xs = Tensor::from_vec(vec![2], vec![1.5, 2.5]).unwrap();
    let out = run(
        &g,
        &[x],
        &[r.grads[0].unwrap(), r.grads[1].unwrap()],
        vec![xs],
    );
    assert_eq!(out, vec![vec![0.0, 0.0], vec![1.0, 1.0]]);
    let bad = build::sum(&mut g, x, Some(&[0])).unwrap();
    let _ = bad;
    let err = grad(&mut g, &GradRequest::new(x, &[x]), None).unwrap_err();
    assert_eq!(err.to_string(), "Cost must be a scalar.");
}

#[test]
fn pushforward_matches_by_both_routes() {
    let mut g = Graph::new();
    let x = vector(&mut g, "x");
    let v = vector(&mut g, "v");
    let s = build::sin(&mut g, x).unwrap();
    let f = build::mul(&mut g, s, x).unwrap();
    let xs = Tensor::from_vec(vec![2], vec![0.3, 1.2]).unwrap();
    let vs = Tensor::from_vec(vec![2], vec![2.0, -1.0]).unwrap();
    let want: Vec<f64> = [(0.3f64, 2.0), (1.2, -1.0)]
        .iter()
        .map(|&(x, v)| (x.cos() * x + x.sin()) * v)
        .collect();
    for use_op_pushforward in [true, false] {
        let req = PushforwardRequest {
            f: vec![f],
            wrt: vec![x],
            tangents: vec![v],
            use_op_pushforward,
            ..Default::default()
        };
        let jv = pushforward(&mut g, &req, None).unwrap().grads[0].unwrap();
        let out = run(&g, &[x, v], &[jv], vec![xs.clone(), vs.clone()]);
        for (got, want) in out[0].iter().zip(&want) {
            assert!(
                (got - want).abs() < 1e-12,
                "{use_op_pushforward}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn prod_gradient_handles_zeros() {
    let mut g = Graph::new();
    let x = vector(&mut g, "x");
    let p = build::reduce(&mut g, crate::reduction::ReduceKind::Prod, x, None).unwrap();
    let gx = grad(&mut g, &GradRequest::new(p, &[x]), None)
        .unwrap()
        .grads[0]
        .unwrap();
    let cases = [
        (vec![2.0, 3.0, 4.0], vec![12.0, 8.0, 6.0]),
        (vec![2.0, 0.0, 4.0], vec![0.0, 8.0, 0.0]),
        (vec![0.0, 0.0, 4.0], vec![0.0, 0.0, 0.0]),
    ];
    for (xs, want) in cases {
        let t = Tensor::from_vec(vec![3], xs).unwrap();
        assert_eq!(run(&g, &[x], &[gx], vec![t]), vec![want]);
    }
}
