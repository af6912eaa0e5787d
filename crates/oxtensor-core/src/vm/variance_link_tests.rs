use super::super::program::Program;
use crate::build;
use crate::dtype::DType;
use crate::graph::{FunctionGraph, Graph, VarId};
use crate::ops::scalar::ScalarKind;
use crate::tensor::Tensor;
use crate::types::TensorType;
use crate::value::Value;

/// `sum(sqr(x - expand(sum(x) / n)))` over `axes` (all when `None`) of a
/// 2-d `x`, `n` a scalar input; the mean is also an output when `expose`.
fn graph(dtype: DType, axes: Option<&[i64]>, expose: bool) -> FunctionGraph {
    let mut g = Graph::new();
    let x = g.input(TensorType::with_ndim(dtype, 2), Some("x"));
    let n = g.input(TensorType::with_ndim(dtype, 0), Some("n"));
    let s = build::sum(&mut g, x, axes).unwrap();
    let mean = build::elemwise(&mut g, ScalarKind::TrueDiv, &[s, n]).unwrap();
    let removed: Vec<usize> = match axes {
        Some(a) => a.iter().map(|&i| i as usize).collect(),
        None => vec![0, 1],
    };
    let order = build::reinsert_axes(2, &removed);
    let centre = build::dimshuffle(&mut g, mean, order).unwrap();
    let d = build::elemwise(&mut g, ScalarKind::Sub, &[x, centre]).unwrap();
    let q = build::elemwise(&mut g, ScalarKind::Sqr, &[d]).unwrap();
    let ss = build::sum(&mut g, q, axes).unwrap();
    let outs: Vec<VarId> = if expose { vec![ss, mean] } else { vec![ss] };
    FunctionGraph::new(g, vec![x, n], outs).unwrap()
}

fn link(fg: &FunctionGraph, fuse: bool) -> Program {
    super::super::program::link_native(fg, fuse)
}

fn floats(v: &Value) -> Vec<f64> {
    let t = crate::kernels::cast::cast(v.tensor().unwrap(), DType::Float64).unwrap();
    t.as_slice::<f64>().unwrap().to_vec()
}

/// Runs `fg` linked with and without the rewrite on `x` and divisor `n`:
/// the rewritten run's first output and its number of steps, after
/// checking both runs agree.
fn both(fg: &FunctionGraph, x: &Tensor, n: f64) -> (Vec<f64>, usize) {
    let n = crate::kernels::cast::cast(&Tensor::scalar(n), x.dtype()).unwrap();
    let args = [Value::from(x.clone()), Value::from(n)];
    let fast = link(fg, true);
    let a = floats(&fast.run(&args).unwrap()[0]);
    let b = floats(&link(fg, false).run(&args).unwrap()[0]);
    let rtol = if x.dtype() == DType::Float32 {
        1e-5
    } else {
        1e-12
    };
    for (p, q) in a.iter().zip(&b) {
        assert!(
            (p - q).abs() <= rtol * q.abs() || (p.is_nan() && q.is_nan()),
            "{p} vs {q}"
        );
    }
    (a, fast.steps.len())
}

fn matrix(rows: usize, cols: usize, dtype: DType) -> Tensor {
    let v: Vec<f64> = (0..rows * cols)
        .map(|i| ((i * 37) % 101) as f64 * 0.25 + 1e3)
        .collect();
    crate::kernels::cast::cast(&Tensor::from_vec(vec![rows, cols], v).unwrap(), dtype).unwrap()
}

#[test]
fn centred_sums_run_as_one_step_with_the_two_pass_answers() {
    for dtype in [DType::Float64, DType::Float32] {
        let x = matrix(67, 53, dtype);
        for (axes, count) in [
            (Some(&[0i64][..]), 67.0),
            (Some(&[1][..]), 53.0),
            (None, 3551.0),
        ] {
            let (_, steps) = both(&graph(dtype, axes, false), &x, count);
            // The divisor's `ExpandDims` (none for a 0-d sum), then one
            // merged step.
            let want = if axes.is_some() { 2 } else { 1 };
            assert_eq!(steps, want, "{dtype} {axes:?}: one merged step");
        }
    }
}

#[test]
fn calls_the_kernel_does_not_take_run_the_nodes() {
    let fg = graph(DType::Float64, Some(&[0]), false);
    // A small call: the very bits of the unfused run.
    let x = matrix(40, 50, DType::Float64);
    let n = Value::from(Tensor::scalar(40.0f64));
    let args = [Value::from(x.clone()), n];
    let fast = floats(&link(&fg, true).run(&args).unwrap()[0]);
    assert_eq!(fast, floats(&link(&fg, false).run(&args).unwrap()[0]));
    // A divisor that is not the count: the nodes' own answer.
    let (got, _) = both(&fg, &matrix(4, 3, DType::Float64), 7.0);
    assert_eq!(got.len(), 3);
    // A transposed (not C-contiguous) input, and an empty one.
    let t = matrix(6, 5, DType::Float64);
    let transposed = t.view(&[5, 6], &[8, 40], 0).unwrap();
    both(&fg, &transposed, 5.0);
    let (got, _) = both(&fg, &Tensor::zeros(DType::Float64, &[0, 3]).unwrap(), 0.0);
    assert_eq!(got, vec![0.0; 3]);
}

#[test]
fn a_mean_read_elsewhere_keeps_the_nodes_apart() {
    let fg = graph(DType::Float64, Some(&[1]), true);
    let (_, steps) = both(&fg, &matrix(3, 4, DType::Float64), 4.0);
    assert!(steps > 1, "the mean is an output");
}
