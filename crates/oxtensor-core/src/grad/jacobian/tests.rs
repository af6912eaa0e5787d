//! Jacobians and Hessians of small graphs against their analytic values,
//! their shapes without running the loop, and the errors.

use super::*;
use crate::compile::{compile, Compiled, FunctionInput, FunctionSpec, Mode};
use crate::error::Error;
use crate::graph::traversal::toposort;
use crate::value::Value;

fn vector(g: &mut Graph, dtype: DType, name: &str) -> VarId {
    g.input(TensorType::with_ndim(dtype, 1), Some(name))
}

fn compiled(g: &Graph, inputs: &[VarId], outputs: &[VarId], mode: &Mode) -> Compiled {
    let spec = FunctionSpec {
        inputs: inputs.iter().map(|&v| FunctionInput::new(v)).collect(),
        outputs: outputs.iter().map(|&v| (v, false)).collect(),
        ..FunctionSpec::default()
    };
    compile(g.clone(), spec, mode).unwrap()
}

fn args(values: &[Vec<f64>]) -> Vec<Value> {
    values
        .iter()
        .map(|v| Tensor::from_vec(vec![v.len()], v.clone()).unwrap().into())
        .collect()
}

/// Compiles `outputs` in `mode` and runs it; each output as (shape, f64s).
fn run_in(
    g: &Graph,
    inputs: &[VarId],
    outputs: &[VarId],
    values: &[Vec<f64>],
    mode: &Mode,
) -> Vec<(Vec<usize>, Vec<f64>)> {
    compiled(g, inputs, outputs, mode)
        .program
        .run(args(values))
        .unwrap()
        .iter()
        .map(|v| {
            let t =
                crate::kernels::elemwise::cast::cast(v.tensor().unwrap(), DType::Float64).unwrap();
            (t.shape().to_vec(), t.as_slice::<f64>().unwrap().to_vec())
        })
        .collect()
}

fn run(g: &Graph, inputs: &[VarId], outputs: &[VarId], values: &[Vec<f64>]) -> Vec<Vec<f64>> {
    run_in(g, inputs, outputs, values, &Mode::fast_run())
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

fn two_vectors(g: &mut Graph, a: &str, b: &str) -> (VarId, VarId) {
    (vector(g, DType::Float64, a), vector(g, DType::Float64, b))
}

fn diag(d: &[f64]) -> Vec<f64> {
    let n = d.len();
    (0..n * n)
        .map(|k| if k / n == k % n { d[k / n] } else { 0.0 })
        .collect()
}

/// The Jacobian of `y` with respect to `x` alone (defaults otherwise).
fn jacobian_of(g: &mut Graph, y: VarId, x: VarId) -> VarId {
    jacobian(g, &JacobianRequest::new(y, &[x]), None)
        .unwrap()
        .grads[0]
        .unwrap()
}

/// The Hessian of `cost` with respect to `x` alone (defaults otherwise).
fn hessian_of(g: &mut Graph, cost: VarId, x: VarId) -> VarId {
    hessian(g, &JacobianRequest::new(cost, &[x]), None)
        .unwrap()
        .grads[0]
        .unwrap()
}

#[test]
fn jacobian_of_a_product_with_two_wrt() {
    let mut g = Graph::new();
    let (a, x) = two_vectors(&mut g, "a", "x");
    let ax = build::mul(&mut g, a, x).unwrap();
    let y = build::exp(&mut g, ax).unwrap();
    let r = jacobian(&mut g, &JacobianRequest::new(y, &[a, x]), None).unwrap();
    let (ja, jx) = (r.grads[0].unwrap(), r.grads[1].unwrap());
    assert_eq!(g.var(ja).ty.expect_tensor("").unwrap().ndim(), 2);
    let (av, xv) = (vec![0.5, -1.0, 2.0], vec![1.5, 0.25, -0.5]);
    let e: Vec<f64> = av
        .iter()
        .zip(&xv)
        .map(|(a, x): (&f64, &f64)| (a * x).exp())
        .collect();
    let want_a: Vec<f64> = e.iter().zip(&xv).map(|(e, x)| e * x).collect();
    let want_x: Vec<f64> = e.iter().zip(&av).map(|(e, a)| e * a).collect();
    let got = run(&g, &[a, x], &[ja, jx], &[av, xv]);
    for (got, want) in got.iter().zip([diag(&want_a), diag(&want_x)]) {
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12, "{got:?} != {want:?}");
        }
    }
}

