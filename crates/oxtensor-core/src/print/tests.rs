use super::printer::MAX_INDENT;
use super::*;
use crate::build;
use crate::dtype::DType;
use crate::graph::testing::graph_with;
use crate::tensor::Tensor;

#[test]
fn fgraph_repr_marks_shared_subexpressions() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
    let y = build::exp(&mut g, x).unwrap();
    let z = build::add(&mut g, y, y).unwrap();
    let fg = FunctionGraph::new(g, vec![x], vec![z, y]).unwrap();
    assert_eq!(as_string(&fg), "Add(*1 -> Exp(x), *1), *1");
}

#[test]
fn ids_in_base_26() {
    assert_eq!(char_id(0), "A");
    assert_eq!(char_id(25), "Z");
    assert_eq!(char_id(26), "BA");
    assert_eq!(char_id(27), "BB");
}

#[test]
fn seed_example_with_types() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let two = g.tensor_constant(Tensor::scalar(2.0f32));
    let y = build::mul(&mut g, x, two).unwrap();
    assert_eq!(
        debugprint_vars(&g, &[y], &PrintOptions::default()),
        "Mul [id A]\n ├─ x [id B]\n └─ ExpandDims{axis=0} [id C]\n    └─ 2.0 [id D]\n"
    );
    let typed = PrintOptions {
        print_type: true,
        ..Default::default()
    };
    assert_eq!(
        debugprint_vars(&g, &[y], &typed),
        "Mul [id A] <Vector(float64, shape=(?,))>\n \
         ├─ x [id B] <Vector(float64, shape=(?,))>\n \
         └─ ExpandDims{axis=0} [id C] <Vector(float32, shape=(1,))>\n    \
         └─ 2.0 [id D] <Scalar(float32, shape=())>\n"
    );
}

/// `x + 1 + 1 ...`, `n` additions deep.
fn chain(n: usize) -> (Graph, VarId, VarId) {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
    let one = g.tensor_constant(Tensor::scalar(1.0f64));
    let mut z = x;
    for _ in 0..n {
        z = build::add(&mut g, z, one).unwrap();
    }
    (g, x, z)
}

#[test]
fn deep_chains_print_without_recursion_in_linear_space() {
    // Deeper than a test thread's 2 MiB stack allows a recursive walk.
    let n = 200_000;
    let (g, x, z) = chain(n);
    let text = debugprint_vars(&g, &[z], &PrintOptions::default());
    let lines: Vec<&str> = text.lines().collect();
    // The n additions down the chain, `x`, then each addition's `1.0`.
    assert_eq!(lines.len(), 2 * n + 1);
    let widest = lines.iter().map(|l| l.chars().count()).max().unwrap();
    assert!(widest < 3 * MAX_INDENT + 40, "{widest} columns");
    // `x` is n levels down: n - 1 levels of indentation, 64 shown.
    let hidden = format!("[+{}]", n - 1 - MAX_INDENT);
    assert!(lines[n].starts_with(&hidden), "{}", lines[n]);
    assert!(lines[n].ends_with(&format!(" ├─ x [id {}]", char_id(n))));
    let fg = FunctionGraph::new(g, vec![x], vec![z]).unwrap();
    let repr = as_string(&fg);
    assert!(repr.starts_with("Add(Add("), "{}", &repr[..40]);
    assert_eq!(repr.matches("Add(").count(), n);
    assert!(repr.len() < 40 * n, "linear in the depth");
}

#[test]
fn shallow_indentation_is_pytensors() {
    let (g, _, z) = chain(3);
    assert_eq!(
        debugprint_vars(&g, &[z], &PrintOptions::default()),
        "Add [id A]\n \
         ├─ Add [id B]\n \
         │  ├─ Add [id C]\n \
         │  │  ├─ x [id D]\n \
         │  │  └─ 1.0 [id E]\n \
         │  └─ 1.0 [id E]\n \
         └─ 1.0 [id E]\n"
    );
}

#[test]
fn repeated_nodes_are_elided() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let z = build::exp(&mut g, x).unwrap();
    g.set_name(z, Some("z"));
    let m = build::mul(&mut g, z, z).unwrap();
    let w = build::sum(&mut g, m, None).unwrap();
    g.set_name(w, Some("w"));
    assert_eq!(
        debugprint_vars(&g, &[w], &PrintOptions::default()),
        "Sum{axes=None} [id A] 'w'\n \
         └─ Mul [id B]\n    \
         ├─ Exp [id C] 'z'\n    \
         │  └─ x [id D]\n    \
         └─ Exp [id C] 'z'\n       \
         └─ ···\n"
    );
}
