//! The canonizers and the distributor on small graphs: values against the
//! unrewritten graph, and the printed form after.

use crate::build;
use crate::dtype::DType;
use crate::graph::{Graph, VarId};
use crate::rewrite::families::testing::{check, check_prints, printed, rewrite, Case};
use crate::tensor::Tensor;
use crate::types::TensorType;

fn vector(g: &mut Graph, name: &str, dtype: DType) -> VarId {
    g.input(TensorType::with_ndim(dtype, 1), Some(name))
}

fn c(g: &mut Graph, x: f64) -> VarId {
    g.tensor_constant(Tensor::scalar(x))
}

fn floats(values: &[f64]) -> Tensor {
    Tensor::from_vec(vec![values.len()], values.to_vec()).unwrap()
}

/// The canonical form of `out`, checked on `args` against the original.
fn canonical(g: Graph, inputs: &[VarId], out: VarId, args: &[Tensor]) -> String {
    let case = Case::new(g, inputs.to_vec(), vec![out]);
    printed(&check(&case, &["canonicalize"], args, 1e-14))
}

/// Three float vectors `x`, `y`, `z` and values for them.
fn xyz() -> (Graph, [VarId; 3], Vec<Tensor>) {
    let mut g = Graph::new();
    let v = ["x", "y", "z"].map(|n| vector(&mut g, n, DType::Float64));
    let args = vec![
        floats(&[1.5, -2.0, 3.25]),
        floats(&[2.0, 0.5, -4.0]),
        floats(&[-1.0, 3.0, 0.25]),
    ];
    (g, v, args)
}

type Build = fn(&mut Graph, [VarId; 3]) -> VarId;

#[test]
fn products_and_quotients() {
    let cases: [(&str, Build, &str); 7] = [
        (
            "x*y/y",
            |g, [x, y, _]| {
                let m = build::mul(g, x, y).unwrap();
                build::true_div(g, m, y).unwrap()
            },
            "x [id A]\n",
        ),
        (
            "2*x/2",
            |g, [x, _, _]| {
                let two = c(g, 2.0);
                let m = build::mul(g, two, x).unwrap();
                build::true_div(g, m, two).unwrap()
            },
            "x [id A]\n",
        ),
        (
            "x/x",
            |g, [x, _, _]| build::true_div(g, x, x).unwrap(),
            "Second [id A]\n ├─ x [id B]\n └─ [1.] [id C]\n",
        ),
        (
            "(x*y)/(y*z)",
            |g, [x, y, z]| {
                let a = build::mul(g, x, y).unwrap();
                let b = build::mul(g, y, z).unwrap();
                build::true_div(g, a, b).unwrap()
            },
            "True_div [id A]\n ├─ x [id B]\n └─ z [id C]\n",
        ),
        (
            "(2x)/(4y)",
            |g, [x, y, _]| {
                let (two, four) = (c(g, 2.0), c(g, 4.0));
                let a = build::mul(g, two, x).unwrap();
                let b = build::mul(g, four, y).unwrap();
                build::true_div(g, a, b).unwrap()
            },
            "True_div [id A]\n ├─ Mul [id B]\n │  ├─ [0.5] [id C]\n │  └─ x [id D]\n └─ y [id E]\n",
        ),
        (
            "((x*y)*z)*2*3",
            |g, [x, y, z]| {
                let m = build::mul(g, x, y).unwrap();
                let m = build::mul(g, m, z).unwrap();
                let two = c(g, 2.0);
                let m = build::mul(g, m, two).unwrap();
                let three = c(g, 3.0);
                build::mul(g, m, three).unwrap()
            },
            "Mul [id A]\n ├─ [6.] [id B]\n ├─ x [id C]\n ├─ y [id D]\n └─ z [id E]\n",
        ),
        (
            "x/abs(x)",
            |g, [x, _, _]| {
                let a = build::elemwise(g, crate::scalar::ScalarKind::Abs, &[x]).unwrap();
                build::true_div(g, x, a).unwrap()
            },
            "Sign [id A]\n └─ x [id B]\n",
        ),
    ];
    for (what, f, want) in cases {
        let (mut g, v, args) = xyz();
        let out = f(&mut g, v);
        assert_eq!(canonical(g, &v, out, &args), want, "{what}");
    }
}

