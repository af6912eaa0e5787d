//! The fusion phase on whole graphs: the graph before and after `fast_run`,
//! values against the unrewritten graph, and the cases that must not fuse.

use crate::build;
use crate::dtype::DType::*;
use crate::graph::testing::{exp_chain, tt};
use crate::graph::{FunctionGraph, Graph, VarId};
use crate::rewrite::families::testing::{check, printed, rewrite, Case};
use crate::scalar::ScalarKind;
use crate::tensor::Tensor;

fn values(shape: &[usize], seed: f64) -> Tensor {
    let n: usize = shape.iter().product();
    let xs = (0..n).map(|i| ((i as f64 + seed) * 0.37).sin()).collect();
    Tensor::from_vec(shape.to_vec(), xs).unwrap()
}

/// The printed graph without its "Inner graphs" section.
fn outer(fg: &FunctionGraph) -> String {
    let text = printed(fg);
    match text.find("\nInner graphs:") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

fn scalar(g: &mut Graph, v: f64) -> VarId {
    g.tensor_constant(Tensor::scalar(v))
}

/// `exp(x * 2 - y) * x + 0.5`, and `x * 2` as an output too when `expose`.
fn chain(expose: bool) -> Case {
    let mut g = Graph::new();
    let x = g.input(tt(Float64, &[None]), Some("x"));
    let y = g.input(tt(Float64, &[None]), Some("y"));
    let (two, half) = (scalar(&mut g, 2.0), scalar(&mut g, 0.5));
    let outputs = exp_chain(&mut g, [x, y, two, half], expose);
    Case::new(g, vec![x, y], outputs)
}

#[test]
fn chains_become_one_composite_with_constants_inside() {
    let args = [values(&[7], 0.0), values(&[7], 1.0)];
    let fg = check(&chain(false), &["fast_run"], &args, 0.0);
    let want = [
        "Composite{((exp(((i0 * 2.0) - i1)) * i0) + 0.5)} [id A]",
        " ├─ x [id B]",
        " └─ y [id C]",
        "",
        "Inner graphs:",
        "",
        "Composite{((exp(((i0 * 2.0) - i1)) * i0) + 0.5)} [id A]",
        " ← add [id D]",
        "    ├─ mul [id E]",
        "    │  ├─ exp [id F]",
        "    │  │  └─ sub [id G]",
        "    │  │     ├─ mul [id H]",
        "    │  │     │  ├─ i0 [id I]",
        "    │  │     │  └─ 2.0 [id J]",
        "    │  │     └─ i1 [id K]",
        "    │  └─ i0 [id I]",
        "    └─ 0.5 [id L]",
        "",
    ];
    assert_eq!(printed(&fg), want.join("\n"));
}

#[test]
fn values_read_outside_the_group_are_outputs_too() {
    let args = [values(&[7], 0.0), values(&[7], 1.0)];
    let fg = check(&chain(true), &["fast_run"], &args, 0.0);
    let text = printed(&fg);
    assert!(text.ends_with(" ← mul [id H]\n    └─ ···\n"), "{text}");
    assert_eq!(
        outer(&fg),
        "Composite{((exp(((i0 * 2.0) - i1)) * i0) + 0.5), (i0 * 2.0)}.0 [id A]\n ├─ x [id B]\n └─ y [id C]\nComposite{((exp(((i0 * 2.0) - i1)) * i0) + 0.5), (i0 * 2.0)}.1 [id A]\n └─ ···\n"
    );
}

#[test]
fn a_sum_joins_the_composite_it_reduces() {
    let mut g = Graph::new();
    let x = g.input(tt(Float64, &[None, None]), Some("x"));
    let y = g.input(tt(Float64, &[None, None]), Some("y"));
    let two = scalar(&mut g, 2.0);
    let m = build::mul(&mut g, x, two).unwrap();
    let a = build::add(&mut g, m, y).unwrap();
    let p = build::elemwise(&mut g, ScalarKind::Pow, &[a, two]).unwrap();
    let s = build::sum(&mut g, p, None).unwrap();
    let case = Case::new(g, vec![x, y], vec![s]);
    let args = [values(&[3, 4], 0.0), values(&[3, 4], 1.0)];
    let fg = check(&case, &["fast_run"], &args, 1e-12);
    assert_eq!(
        outer(&fg),
        "CAReduce{Composite{(i0 + sqr(((i1 * 2.0) + i2)))}, axes=None} [id A]\n ├─ x [id B]\n └─ y [id C]\n"
    );
}

#[test]
fn rows_fuse_into_matrices_and_are_computed_once() {
    // `x - exp(r)`: the exponential is on the row, hoisted by the kernel.
    let mut g = Graph::new();
    let x = g.input(tt(Float64, &[None, None]), Some("x"));
    let r = g.input(tt(Float64, &[Some(1), None]), Some("r"));
    let d = build::exp(&mut g, r).unwrap();
    let out = build::sub(&mut g, x, d).unwrap();
    let e = build::exp(&mut g, out).unwrap();
    let case = Case::new(g, vec![x, r], vec![e]);
    let args = [values(&[5, 3000], 0.0), values(&[1, 3000], 1.0)];
    let fg = check(&case, &["fast_run"], &args, 0.0);
    assert_eq!(
        outer(&fg),
        "Composite{exp((i0 - exp(i1)))} [id A]\n ├─ x [id B]\n └─ r [id C]\n"
    );
}

#[test]
fn what_the_kernel_does_not_run_stays() {
    let mut g = Graph::new();
    let i = g.input(tt(Int64, &[None]), Some("i"));
    let x = g.input(tt(Float64, &[None]), Some("x"));
    let two = g.tensor_constant(Tensor::scalar(2i64));
    let m = build::mul(&mut g, i, two).unwrap();
    let a = build::add(&mut g, m, i).unwrap();
    let lt = build::elemwise(&mut g, ScalarKind::Lt, &[x, x]).unwrap();
    let e = build::exp(&mut g, x).unwrap();
    let case = Case::new(g, vec![i, x], vec![a, lt, e]);
    let mut fg = case.fgraph();
    rewrite(&mut fg, &["fast_run"]);
    let text = printed(&fg);
    assert!(!text.contains("Composite"), "{text}");
}

#[test]
fn long_chains_fuse_into_one_node() {
    let mut g = Graph::new();
    let x = g.input(tt(Float64, &[None]), Some("x"));
    let c = scalar(&mut g, 1.0001);
    let mut y = x;
    for k in 0..1000 {
        y = match k % 2 {
            0 => build::mul(&mut g, y, c).unwrap(),
            _ => build::add(&mut g, y, x).unwrap(),
        };
    }
    let mut fg = FunctionGraph::new(g, vec![x], vec![y]).unwrap();
    rewrite(&mut fg, &["fast_run"]);
    assert_eq!(outer(&fg), "Composite{...} [id A]\n └─ x [id B]\n");
}

#[test]
fn fast_compile_does_not_fuse() {
    let mut fg = chain(false).fgraph();
    rewrite(&mut fg, &["fast_compile"]);
    let text = printed(&fg);
    assert!(!text.contains("Composite"), "{text}");
    assert!(text.starts_with("Add [id A]"), "{text}");
}

#[test]
fn a_sum_of_one_elementwise_node_stays_a_sum() {
    // PyTensor's default mode shows `Sum{axes=None}` over `Add` here.
    let mut g = Graph::new();
    let v = g.input(tt(Float64, &[None]), Some("v"));
    let one = scalar(&mut g, 1.0);
    let a = build::add(&mut g, v, one).unwrap();
    let s = build::sum(&mut g, a, None).unwrap();
    let mut fg = FunctionGraph::new(g, vec![v], vec![s]).unwrap();
    rewrite(&mut fg, &["fast_run"]);
    assert!(
        printed(&fg).starts_with("Sum{axes=None} [id A]\n └─ Add"),
        "{}",
        printed(&fg)
    );
}
