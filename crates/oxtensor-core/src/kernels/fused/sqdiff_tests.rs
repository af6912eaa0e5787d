use super::super::testing::{fused, link};
use super::*;
use crate::build;
use crate::dtype::DType;
use crate::graph::{FunctionGraph, Graph, VarId};
use crate::kernels::elemwise::cast::cast;
use crate::types::TensorType;
use crate::vm::Program;

/// `sum(f(x, r), axes)` for `x` of rank 2 and `r` of static shape
/// `r_ones` (which dimensions are 1), fused and unfused.
fn programs(
    dtype: DType,
    r_ones: [bool; 2],
    axes: Option<&[i64]>,
    f: fn(&mut Graph, VarId, VarId) -> VarId,
) -> (Program, Program) {
    let mut g = Graph::new();
    let x = g.input(TensorType::new(dtype, [None, None]).unwrap(), Some("x"));
    let r_shape = r_ones.map(|one| one.then_some(1));
    let r = g.input(TensorType::new(dtype, r_shape).unwrap(), Some("r"));
    let v = f(&mut g, x, r);
    let out = build::sum(&mut g, v, axes).unwrap();
    let fg = FunctionGraph::new(g, vec![x, r], vec![out]).unwrap();
    let f = fused(&fg);
    assert_eq!(f.num_apply_nodes(), 1, "one fused node");
    (link(&f), link(&fg))
}

fn sqr_sub(g: &mut Graph, x: VarId, r: VarId) -> VarId {
    let d = build::sub(g, x, r).unwrap();
    build::sqr(g, d).unwrap()
}

/// `rows x cols` values with a NaN and an infinity when there is room;
/// C-ordered, or the transpose of a C-ordered `cols x rows`.
fn matrix(dtype: DType, rows: usize, cols: usize, transposed: bool) -> Tensor {
    let n = rows * cols;
    let mut xs: Vec<f64> = (0..n)
        .map(|i| (i as f64 * 0.37).sin() * 3.0 + 2.0)
        .collect();
    if n > 40 {
        (xs[7], xs[n - 3]) = (f64::NAN, f64::INFINITY);
    }
    let shape = if transposed {
        [cols, rows]
    } else {
        [rows, cols]
    };
    let t = cast(&Tensor::from_vec(shape.to_vec(), xs).unwrap(), dtype).unwrap();
    if !transposed {
        return t;
    }
    let size = dtype.itemsize() as isize;
    t.view(&[rows, cols], &[size, size * rows as isize], 0)
        .unwrap()
}

fn floats(t: &Tensor) -> Vec<f64> {
    t.float_values().expect("float values")
}

/// Within summation error of the unfused run: NaN where it is NaN.
fn assert_close(a: &Tensor, b: &Tensor, rtol: f64, case: &str) {
    assert_eq!((a.dtype(), a.shape()), (b.dtype(), b.shape()), "{case}");
    for (i, (x, y)) in floats(a).into_iter().zip(floats(b)).enumerate() {
        let ok = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= rtol * y.abs();
        assert!(ok, "{case}: element {i}: {x} vs {y}");
    }
}

#[test]
fn squared_differences_match_unfused_runs() {
    let shapes = [
        (4000, 30),
        (30, 4000),
        (257, 301),
        (700, 10),
        (2, 2049),
        (5, 0),
    ];
    let axes: [Option<&[i64]>; 3] = [Some(&[0]), Some(&[1]), None];
    let leaves = [[true, false], [false, true], [true, true], [false, false]];
    for dtype in [DType::Float64, DType::Float32] {
        let rtol = if dtype == DType::Float64 { 1e-12 } else { 1e-5 };
        for (axes, r_ones) in axes.iter().flat_map(|a| leaves.map(|r| (*a, r))) {
            let (fused, plain) = programs(dtype, r_ones, axes, sqr_sub);
            for ((rows, cols), transposed) in shapes.iter().flat_map(|&s| [(s, false), (s, true)]) {
                let r_rows = if r_ones[0] { 1 } else { rows };
                let r_cols = if r_ones[1] { 1 } else { cols };
                let args = [
                    matrix(dtype, rows, cols, transposed).into(),
                    matrix(dtype, r_rows, r_cols, false).into(),
                ];
                let before = SQ_DIFF_RUNS.with(|c| c.get());
                let a = fused.run(&args).unwrap()[0].tensor().unwrap().clone();
                let ranges = SQ_DIFF_RUNS.with(|c| c.get()) - before;
                let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
                let case = format!("{dtype} {rows}x{cols} r {r_ones:?} {axes:?} T {transposed}");
                assert_close(&a, &b, rtol, &case);
                let large = rows * cols > super::super::walk::BLOCK;
                assert_eq!(ranges > 0, large, "{case}: ranges {ranges}");
            }
        }
    }
}

#[test]
fn only_the_exact_shape_takes_this_path() {
    fn sub_sqr_swapped(g: &mut Graph, x: VarId, r: VarId) -> VarId {
        let s = build::sqr(g, x).unwrap();
        build::sub(g, s, r).unwrap()
    }
    fn scaled(g: &mut Graph, x: VarId, r: VarId) -> VarId {
        let s = sqr_sub(g, x, r);
        build::mul(g, s, r).unwrap()
    }
    let args = [
        matrix(DType::Float64, 300, 300, false).into(),
        matrix(DType::Float64, 1, 300, false).into(),
    ];
    for f in [sub_sqr_swapped, scaled] {
        let (fused, plain) = programs(DType::Float64, [true, false], Some(&[0]), f);
        let before = SQ_DIFF_RUNS.with(|c| c.get());
        let a = fused.run(&args).unwrap()[0].tensor().unwrap().clone();
        assert_eq!(SQ_DIFF_RUNS.with(|c| c.get()), before);
        let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
        assert_close(&a, &b, 1e-12, "general path");
    }
}

#[test]
fn folds_and_adds_match_the_general_loops() {
    let xs: Vec<f64> = (0..37).map(|i| f64::from(i) * 0.5).collect();
    let ys: Vec<f64> = (0..37).map(|i| f64::from(i % 5)).collect();
    let squares: Vec<f64> = xs.iter().zip(&ys).map(|(a, b)| (a - b) * (a - b)).collect();
    let want: f64 = super::super::sum::fold_for_tests(&squares);
    let got: f64 = fold_sq(Src::Slice(&xs[..]), Src::Slice(&ys[..]), 37);
    assert_eq!(got.to_bits(), want.to_bits());
    let got: f64 = fold_sq(Src::Slice(&xs[..]), Src::One(2.0), 37);
    let want = xs.iter().map(|a| (a - 2.0) * (a - 2.0)).collect::<Vec<_>>();
    assert_eq!(
        got.to_bits(),
        super::super::sum::fold_for_tests(&want).to_bits()
    );
    let got: f64 = fold_sq(Src::One(3.0f32), Src::One(1.0), 20);
    assert_eq!(got, 80.0);
    let mut acc = vec![1.0f64; 37];
    add_sq(&mut acc, Src::One(1.0f32), Src::Slice(&[0.5f32; 37][..]));
    assert!(acc.iter().all(|&a| a == 1.25));
    let mut nan = xs.clone();
    nan[30] = f64::NAN;
    assert!(fold_sq::<f64, f64>(Src::Slice(&nan[..]), Src::One(0.0), 37).is_nan());
}