#[test]
fn sums_and_differences() {
    let cases: [(&str, Build, &str); 6] = [
        (
            "x+y-y",
            |g, [x, y, _]| {
                let s = build::add(g, x, y).unwrap();
                build::sub(g, s, y).unwrap()
            },
            "x [id A]\n",
        ),
        (
            "x-x",
            |g, [x, _, _]| build::sub(g, x, x).unwrap(),
            "Second [id A]\n ├─ x [id B]\n └─ [0.] [id C]\n",
        ),
        (
            "1+x+2",
            |g, [x, _, _]| {
                let (one, two) = (c(g, 1.0), c(g, 2.0));
                let s = build::add(g, one, x).unwrap();
                build::add(g, s, two).unwrap()
            },
            "Add [id A]\n ├─ [3.] [id B]\n └─ x [id C]\n",
        ),
        (
            "-x+x",
            |g, [x, _, _]| {
                let n = build::neg(g, x).unwrap();
                build::add(g, n, x).unwrap()
            },
            "Second [id A]\n ├─ x [id B]\n └─ [0.] [id C]\n",
        ),
        (
            "x+(-1*y)",
            |g, [x, y, _]| {
                let m1 = c(g, -1.0);
                let n = build::mul(g, m1, y).unwrap();
                build::add(g, x, n).unwrap()
            },
            "Sub [id A]\n ├─ x [id B]\n └─ y [id C]\n",
        ),
        (
            "-(x-y)",
            |g, [x, y, _]| {
                let d = build::sub(g, x, y).unwrap();
                build::neg(g, d).unwrap()
            },
            "Sub [id A]\n ├─ y [id B]\n └─ x [id C]\n",
        ),
    ];
    for (what, f, want) in cases {
        let (mut g, v, args) = xyz();
        let out = f(&mut g, v);
        assert_eq!(canonical(g, &v, out, &args), want, "{what}");
    }
}

#[test]
fn integer_differences_cancel_and_constants_fold_in_the_dtype() {
    let mut g = Graph::new();
    let x = vector(&mut g, "x", DType::Int32);
    let d = build::sub(&mut g, x, x).unwrap();
    let two = g.tensor_constant(Tensor::scalar(100i8));
    let m = build::mul(&mut g, x, two).unwrap();
    let m = build::mul(&mut g, m, two).unwrap();
    let args = [Tensor::from_vec(vec![3], vec![7i32, -3, i32::MAX]).unwrap()];
    let case = Case::new(g, vec![x], vec![d, m]);
    check_prints(&case, &["canonicalize"], &args, 0.0, "Second [id A]\n ├─ x [id B]\n └─ [0] [id C]\nMul [id D]\n ├─ [10000] [id E]\n └─ x [id B]\n");
}

#[test]
fn nothing_to_simplify_leaves_the_tree() {
    let cases: [(&str, Build); 4] = [
        ("x*y", |g, [x, y, _]| build::mul(g, x, y).unwrap()),
        ("x/(y/x)", |g, [x, y, _]| {
            let q = build::true_div(g, y, x).unwrap();
            build::true_div(g, x, q).unwrap()
        }),
        ("(x+y)-z", |g, [x, y, z]| {
            let s = build::add(g, x, y).unwrap();
            build::sub(g, s, z).unwrap()
        }),
        ("x//x", |g, [x, _, _]| build::int_div(g, x, x).unwrap()),
    ];
    for (what, f) in cases {
        let (mut g, v, _) = xyz();
        let out = f(&mut g, v);
        let case = Case::new(g, v.to_vec(), vec![out]);
        let before = printed(&case.fgraph());
        let mut fg = case.fgraph();
        rewrite(&mut fg, &["canonicalize"]);
        assert_eq!(printed(&fg), before, "{what}");
    }
}

#[test]
fn a_shared_product_cancels_but_is_not_regrouped() {
    let (mut g, [x, y, z], args) = xyz();
    let t = build::mul(&mut g, x, y).unwrap();
    let a = build::mul(&mut g, t, z).unwrap();
    let b = build::true_div(&mut g, t, y).unwrap();
    let case = Case::new(g, vec![x, y, z], vec![a, b]);
    let fg = check(&case, &["canonicalize"], &args, 1e-14);
    let want =
        "Mul [id A]\n ├─ Mul [id B]\n │  ├─ x [id C]\n │  └─ y [id D]\n └─ z [id E]\nx [id C]\n";
    assert_eq!(printed(&fg), want);
}

#[test]
fn a_deep_chain_becomes_one_node() {
    // Deeper than a thread's stack would allow a recursive reading.
    let mut g = Graph::new();
    let xs: Vec<VarId> = (0..10_000)
        .map(|i| vector(&mut g, &format!("x{i}"), DType::Float64))
        .collect();
    let mut sum = xs[0];
    for (i, &x) in xs.iter().enumerate().skip(1) {
        sum = if i % 3 == 0 {
            build::sub(&mut g, sum, x).unwrap()
        } else {
            build::add(&mut g, sum, x).unwrap()
        };
    }
    let case = Case::new(g, xs, vec![sum]);
    let mut fg = case.fgraph();
    rewrite(&mut fg, &["canonicalize"]);
    assert_eq!(fg.num_apply_nodes(), 3, "an add and a sub of adds");
}
