//! Random graphs for the graph properties (`import_proptest.rs`,
//! `replace_proptest.rs`): float64 inputs of a few shapes and nodes of
//! elementwise ops, reductions and reshapes over earlier variables, built
//! through the ops' own type inference (a step that does not type-checks
//! is skipped, as a user's `make_node` would refuse it).

use crate::build;
use crate::dtype::DType;
use crate::graph::{Graph, VarId};
use crate::scalar::ScalarKind;
use crate::types::TensorType;
use proptest::prelude::*;

/// One step of building: an op kind and the earlier variables it reads
/// (indices taken modulo the number of variables so far).
#[derive(Clone, Debug)]
pub enum Step {
    /// A binary elementwise op.
    Binary(ScalarKind, usize, usize),
    /// A unary elementwise op.
    Unary(ScalarKind, usize),
    /// A sum over everything.
    Sum(usize),
    /// A constant of the given value.
    Constant(f64),
}

/// A recipe: the inputs' static shapes (`None` lengths unknown) and steps.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// Static shapes of the inputs.
    pub inputs: Vec<Vec<Option<u64>>>,
    /// Nodes to add, in order.
    pub steps: Vec<Step>,
}

fn step() -> impl Strategy<Value = Step> {
    let binary = proptest::sample::select(vec![
        ScalarKind::Add,
        ScalarKind::Mul,
        ScalarKind::Sub,
        ScalarKind::Maximum,
    ]);
    let unary = proptest::sample::select(vec![ScalarKind::Exp, ScalarKind::Neg, ScalarKind::Abs]);
    prop_oneof![
        3 => (binary, any::<usize>(), any::<usize>()).prop_map(|(k, a, b)| Step::Binary(k, a, b)),
        2 => (unary, any::<usize>()).prop_map(|(k, a)| Step::Unary(k, a)),
        1 => any::<usize>().prop_map(Step::Sum),
        1 => (-3.0f64..3.0).prop_map(Step::Constant),
    ]
}

/// Recipes of 1–3 inputs (rank 0–2, lengths 1–3 or unknown) and up to 12 steps.
pub fn recipe() -> impl Strategy<Value = Recipe> {
    let len = prop::option::of(1u64..4);
    let shape = prop::collection::vec(len, 0..3);
    (
        prop::collection::vec(shape, 1..4),
        prop::collection::vec(step(), 0..12),
    )
        .prop_map(|(inputs, steps)| Recipe { inputs, steps })
}

/// The graph a recipe builds: its inputs, then every variable in order.
pub fn build(recipe: &Recipe) -> (Graph, Vec<VarId>, Vec<VarId>) {
    let mut g = Graph::new();
    let inputs: Vec<VarId> = recipe
        .inputs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ty = TensorType::new(DType::Float64, s.iter().copied()).expect("a valid type");
            g.input(ty, Some(&format!("x{i}")))
        })
        .collect();
    let mut vars = inputs.clone();
    for s in &recipe.steps {
        let pick = |i: usize| vars[i % vars.len()];
        let made = match *s {
            Step::Binary(k, a, b) => build::elemwise(&mut g, k, &[pick(a), pick(b)]),
            Step::Unary(k, a) => build::elemwise(&mut g, k, &[pick(a)]),
            Step::Sum(a) => build::sum(&mut g, pick(a), None),
            Step::Constant(v) => Ok(build::scalar_constant(&mut g, DType::Float64, v)),
        };
        if let Ok(v) = made {
            vars.push(v);
        }
    }
    (g, inputs, vars)
}
