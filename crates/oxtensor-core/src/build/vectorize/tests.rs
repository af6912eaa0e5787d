//! `vectorize_graph`: which op each rule gives, and values against the
//! unbatched graph run per batch entry.

use super::*;
use crate::build;
use crate::dtype::DType;
use crate::graph::testing::run_graph;
use crate::ops::blockwise::Blockwise;
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::linalg::det::Det;
use crate::ops::make_vector::MakeVector;
use crate::ops::reduce::CAReduce;
use crate::ops::softmax::Softmax;
use crate::ops::specify_shape::SpecifyShape;
use crate::ops::Op;
use crate::tensor::Tensor;
use crate::types::TensorType;
use std::sync::Arc;

fn input(g: &mut Graph, ndim: usize, name: &str) -> VarId {
    g.input(TensorType::with_ndim(DType::Float64, ndim), Some(name))
}

fn op_of(g: &Graph, v: VarId) -> &dyn Op {
    g.node(g.var(v).owner().unwrap()).op.as_ref()
}

fn run(g: &Graph, ins: &[VarId], out: VarId, values: Vec<Tensor>) -> Tensor {
    let out = run_graph(g, ins, &[out], values);
    crate::kernels::copy::to_contiguous(out[0].tensor().unwrap()).unwrap()
}

#[test]
fn elemwise_and_reduction_keep_their_class() {
    let mut g = Graph::new();
    let x = input(&mut g, 1, "x");
    let e = build::exp(&mut g, x).unwrap();
    let y = build::sum(&mut g, e, None).unwrap();
    let out = build::true_div(&mut g, e, y).unwrap();
    let bx = input(&mut g, 2, "bx");
    let [new] = vectorize_graph(&mut g, &[out], &[(x, bx)], None).unwrap()[..] else {
        panic!()
    };
    assert_eq!(g.var(new).ty.as_tensor().unwrap().ndim(), 2);
    let sum_node = g.node(g.var(new).owner().unwrap()).inputs[1];
    let sum_node = g.node(g.var(sum_node).owner().unwrap()).inputs[0];
    let r = op_of(&g, sum_node)
        .as_any()
        .downcast_ref::<CAReduce>()
        .unwrap();
    assert_eq!(r.axis, Some(vec![1]));
    let xs = Tensor::from_vec(vec![2, 3], vec![0.0, 1.0, 2.0, 2.0, 1.0, 0.0]).unwrap();
    let got = run(&g, &[bx], new, vec![xs]);
    let row = |r: [f64; 3]| {
        let s: f64 = r.iter().map(|v| v.exp()).sum();
        r.map(|v| v.exp() / s)
    };
    let want: Vec<f64> = [row([0.0, 1.0, 2.0]), row([2.0, 1.0, 0.0])].concat();
    for (a, b) in got.as_slice::<f64>().unwrap().iter().zip(want) {
        assert!((a - b).abs() < 1e-12, "{a} {b}");
    }
}

#[test]
fn dimshuffle_and_softmax_shift_their_axes() {
    let mut g = Graph::new();
    let x = input(&mut g, 2, "x");
    let t = build::dimshuffle(&mut g, x, vec![Some(1), None, Some(0)]).unwrap();
    let s = g
        .apply_out(
            Arc::new(
                Softmax::new(crate::kernels::softmax::SoftmaxKind::Softmax, Some(-1), 3).unwrap(),
            ),
            &[t],
        )
        .unwrap();
    let bx = input(&mut g, 4, "bx");
    let new = vectorize_graph(&mut g, &[s], &[(x, bx)], None).unwrap()[0];
    let sm = op_of(&g, new).as_any().downcast_ref::<Softmax>().unwrap();
    assert_eq!(sm.axis, Some(vec![4]));
    let ds = g.node(g.var(new).owner().unwrap()).inputs[0];
    let d = op_of(&g, ds).as_any().downcast_ref::<DimShuffle>().unwrap();
    assert_eq!(d.new_order, vec![Some(0), Some(1), Some(3), None, Some(2)]);
}

#[test]
fn softmax_over_all_elements_keeps_its_class_over_the_core_axes() {
    let mut g = Graph::new();
    let x = input(&mut g, 2, "x");
    let kind = crate::kernels::softmax::SoftmaxKind::LogSoftmax;
    let op = Arc::new(Softmax::new(kind, None, 2).unwrap());
    let s = g.apply_out(op, &[x]).unwrap();
    let bx = input(&mut g, 3, "bx");
    let new = vectorize_graph(&mut g, &[s], &[(x, bx)], None).unwrap()[0];
    let sm = op_of(&g, new).as_any().downcast_ref::<Softmax>().unwrap();
    assert_eq!(sm.axis, Some(vec![1, 2]));
    assert_eq!(sm.kind, kind);
}

