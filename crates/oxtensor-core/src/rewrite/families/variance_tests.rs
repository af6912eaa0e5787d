use super::super::testing::{check, printed, Case};
use crate::build;
use crate::dtype::DType;
use crate::graph::testing::graph_with;
use crate::graph::VarId;
use crate::ops::shape::ShapeI;
use crate::scalar::ScalarKind;
use crate::tensor::Tensor;
use crate::types::TensorType;
use std::sync::Arc;

/// How the mean of a 2-d `x` is divided.
#[derive(Clone, Copy)]
enum Divisor {
    /// By the reduced axes' lengths, one `Shape_i` each (what `mean` builds).
    Shapes,
    /// By a scalar input `n`.
    Input,
}

/// `sum(sqr(x - mean(x, axes, keepdims)), axes)` of a 2-d `x` (all axes
/// when `None`); the mean also an output when `expose`.
fn case(dtype: DType, axes: Option<&[i64]>, divisor: Divisor, expose: bool) -> Case {
    let (mut g, [x]) = graph_with([("x", dtype, 2)]);
    let removed: Vec<usize> = axes.map_or(vec![0, 1], |a| a.iter().map(|&i| i as usize).collect());
    let mut inputs = vec![x];
    let mut mean = build::sum(&mut g, x, axes).unwrap();
    let divisors: Vec<VarId> = match divisor {
        Divisor::Shapes => removed
            .iter()
            .map(|&i| {
                let len = g.apply_out(Arc::new(ShapeI { i }), &[x]).unwrap();
                build::cast(&mut g, len, dtype).unwrap()
            })
            .collect(),
        Divisor::Input => {
            let n = g.input(TensorType::with_ndim(dtype, 0), Some("n"));
            inputs.push(n);
            vec![n]
        }
    };
    for d in divisors {
        mean = build::elemwise(&mut g, ScalarKind::TrueDiv, &[mean, d]).unwrap();
    }
    let centre = build::dimshuffle(&mut g, mean, build::reinsert_axes(2, &removed)).unwrap();
    let d = build::sub(&mut g, x, centre).unwrap();
    let q = build::sqr(&mut g, d).unwrap();
    let ss = build::sum(&mut g, q, axes).unwrap();
    let outputs = if expose { vec![ss, mean] } else { vec![ss] };
    Case { g, inputs, outputs }
}

fn matrix(rows: usize, cols: usize, dtype: DType) -> Tensor {
    let v: Vec<f64> = (0..rows * cols)
        .map(|i| ((i * 37) % 101) as f64 * 0.25 + 1e3)
        .collect();
    crate::kernels::elemwise::cast::cast(&Tensor::from_vec(vec![rows, cols], v).unwrap(), dtype)
        .unwrap()
}

/// The kernel's tolerance against the two-pass chain (`kernels/reduce/variance.rs`:
/// as accurate as the two-pass formula).
fn rtol(dtype: DType) -> f64 {
    if dtype == DType::Float32 {
        1e-5
    } else {
        1e-12
    }
}

#[test]
fn var_s_sum_of_squared_deviations_is_one_op() {
    for dtype in [DType::Float64, DType::Float32] {
        let x = matrix(67, 53, dtype);
        for (axes, head) in [
            (
                Some(&[0i64][..]),
                "CentredSquares{axis=0} [id A]\n ├─ x [id B]\n └─ Cast",
            ),
            (
                Some(&[1][..]),
                "CentredSquares{axis=1} [id A]\n ├─ x [id B]\n └─ Cast",
            ),
            (
                None,
                "CentredSquares{axes=None} [id A]\n ├─ x [id B]\n ├─ Cast",
            ),
        ] {
            let c = case(dtype, axes, Divisor::Shapes, false);
            let fg = check(&c, &["specialize"], std::slice::from_ref(&x), rtol(dtype));
            let p = printed(&fg);
            assert!(p.starts_with(head), "{dtype} {axes:?}:\n{p}");
            assert!(!p.contains("Sqr"), "{p}");
        }
    }
    // Through every phase of FAST_RUN.
    let c = case(DType::Float64, Some(&[1]), Divisor::Shapes, false);
    let fg = check(&c, &["fast_run"], &[matrix(67, 53, DType::Float64)], 1e-12);
    let p = printed(&fg);
    assert!(p.starts_with("CentredSquares"), "{p}");
}

#[test]
fn calls_the_kernel_does_not_take_give_the_chain_s_bits() {
    let c = case(DType::Float64, Some(&[0]), Divisor::Input, false);
    // Small inputs, a divisor that is not the count, a transposed input and
    // an empty one: exactly the unrewritten graph's values.
    let big = matrix(80, 60, DType::Float64);
    let transposed = |rows: usize, cols: usize| {
        let t = matrix(cols, rows, DType::Float64);
        t.view(&[rows, cols], &[8, 8 * rows as isize], 0).unwrap()
    };
    for (x, n) in [
        (matrix(40, 50, DType::Float64), 40.0),
        (big.clone(), 7.0),
        (transposed(6, 5), 6.0),
        (Tensor::zeros(DType::Float64, &[0, 3]).unwrap(), 0.0),
    ] {
        let fg = check(&c, &["specialize"], &[x, Tensor::scalar(n)], 0.0);
        assert!(printed(&fg).starts_with("CentredSquares{axis=0}"));
    }
    // Large inputs divided by their count: the kernel, within its tolerance.
    check(&c, &["specialize"], &[big, Tensor::scalar(80.0)], 1e-12);
    check(
        &c,
        &["specialize"],
        &[transposed(80, 60), Tensor::scalar(80.0)],
        1e-12,
    );
    let c32 = case(DType::Float32, Some(&[1]), Divisor::Input, false);
    let x32 = matrix(10, 20, DType::Float32);
    check(&c32, &["specialize"], &[x32, Tensor::scalar(20.0f32)], 0.0);
}

#[test]
fn a_mean_read_elsewhere_or_integer_data_keeps_the_chain() {
    let c = case(DType::Float64, Some(&[1]), Divisor::Shapes, true);
    let fg = check(&c, &["specialize"], &[matrix(3, 4, DType::Float64)], 0.0);
    assert!(
        !printed(&fg).contains("CentredSquares"),
        "the mean is an output"
    );
    // Integer data: the mean is float64 and `x - mean` too, not x's dtype.
    let (mut g, [x]) = graph_with([("x", DType::Int32, 1)]);
    let s = build::sum(&mut g, x, None).unwrap();
    let n = build::scalar_constant(&mut g, DType::Float64, 3.0);
    let mean = build::true_div(&mut g, s, n).unwrap();
    let d = build::sub(&mut g, x, mean).unwrap();
    let q = build::sqr(&mut g, d).unwrap();
    let ss = build::sum(&mut g, q, None).unwrap();
    let c = Case::new(g, vec![x], vec![ss]);
    let x = Tensor::from_vec(vec![3], vec![1i32, 5, 9]).unwrap();
    let fg = check(&c, &["specialize"], &[x], 0.0);
    assert!(!printed(&fg).contains("CentredSquares"));
}
