//! `Blockwise` against loops over the batch: types, values, shapes, errors.

use super::*;
use crate::dtype::DType;
use crate::graph::testing::{graph_with, run_graph};
use crate::graph::FunctionGraph;
use crate::ops::blas::Dot;
use crate::ops::linalg::det::Det;
use crate::tensor::Tensor;
use crate::vm::Program;

fn ty(shape: &[Option<u64>]) -> Type {
    TensorType::new(DType::Float64, shape.iter().copied())
        .unwrap()
        .into()
}

fn matvec() -> Blockwise {
    Blockwise::new(Arc::new(Dot), Signature::parse("(m,n),(n)->(m)").unwrap()).unwrap()
}

fn run(g: &Graph, ins: &[VarId], outs: &[VarId], values: Vec<Tensor>) -> Vec<Tensor> {
    let out = run_graph(g, ins, outs, values);
    out.iter().map(|v| v.tensor().unwrap().clone()).collect()
}

fn values(t: &Tensor) -> Vec<f64> {
    crate::kernels::copy::to_contiguous(t)
        .unwrap()
        .as_slice::<f64>()
        .unwrap()
        .to_vec()
}

#[test]
fn names_and_identity() {
    let op = matvec();
    assert_eq!(op.describe(), "Blockwise{Dot, (m,n),(n)->(m)}");
    assert!(op.op_eq(&matvec()));
    assert_eq!(op.op_hash(), matvec().op_hash());
    let other = Blockwise::new(Arc::new(Dot), Signature::parse("(a,b),(b)->(a)").unwrap()).unwrap();
    assert!(!op.op_eq(&other));
    let err = Blockwise::new(Arc::new(matvec()), Signature::parse("()->()").unwrap()).unwrap_err();
    assert!(
        err.to_string().contains("cannot wrap another Blockwise"),
        "{err}"
    );
}

#[test]
fn output_types_broadcast_batch_dims() {
    let op = matvec();
    for (x, y, want) in [
        (
            vec![Some(5), Some(3), Some(4)],
            vec![Some(4)],
            vec![Some(5), Some(3)],
        ),
        (
            vec![Some(1), None, Some(4)],
            vec![Some(7), None],
            vec![Some(7), None],
        ),
        (
            vec![Some(2), Some(3), Some(4)],
            vec![None, Some(1), Some(4)],
            vec![None, Some(2), Some(3)],
        ),
    ] {
        let out = op.output_types(&[&ty(&x), &ty(&y)]).unwrap();
        assert_eq!(
            out[0].as_tensor().unwrap().shape.to_vec(),
            want,
            "{x:?} {y:?}"
        );
    }
}

#[test]
fn output_types_errors() {
    let op = matvec();
    let cases = [
        (
            vec![Some(2), Some(3), Some(4)],
            vec![Some(3), Some(4)],
            "Incompatible batch shapes",
        ),
        (
            vec![Some(3), Some(4)],
            vec![Some(5)],
            "core dim n is 4 in input 0 but 5 in input 1",
        ),
        (vec![Some(4)], vec![Some(4)], "fewer than its 2 core dims"),
    ];
    for (x, y, msg) in cases {
        let err = op
            .output_types(&[&ty(&x), &ty(&y)])
            .unwrap_err()
            .to_string();
        assert!(err.contains(msg), "{err}");
    }
    let err = op
        .output_types(&[&ty(&[None, None])])
        .unwrap_err()
        .to_string();
    assert!(err.contains("takes 2 inputs, got 1"), "{err}");
    let wrong = Blockwise::new(Arc::new(Dot), Signature::parse("(m,n),(n)->()").unwrap()).unwrap();
    let err = wrong
        .output_types(&[&ty(&[None, None]), &ty(&[None])])
        .unwrap_err();
    assert!(err.to_string().contains("the signature 0"), "{err}");
}

