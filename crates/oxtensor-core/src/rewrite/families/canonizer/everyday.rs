//! Everyday gradient graphs (logistic regression, a normal log-density, an
//! MLP training step) after canonicalization: their values against the
//! unrewritten graphs, and their node counts against PyTensor's.

use crate::build;
use crate::dtype::DType;
use crate::grad::{grad, GradRequest};
use crate::graph::{FunctionGraph, Graph, VarId};
use crate::kernels::softmax::SoftmaxKind;
use crate::ops::shape::ShapeI;
use crate::ops::softmax::Softmax;
use crate::rewrite::families::testing::{check, Case};
use crate::scalar::ScalarKind;
use crate::tensor::Tensor;
use crate::types::TensorType;
use std::sync::Arc;

fn input(g: &mut Graph, name: &str, ndim: usize) -> VarId {
    g.input(TensorType::with_ndim(DType::Float64, ndim), Some(name))
}

fn constant(g: &mut Graph, x: f64) -> VarId {
    g.tensor_constant(Tensor::scalar(x))
}

/// `mean(v)` of a vector as PyTensor builds it: `sum(v) / float(len(v))`.
fn mean(g: &mut Graph, v: VarId) -> VarId {
    let s = build::sum(g, v, None).unwrap();
    let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[v]).unwrap();
    let n = build::cast(g, n, DType::Float64).unwrap();
    build::true_div(g, s, n).unwrap()
}

fn grads(g: &mut Graph, cost: VarId, wrt: &[VarId]) -> Vec<VarId> {
    let r = grad(g, &GradRequest::new(cost, wrt), None).unwrap();
    r.grads.into_iter().map(Option::unwrap).collect()
}

fn matrix(rows: usize, cols: usize, seed: f64) -> Tensor {
    let data = (0..rows * cols)
        .map(|i| ((i as f64 + 1.0) * seed).sin())
        .collect();
    Tensor::from_vec(vec![rows, cols], data).unwrap()
}

fn vector(n: usize, seed: f64) -> Tensor {
    let data = (0..n).map(|i| ((i as f64 + 1.0) * seed).cos()).collect();
    Tensor::from_vec(vec![n], data).unwrap()
}

/// Logistic regression: the loss and its gradient in `w` and `b`.
fn logistic_regression() -> (Case, Vec<Tensor>) {
    let mut g = Graph::new();
    let (x, y, w, b) = (
        input(&mut g, "X", 2),
        input(&mut g, "y", 1),
        input(&mut g, "w", 1),
        input(&mut g, "b", 0),
    );
    let z = build::dot(&mut g, x, w).unwrap();
    let z = build::add(&mut g, z, b).unwrap();
    let p = build::sigmoid(&mut g, z).unwrap();
    let one = constant(&mut g, 1.0);
    let lp = build::log(&mut g, p).unwrap();
    let a = build::mul(&mut g, y, lp).unwrap();
    let ny = build::sub(&mut g, one, y).unwrap();
    let np = build::sub(&mut g, one, p).unwrap();
    let lnp = build::log(&mut g, np).unwrap();
    let bb = build::mul(&mut g, ny, lnp).unwrap();
    let s = build::add(&mut g, a, bb).unwrap();
    let m = mean(&mut g, s);
    let loss = build::neg(&mut g, m).unwrap();
    let gs = grads(&mut g, loss, &[w, b]);
    let args = vec![
        matrix(5, 3, 0.7),
        Tensor::from_vec(vec![5], vec![1.0, 0.0, 1.0, 1.0, 0.0]).unwrap(),
        vector(3, 0.3),
        Tensor::scalar(0.1f64),
    ];
    let case = Case::new(g, vec![x, y, w, b], vec![loss, gs[0], gs[1]]);
    (case, args)
}

/// A normal log-density summed over data, and its gradient in `mu`, `sigma`.
fn normal_logp() -> (Case, Vec<Tensor>) {
    let mut g = Graph::new();
    let (mu, sigma, data) = (
        input(&mut g, "mu", 0),
        input(&mut g, "sigma", 0),
        input(&mut g, "data", 1),
    );
    let d = build::sub(&mut g, data, mu).unwrap();
    let z = build::true_div(&mut g, d, sigma).unwrap();
    let two = constant(&mut g, 2.0);
    let z2 = build::pow(&mut g, z, two).unwrap();
    let half = constant(&mut g, -0.5);
    let t = build::mul(&mut g, half, z2).unwrap();
    let ls = build::log(&mut g, sigma).unwrap();
    let t = build::sub(&mut g, t, ls).unwrap();
    let c = constant(&mut g, 0.5 * (2.0 * std::f64::consts::PI).ln());
    let t = build::sub(&mut g, t, c).unwrap();
    let logp = build::sum(&mut g, t, None).unwrap();
    let gs = grads(&mut g, logp, &[mu, sigma]);
    let args = vec![
        Tensor::scalar(0.3f64),
        Tensor::scalar(1.7f64),
        vector(6, 0.9),
    ];
    let case = Case::new(g, vec![mu, sigma, data], vec![logp, gs[0], gs[1]]);
    (case, args)
}