#[test]
fn jacobian_of_a_matrix_product_and_constants_stay_inside() {
    let mut g = Graph::new();
    let x = vector(&mut g, DType::Float64, "x");
    let m = Tensor::from_vec(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let m = g.tensor_constant(m);
    let y = build::dot(&mut g, m, x).unwrap();
    let j = jacobian_of(&mut g, y, x);
    let node = g.var(j).owner().unwrap();
    assert_eq!(g.node(node).inputs, vec![x], "the constant is not an input");
    let got = run_in(
        &g,
        &[x],
        &[j],
        &[vec![1.0, 1.0, 1.0]],
        &Mode::fast_compile(),
    );
    assert_eq!(got[0].0, vec![2, 3]);
    assert_eq!(got[0].1, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
}

#[test]
fn hessian_of_a_sum_of_cubes_and_a_scalar_jacobian_is_the_gradient() {
    let mut g = Graph::new();
    let x = vector(&mut g, DType::Float64, "x");
    let x2 = build::mul(&mut g, x, x).unwrap();
    let x3 = build::mul(&mut g, x2, x).unwrap();
    let cost = build::sum(&mut g, x3, None).unwrap();
    let h = hessian_of(&mut g, cost, x);
    let j = jacobian_of(&mut g, cost, x);
    assert!(g
        .var(j)
        .owner()
        .is_some_and(|n| g.node(n).op.name() != "Jacobian"));
    let xv = vec![1.0, -2.0, 0.5];
    let got = run(&g, &[x], &[h, j], std::slice::from_ref(&xv));
    assert_eq!(
        got[0],
        diag(&xv.iter().map(|x| 6.0 * x).collect::<Vec<_>>())
    );
    assert_eq!(got[1], xv.iter().map(|x| 3.0 * x * x).collect::<Vec<_>>());
}

#[test]
fn dtypes_follow_the_wrt_and_an_empty_expression_gives_an_empty_jacobian() {
    let mut g = Graph::new();
    let x = vector(&mut g, DType::Float32, "x");
    let y = build::mul(&mut g, x, x).unwrap();
    let j = jacobian_of(&mut g, y, x);
    assert_eq!(g.var(j).ty.expect_tensor("").unwrap().dtype, DType::Float32);
    let got = run_in(&g, &[x], &[j], &[vec![]], &Mode::fast_run());
    assert_eq!(got[0].0, vec![0, 0]);
    let i = vector(&mut g, DType::Int64, "i");
    let fi = build::cast(&mut g, i, DType::Float64).unwrap();
    let req = JacobianRequest {
        disconnected_inputs: OnDisconnected::Ignore,
        ..JacobianRequest::new(fi, &[i])
    };
    let ji = jacobian(&mut g, &req, None).unwrap().grads[0].unwrap();
    assert_eq!(
        g.var(ji).ty.expect_tensor("").unwrap().dtype,
        DType::Float64
    );
}

#[test]
fn the_shape_is_inferred_without_running_the_loop() {
    let mut g = Graph::new();
    let x = vector(&mut g, DType::Float64, "x");
    let y = build::exp(&mut g, x).unwrap();
    let j = jacobian_of(&mut g, y, x);
    let s = build::shape(&mut g, j).unwrap();
    let c = compiled(&g, &[x], &[s], &Mode::fast_run());
    let fg = &c.built.fgraph;
    let ops: Vec<String> = toposort(fg.graph(), fg.outputs(), &[])
        .unwrap()
        .iter()
        .map(|&n| fg.graph().node(n).op.name().to_owned())
        .collect();
    assert!(!ops.iter().any(|o| o == "Jacobian"), "{ops:?}");
    let out = c.program.run(args(&[vec![0.0; 4]])).unwrap();
    assert_eq!(out[0].tensor().unwrap().as_slice::<i64>().unwrap(), &[4, 4]);
}

#[test]
fn errors_name_what_is_wrong() {
    let mut g = Graph::new();
    let (x, z) = two_vectors(&mut g, "x", "z");
    let y = build::exp(&mut g, x).unwrap();
    let err = jacobian(&mut g, &JacobianRequest::new(y, &[z]), None).unwrap_err();
    assert!(matches!(err, Error::Disconnected(_)), "{err:?}");
    let j = jacobian_of(&mut g, y, x);
    let op = g.node(g.var(j).owner().unwrap()).op.clone();
    let m = g.input(TensorType::with_ndim(DType::Float64, 2), Some("m"));
    let err = g.apply(op.clone(), &[m]).unwrap_err().to_string();
    assert!(
        err.contains("Jacobian input 0 (x) must be of type"),
        "{err}"
    );
    let err = g.apply(op, &[x, x]).unwrap_err().to_string();
    assert!(err.contains("takes 1 inputs"), "{err}");
    let cost = build::sum(&mut g, j, None).unwrap();
    let err = crate::grad::grad(&mut g, &GradRequest::new(cost, &[x]), None).unwrap_err();
    assert!(
        err.to_string()
            .contains("Jacobian of a Jacobian needs scan"),
        "{err}"
    );
}

#[test]
fn a_jacobian_runs_inside_another_and_from_several_threads() {
    let mut g = Graph::new();
    let (x, z) = two_vectors(&mut g, "x", "z");
    let x2 = build::mul(&mut g, x, x).unwrap();
    let jx = jacobian_of(&mut g, x2, x);
    let d = build::dot(&mut g, jx, z).unwrap();
    let y = build::mul(&mut g, d, z).unwrap();
    // Outer loop over `y = (diag(2x) z) * z`, whose graph holds the inner Jacobian.
    let jz = jacobian_of(&mut g, y, z);
    let program = compiled(&g, &[x, z], &[jz], &Mode::fast_run()).program;
    let (xv, zv) = ([1.0, -2.0], [3.0, 0.5]);
    let want = diag(&[4.0 * xv[0] * zv[0], 4.0 * xv[1] * zv[1]]);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let args = args(&[xv.to_vec(), zv.to_vec()]);
                for _ in 0..20 {
                    let out = program.run(&args).unwrap();
                    assert_eq!(
                        out[0].tensor().unwrap().as_slice::<f64>().unwrap(),
                        &want[..]
                    );
                }
            });
        }
    });
}