#[test]
fn perform_matches_a_loop_over_the_batch() {
    let (mut g, [x, y]) = graph_with([("x", DType::Float64, 3), ("y", DType::Float64, 1)]);
    let out = apply(&mut g, matvec(), &[x, y]).unwrap()[0];
    let xs: Vec<f64> = (0..2 * 3 * 4).map(f64::from).collect();
    let ys: Vec<f64> = (0..4).map(|i| f64::from(i) - 1.5).collect();
    let xv = Tensor::from_vec(vec![2, 3, 4], xs.clone()).unwrap();
    let yv = Tensor::from_vec(vec![4], ys.clone()).unwrap();
    let got = run(&g, &[x, y], &[out], vec![xv, yv]);
    assert_eq!(got[0].shape(), &[2, 3]);
    let want: Vec<f64> = xs
        .chunks(4)
        .map(|row| row.iter().zip(&ys).map(|(a, b)| a * b).sum())
        .collect();
    assert_eq!(values(&got[0]), want);
}

#[test]
fn perform_empty_batch_and_bad_batch() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 3)]);
    let d = apply(
        &mut g,
        Blockwise::new(Arc::new(Det), Signature::parse("(m,m)->()").unwrap()).unwrap(),
        &[x],
    )
    .unwrap()[0];
    let empty = Tensor::from_vec(vec![0, 2, 2], Vec::<f64>::new()).unwrap();
    assert_eq!(run(&g, &[x], &[d], vec![empty])[0].shape(), &[0]);
    let eye2 =
        Tensor::from_vec(vec![2, 2, 2], vec![1.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 3.0]).unwrap();
    assert_eq!(values(&run(&g, &[x], &[d], vec![eye2])[0]), vec![1.0, 6.0]);

    let y = g.input(TensorType::with_ndim(DType::Float64, 2), Some("y"));
    let out = apply(&mut g, matvec(), &[x, y]).unwrap()[0];
    let fg = FunctionGraph::new(g.clone(), vec![x, y], vec![out]).unwrap();
    let p = Program::link(&fg, Default::default(), &Default::default()).unwrap();
    let xv = Tensor::zeros(DType::Float64, &[2, 2, 2]).unwrap();
    let yv = Tensor::zeros(DType::Float64, &[3, 2]).unwrap();
    let err = p
        .run(vec![Value::from(xv), Value::from(yv)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("batch dims of the inputs do not match (only dims of static length 1 broadcast): shapes (2, 2, 2), (3, 2)"),
        "{err}"
    );
}

#[test]
fn infer_shape_uses_the_core_op() {
    let mut g = Graph::new();
    let x = g.input(ty(&[None, Some(3), Some(4)]), Some("x"));
    let y = g.input(ty(&[Some(4)]), Some("y"));
    let out = apply(&mut g, matvec(), &[x, y]).unwrap()[0];
    let node = g.var(out).owner().unwrap();
    let shapes = vec![
        crate::ops::infer_shape::shape_vars(&mut g, x).unwrap(),
        crate::ops::infer_shape::shape_vars(&mut g, y).unwrap(),
    ];
    let inferred = matvec()
        .infer_shape(&mut g, node, &shapes)
        .unwrap()
        .unwrap();
    assert_eq!(inferred[0].len(), 2);
    assert_eq!(inferred[0][0], shapes[0][0]);
}

#[test]
fn grad_matches_a_loop_over_the_batch() {
    // d/dx sum(x @ y) over the batch is y in every row; d/dy sums the rows
    // of every batch entry of x (y is shared by the batch).
    let (mut g, [x, y]) = graph_with([("x", DType::Float64, 3), ("y", DType::Float64, 1)]);
    let out = apply(&mut g, matvec(), &[x, y]).unwrap()[0];
    let cost = crate::build::sum(&mut g, out, None).unwrap();
    let req = crate::grad::GradRequest::new(cost, &[x, y]);
    let grads = crate::grad::grad(&mut g, &req, None).unwrap().grads;
    let [Some(gx), Some(gy)] = grads[..] else {
        panic!("{grads:?}")
    };
    let xs: Vec<f64> = (0..2 * 3 * 4).map(f64::from).collect();
    let ys = vec![1.0, -2.0, 0.5, 3.0];
    let xv = Tensor::from_vec(vec![2, 3, 4], xs.clone()).unwrap();
    let yv = Tensor::from_vec(vec![4], ys.clone()).unwrap();
    let got = run(&g, &[x, y], &[gx, gy], vec![xv, yv]);
    assert_eq!(got[0].shape(), &[2, 3, 4]);
    assert_eq!(values(&got[0]), ys.repeat(6));
    let want: Vec<f64> = (0..4).map(|k| xs.iter().skip(k).step_by(4).sum()).collect();
    assert_eq!(values(&got[1]), want);
}
