use super::super::testing::{check, printed, Case};
use crate::build;
use crate::dtype::DType;
use crate::graph::testing::graph_with;
use crate::graph::{Graph, VarId};
use crate::scalar::ScalarKind;
use crate::tensor::Tensor;

/// `f(x, y)` of 1-d `x` and `y` of `dtype`, specialized and checked
/// against the plain graph (exactly: these rewrites change no value);
/// returns the printed form.
fn specialized(dtype: DType, f: impl Fn(&mut Graph, VarId, VarId) -> VarId) -> String {
    let (mut g, [x, y]) = graph_with([("x", dtype, 1), ("y", dtype, 1)]);
    let out = f(&mut g, x, y);
    let case = Case::new(g, vec![x, y], vec![out]);
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let vx = vec![1.5f64, -2.0, 0.0, 100.0, inf, nan, -0.0];
    let vy = vec![3.0f64, 0.25, -7.0, 100.0, 0.0, 1.0, 0.0];
    let args = [vx, vy].map(|v| {
        let t = Tensor::from_vec(vec![v.len()], v).unwrap();
        crate::kernels::elemwise::cast::cast(&t, dtype).unwrap()
    });
    printed(&check(&case, &["specialize"], &args, 0.0))
}

fn c(g: &mut Graph, dtype: DType, v: f64) -> VarId {
    build::scalar_constant(g, dtype, v)
}

fn mul(g: &mut Graph, ins: &[VarId]) -> VarId {
    build::elemwise(g, ScalarKind::Mul, ins).unwrap()
}

fn add(g: &mut Graph, ins: &[VarId]) -> VarId {
    build::elemwise(g, ScalarKind::Add, ins).unwrap()
}

#[test]
fn mul_by_minus_one_is_neg_and_ones_and_negations_go() {
    let p = specialized(DType::Float64, |g, x, _| {
        let m1 = c(g, DType::Float64, -1.0);
        mul(g, &[m1, x])
    });
    assert_eq!(p, "Neg [id A]\n └─ x [id B]\n");
    let p = specialized(DType::Float32, |g, x, y| {
        let one = c(g, DType::Int8, 1.0);
        mul(g, &[one, x, y])
    });
    assert_eq!(p, "Mul [id A]\n ├─ x [id B]\n └─ y [id C]\n");
    let p = specialized(DType::Int8, |g, x, y| {
        let (nx, ny) = (build::neg(g, x).unwrap(), build::neg(g, y).unwrap());
        mul(g, &[nx, ny])
    });
    assert_eq!(p, "Mul [id A]\n ├─ x [id B]\n └─ y [id C]\n");
    // One negation among several factors becomes a -1 factor, and stays so.
    let p = specialized(DType::Float64, |g, x, y| {
        let nx = build::neg(g, x).unwrap();
        mul(g, &[nx, y])
    });
    assert!(p.starts_with("Mul [id A]\n") && !p.contains("Neg"), "{p}");
}

#[test]
fn mul_specialize_fills_constant_and_zero_products() {
    // 1 * (-1) broadcast over x: a fill of -1 in x's shape.
    let p = specialized(DType::Int32, |g, x, _| {
        let one = c(g, DType::Int32, 1.0);
        let filled = build::fill(g, x, one).unwrap();
        let m1 = c(g, DType::Int32, -1.0);
        mul(g, &[filled, m1])
    });
    assert!(!p.contains("Mul"), "{p}");
    let p = specialized(DType::Int16, |g, x, y| {
        let zero = c(g, DType::Int16, 0.0);
        mul(g, &[x, zero, y])
    });
    assert!(!p.contains("Mul"), "{p}");
}

#[test]
fn mul_specialize_keeps_what_it_cannot_do_exactly() {
    // 0 * inf is NaN: a float product by zero stays.
    let p = specialized(DType::Float64, |g, x, _| {
        let zero = c(g, DType::Float64, 0.0);
        mul(g, &[x, zero])
    });
    assert!(p.contains("Mul"), "{p}");
    // No negation of unsigned integers.
    let p = specialized(DType::UInt8, |g, x, y| {
        let nx = build::neg(g, x).unwrap();
        mul(g, &[nx, y])
    });
    assert!(p.contains("Neg"), "{p}");
    // A dropped float constant made the int8 product float64: the rest is
    // computed in float64 (100 * 100 would wrap in int8).
    let p = specialized(DType::Int8, |g, x, y| {
        let one = c(g, DType::Float64, 1.0);
        mul(g, &[x, y, one])
    });
    assert!(p.contains("Cast{float64}"), "{p}");
}

#[test]
fn x_times_x_is_sqr() {
    for dtype in [DType::Float32, DType::Int64] {
        let p = specialized(dtype, |g, x, _| mul(g, &[x, x]));
        assert_eq!(p, "Sqr [id A]\n └─ x [id B]\n");
    }
    assert!(specialized(DType::Float64, |g, x, y| mul(g, &[x, y])).contains("Mul"));
    assert!(specialized(DType::Bool, |g, x, _| mul(g, &[x, x])).contains("Mul"));
}

#[test]
fn adding_a_negation_is_a_subtraction() {
    for dtype in [DType::Float64, DType::Int32] {
        let p = specialized(dtype, |g, x, y| {
            let nx = build::neg(g, x).unwrap();
            add(g, &[nx, y])
        });
        assert_eq!(p, "Sub [id A]\n ├─ y [id B]\n └─ x [id C]\n");
    }
    let p = specialized(DType::Float64, |g, x, y| {
        let nx = build::neg(g, x).unwrap();
        add(g, &[nx, y, x])
    });
    assert!(p.contains("Add"), "three terms stay: {p}");
}

#[test]
fn zero_terms_are_dropped() {
    let p = specialized(DType::Float64, |g, x, y| {
        let zero = c(g, DType::Float64, 0.0);
        add(g, &[x, zero, y])
    });
    assert_eq!(p, "Add [id A]\n ├─ x [id B]\n └─ y [id C]\n");
    let p = specialized(DType::Int8, |g, x, _| {
        let zero = c(g, DType::Float32, 0.0);
        add(g, &[zero, x])
    });
    assert_eq!(p, "Cast{float32} [id A]\n └─ x [id B]\n");
    let p = specialized(DType::Float64, |g, x, y| add(g, &[x, y]));
    assert_eq!(p, "Add [id A]\n ├─ x [id B]\n └─ y [id C]\n");
}

#[test]
fn one_over_x_is_reciprocal() {
    let p = specialized(DType::Float32, |g, x, _| {
        let one = c(g, DType::Float32, 1.0);
        build::true_div(g, one, x).unwrap()
    });
    assert_eq!(p, "Reciprocal [id A]\n └─ x [id B]\n");
    // Integers: the quotient is float64, and so is the reciprocal.
    let p = specialized(DType::Int8, |g, x, _| {
        let one = c(g, DType::Int8, 1.0);
        build::true_div(g, one, x).unwrap()
    });
    assert_eq!(
        p,
        "Reciprocal [id A]\n └─ Cast{float64} [id B]\n    └─ x [id C]\n"
    );
    let p = specialized(DType::Float64, |g, x, _| {
        let two = c(g, DType::Float64, 2.0);
        build::true_div(g, two, x).unwrap()
    });
    assert!(p.contains("True_div"), "{p}");
}