#[test]
fn other_ops_become_blockwise() {
    let mut g = Graph::new();
    let x = input(&mut g, 2, "x");
    let d = g.apply_out(Arc::new(Det), &[x]).unwrap();
    let bx = input(&mut g, 3, "bx");
    let new = vectorize_graph(&mut g, &[d], &[(x, bx)], None).unwrap()[0];
    assert_eq!(op_of(&g, new).describe(), "Blockwise{Det, (m,m)->()}");
    assert!(op_of(&g, new).as_any().is::<Blockwise>());
    let xs = Tensor::from_vec(vec![2, 2, 2], vec![1.0, 2.0, 3.0, 4.0, 2.0, 0.0, 0.0, 2.0]).unwrap();
    let got = run(&g, &[bx], new, vec![xs]);
    let got = got.as_slice::<f64>().unwrap();
    assert!(
        (got[0] + 2.0).abs() < 1e-12 && (got[1] - 4.0).abs() < 1e-12,
        "{got:?}"
    );
}

#[test]
fn unbatched_parts_are_kept_and_bad_replacements_refused() {
    let mut g = Graph::new();
    let (x, y) = (input(&mut g, 1, "x"), input(&mut g, 1, "y"));
    let ey = build::exp(&mut g, y).unwrap();
    let out = build::add(&mut g, x, ey).unwrap();
    let bx = input(&mut g, 2, "bx");
    let new = vectorize_graph(&mut g, &[out, ey], &[(x, bx)], None).unwrap();
    assert_eq!(new[1], ey);
    let add_inputs = &g.node(g.var(new[0]).owner().unwrap()).inputs;
    assert_eq!(add_inputs[0], bx);
    let s = input(&mut g, 0, "s");
    let err = vectorize_graph(&mut g, &[out], &[(x, s)], None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("has fewer dims (0) than it (1)"), "{err}");
}

#[test]
fn subtensor_of_a_batched_tensor_gets_full_slices() {
    use crate::ops::subtensor::Subtensor;
    use crate::tensor::index::IdxEntry;
    let mut g = Graph::new();
    let x = input(&mut g, 2, "x");
    let i = g.input(TensorType::scalar(DType::Int64), Some("i"));
    let op = Subtensor::new(vec![IdxEntry::FULL, IdxEntry::Index(0)]).unwrap();
    let y = g.apply_out(Arc::new(op), &[x, i]).unwrap();
    let bx = input(&mut g, 3, "bx");
    let new = vectorize_graph(&mut g, &[y], &[(x, bx)], None).unwrap()[0];
    let s = op_of(&g, new).as_any().downcast_ref::<Subtensor>().unwrap();
    assert_eq!(
        s.idx_list,
        vec![IdxEntry::FULL, IdxEntry::FULL, IdxEntry::Index(0)]
    );
    let xs = Tensor::from_vec(vec![2, 2, 3], (0..12).map(f64::from).collect()).unwrap();
    let got = run(&g, &[bx, i], new, vec![xs, Tensor::scalar(2i64)]);
    assert_eq!(got.as_slice::<f64>().unwrap(), &[2.0, 5.0, 8.0, 11.0]);
}

#[test]
fn advanced_subtensor_of_a_batched_tensor_keeps_adjacent_arrays() {
    use crate::ops::advanced_subtensor::AdvancedSubtensor;
    use crate::ops::blockwise::Blockwise;
    use crate::tensor::index::IdxEntry;
    let mut g = Graph::new();
    let x = input(&mut g, 2, "x");
    let v = g.input(TensorType::with_ndim(DType::Int64, 1), Some("v"));
    let full = IdxEntry::FULL;
    let adjacent = AdvancedSubtensor::new(vec![full, IdxEntry::Index(0)]).unwrap();
    let y = g.apply_out(Arc::new(adjacent), &[x, v]).unwrap();
    let bx = input(&mut g, 3, "bx");
    let new = vectorize_graph(&mut g, &[y], &[(x, bx)], None).unwrap()[0];
    let s = op_of(&g, new)
        .as_any()
        .downcast_ref::<AdvancedSubtensor>()
        .unwrap();
    assert_eq!(s.idx_list, vec![full, full, IdxEntry::Index(0)]);
    // x[:, 2] of each batch entry: [[2, 5], [8, 11]] gathered by v = [2, 0].
    let xs = Tensor::from_vec(vec![2, 2, 3], (0..12).map(f64::from).collect()).unwrap();
    let vs = Tensor::from_vec(vec![2], vec![2i64, 0]).unwrap();
    let got = run(&g, &[bx, v], new, vec![xs, vs]);
    assert_eq!(
        got.as_slice::<f64>().unwrap(),
        &[2.0, 0.0, 5.0, 3.0, 8.0, 6.0, 11.0, 9.0]
    );
    // Separated arrays move to the front in NumPy: a Blockwise keeps them per batch.
    let x3 = input(&mut g, 3, "x3");
    let separated = AdvancedSubtensor::new(vec![IdxEntry::Index(0), full, IdxEntry::Index(1)]);
    let y = g
        .apply_out(Arc::new(separated.unwrap()), &[x3, v, v])
        .unwrap();
    let bx3 = input(&mut g, 4, "bx3");
    let new = vectorize_graph(&mut g, &[y], &[(x3, bx3)], None).unwrap()[0];
    assert!(op_of(&g, new).as_any().is::<Blockwise>());
}