/// A two-layer MLP with softmax cross-entropy (one-hot targets): the loss
/// and one step of gradient descent on every parameter.
fn mlp_step() -> (Case, Vec<Tensor>) {
    let mut g = Graph::new();
    let x = input(&mut g, "X", 2);
    let t = input(&mut g, "T", 2);
    let (w1, b1, w2, b2) = (
        input(&mut g, "W1", 2),
        input(&mut g, "b1", 1),
        input(&mut g, "W2", 2),
        input(&mut g, "b2", 1),
    );
    let h = build::dot(&mut g, x, w1).unwrap();
    let h = build::add(&mut g, h, b1).unwrap();
    let h = build::elemwise(&mut g, ScalarKind::Tanh, &[h]).unwrap();
    let o = build::dot(&mut g, h, w2).unwrap();
    let o = build::add(&mut g, o, b2).unwrap();
    let sm = Softmax::new(SoftmaxKind::Softmax, Some(-1), 2).unwrap();
    let p = g.apply_out(Arc::new(sm), &[o]).unwrap();
    let lp = build::log(&mut g, p).unwrap();
    let tl = build::mul(&mut g, t, lp).unwrap();
    let rows = build::sum(&mut g, tl, Some(&[1])).unwrap();
    let m = mean(&mut g, rows);
    let loss = build::neg(&mut g, m).unwrap();
    let params = [w1, b1, w2, b2];
    let gs = grads(&mut g, loss, &params);
    let lr = constant(&mut g, 0.1);
    let mut outputs = vec![loss];
    for (p, gp) in params.iter().zip(gs) {
        let step = build::mul(&mut g, lr, gp).unwrap();
        outputs.push(build::sub(&mut g, *p, step).unwrap());
    }
    let onehot = Tensor::from_vec(
        vec![4, 3],
        vec![1., 0., 0., 0., 1., 0., 0., 0., 1., 1., 0., 0.],
    )
    .unwrap();
    let args = vec![
        matrix(4, 5, 0.4),
        onehot,
        matrix(5, 6, 0.8),
        vector(6, 0.2),
        matrix(6, 3, 0.5),
        vector(3, 0.6),
    ];
    let case = Case::new(g, vec![x, t, w1, b1, w2, b2], outputs);
    (case, args)
}

/// The op names of a graph, in schedule order.
fn ops(fg: &FunctionGraph) -> Vec<String> {
    let order = fg.toposort().unwrap();
    order
        .into_iter()
        .map(|n| fg.graph().node(n).op.describe())
        .collect()
}

/// Canonicalizes `case`, checks its values, and returns its node count.
fn canonical_size(case: &Case, args: &[Tensor]) -> (usize, Vec<String>) {
    let fg = check(case, &["canonicalize"], args, 1e-12);
    (fg.num_apply_nodes(), ops(&fg))
}

// PyTensor 3.0.7's canonicalize leaves 31, 20 and 43 nodes in these graphs
// (its `mean` of the MLP reads the shape as `Squeeze(Shape)`). The rest of
// the difference here is `DimShuffle` work other families do: merging
// `Squeeze(ExpandDims(sum))` and lifting `ExpandDims` above elemwise ops
// (`local_dimshuffle_lift`), which lets a `fill` sink further.

#[test]
fn logistic_regression_gradient_collapses() {
    let (case, args) = logistic_regression();
    let before = case.fgraph().num_apply_nodes();
    let (after, names) = canonical_size(&case, &args);
    assert!(after <= 30, "{before} -> {after}: {names:?}");
    assert!(
        !names.iter().any(|n| n == "Neg" || n == "Second"),
        "{names:?}"
    );
}

#[test]
fn normal_log_density_gradient_collapses() {
    let (case, args) = normal_logp();
    let (after, names) = canonical_size(&case, &args);
    assert!(after <= 28, "{after}: {names:?}");
    assert!(!names.iter().any(|n| n == "Neg"), "{names:?}");
}

#[test]
fn mlp_training_step_collapses() {
    let (case, args) = mlp_step();
    let (after, names) = canonical_size(&case, &args);
    assert!(after <= 48, "{after}: {names:?}");
    let muls_by_minus_one = names.iter().filter(|n| *n == "Neg").count();
    assert_eq!(muls_by_minus_one, 0, "{names:?}");
}