#[test]
fn shape_of_a_batched_tensor_is_its_core_shape_broadcast_over_the_batch() {
    let mut g = Graph::new();
    let x = input(&mut g, 2, "x");
    let s = build::shape(&mut g, x).unwrap();
    let bx = input(&mut g, 4, "bx");
    let [new] = vectorize_graph(&mut g, &[s], &[(x, bx)], None).unwrap()[..] else {
        panic!()
    };
    assert_eq!(op_of(&g, new).name(), "Alloc");
    let xs = Tensor::from_vec(vec![4, 6, 5, 3], vec![0.0; 360]).unwrap();
    let got = run(&g, &[bx], new, vec![xs]);
    assert_eq!(got.shape(), &[4, 6, 2]);
    let want: Vec<i64> = [5, 3].repeat(24);
    assert_eq!(got.as_slice::<i64>().unwrap(), &want[..]);
}

#[test]
fn reshape_keeps_the_batch_lengths_in_front() {
    let mut g = Graph::new();
    let v = input(&mut g, 1, "v");
    let minus_one = build::int_constant(&mut g, -1).unwrap();
    let three = build::int_constant(&mut g, 3).unwrap();
    let shape = g
        .apply_out(
            Arc::new(MakeVector {
                dtype: DType::Int64,
            }),
            &[minus_one, three],
        )
        .unwrap();
    let out = build::reshape(&mut g, v, shape).unwrap();
    let m = input(&mut g, 2, "m");
    let [new] = vectorize_graph(&mut g, &[out], &[(v, m)], None).unwrap()[..] else {
        panic!()
    };
    assert_eq!(op_of(&g, new).describe(), "Reshape{3}");
    let xs = Tensor::from_vec(vec![2, 6], (0..12).map(f64::from).collect()).unwrap();
    assert_eq!(run(&g, &[m], new, vec![xs]).shape(), &[2, 2, 3]);
    // A new shape must have the old length, or the old one plus the batch's.
    let wrong = g
        .apply_out(
            Arc::new(MakeVector {
                dtype: DType::Int64,
            }),
            &[three, three, three],
        )
        .unwrap();
    let err = vectorize_graph(&mut g, &[out], &[(shape, wrong)], None).unwrap_err();
    assert!(err.to_string().contains("Invalid shape length"), "{err}");
}

#[test]
fn specify_shape_leaves_the_batch_lengths_unspecified() {
    let mut g = Graph::new();
    let x = input(&mut g, 2, "x");
    let two = build::int_constant(&mut g, 2).unwrap();
    let minus_one = build::int_constant(&mut g, -1).unwrap();
    let out =
        crate::ops::known::apply_out(&mut g, Arc::new(SpecifyShape), &[x, two, minus_one]).unwrap();
    let bx = input(&mut g, 3, "bx");
    let [new] = vectorize_graph(&mut g, &[out], &[(x, bx)], None).unwrap()[..] else {
        panic!()
    };
    let ty = g.var(new).ty.as_tensor().unwrap().clone();
    assert_eq!(ty.shape[..], [None, Some(2), None]);
    let lengths = TensorType::new(DType::Int64, [None]).unwrap();
    let batched = g.input(lengths, Some("n"));
    let err = vectorize_graph(&mut g, &[out], &[(two, batched)], None).unwrap_err();
    assert!(
        matches!(err, crate::error::Error::NotImplemented(_)),
        "{err}"
    );
}

#[test]
fn shape_i_reads_the_batched_core_axis() {
    let mut g = Graph::new();
    let x = input(&mut g, 1, "x");
    let n = g
        .apply_out(Arc::new(crate::ops::shape::ShapeI { i: 0 }), &[x])
        .unwrap();
    let bx = input(&mut g, 3, "bx");
    let [new] = vectorize_graph(&mut g, &[n], &[(x, bx)], None).unwrap()[..] else {
        panic!()
    };
    let op = op_of(&g, new)
        .as_any()
        .downcast_ref::<crate::ops::shape::ShapeI>();
    assert_eq!(op.map(|s| s.i), Some(2));
    assert_eq!(g.var(new).ty.as_tensor().unwrap().ndim(), 0);
}
