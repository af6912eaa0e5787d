//! `BadOptimization`: a rewrite pass that replaces `x + y` by `x - y` is
//! named, with both sides and how they differ; an honest one (`y + x`)
//! passes; and the first wrong replacement is reported, not a later
//! correct one built on top of it.

use super::*;
use crate::build;
use crate::compile::{compile, FunctionInput, FunctionSpec, Optimizer};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::testing::graph_with;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::{GraphRewriter, RunContext};
use crate::tensor::Tensor;

/// Replaces the first `a + b` by `a - b` (`wrong`) or `b + a`.
struct SwapAdd {
    wrong: bool,
}

fn is_add(fg: &FunctionGraph, n: NodeId) -> bool {
    fg.graph().node(n).op.to_string().contains("Add")
}

impl GraphRewriter for SwapAdd {
    fn name(&self) -> &str {
        "swap_add"
    }

    fn apply(&self, fg: &mut FunctionGraph, _run: &mut RunContext) -> Result<bool> {
        let Some(n) = fg.apply_nodes().find(|&n| is_add(fg, n)) else {
            return Ok(false);
        };
        let node = fg.graph().node(n);
        let (out, a, b) = (node.outputs[0], node.inputs[0], node.inputs[1]);
        let new = if self.wrong {
            build::sub(fg.graph_mut(), a, b)?
        } else {
            build::add(fg.graph_mut(), b, a)?
        };
        let reason = if self.wrong {
            "local_wrong_add"
        } else {
            "local_commute_add"
        };
        fg.replace(out, new, reason, true)?;
        Ok(true)
    }
}

/// `exp(x + y) * 2` compiled in DebugMode with `pass` as its rewrites.
fn compiled(pass: SwapAdd) -> crate::vm::Program {
    let (mut g, [x, y]) = graph_with([("x", DType::Float64, 1), ("y", DType::Float64, 1)]);
    let s = build::add(&mut g, x, y).unwrap();
    let e = build::exp(&mut g, s).unwrap();
    let two = build::scalar_constant(&mut g, DType::Float64, 2.0);
    let out: VarId = build::mul(&mut g, e, two).unwrap();
    let spec = FunctionSpec {
        inputs: vec![FunctionInput::new(x), FunctionInput::new(y)],
        outputs: vec![(out, false)],
        ..FunctionSpec::default()
    };
    let mut mode = Mode::debug_mode();
    mode.optimizer = Optimizer::Pass(std::sync::Arc::new(pass));
    compile(g, spec, &mode).unwrap().program
}

fn args() -> Vec<crate::value::Value> {
    let v = |d: Vec<f64>| Tensor::from_vec(vec![3], d).unwrap().into();
    vec![v(vec![0.5, 1.0, -1.0]), v(vec![0.25, 2.0, 3.0])]
}

#[test]
fn a_wrong_rewrite_is_named_with_both_sides() {
    let err = compiled(SwapAdd { wrong: true }).run(args()).unwrap_err();
    let Error::DebugMode(found) = err.root() else {
        panic!("not a DebugMode error: {err}")
    };
    assert_eq!(found.class_name(), "BadOptimization", "{found}");
    let msg = found.to_string();
    assert!(
        msg.contains("the rewrite local_wrong_add replaced"),
        "{msg}"
    );
    assert!(
        msg.contains("(x, y)") && msg.contains("3 of 3 elements differ"),
        "{msg}"
    );
    let DebugModeError::BadOptimization { old, new, .. } = found.as_ref() else {
        unreachable!()
    };
    assert_ne!(old, new);
}

#[test]
fn an_honest_rewrite_passes() {
    let out = compiled(SwapAdd { wrong: false }).run(args()).unwrap();
    let want = [2.0 * 0.75f64.exp(), 2.0 * 3.0f64.exp(), 2.0 * 2.0f64.exp()];
    let got = out[0].tensor().unwrap();
    for (i, w) in want.iter().enumerate() {
        assert!(matches!(got.get(i), crate::tensor::Scalar::Float(v, _) if (v - w).abs() < 1e-12));
    }
}

#[test]
fn replacements_of_fast_run_are_recorded_and_pass() {
    // log(1 + exp(x)) becomes softplus(x) and x * y / y becomes x.
    let (mut g, [x, y]) = graph_with([("x", DType::Float64, 1), ("y", DType::Float64, 1)]);
    let one = build::scalar_constant(&mut g, DType::Float64, 1.0);
    let e = build::exp(&mut g, x).unwrap();
    let p = build::add(&mut g, one, e).unwrap();
    let sp = build::log(&mut g, p).unwrap();
    let xy = build::mul(&mut g, x, y).unwrap();
    let q = build::true_div(&mut g, xy, y).unwrap();
    let spec = FunctionSpec {
        inputs: vec![FunctionInput::new(x), FunctionInput::new(y)],
        outputs: vec![(sp, false), (q, false)],
        ..FunctionSpec::default()
    };
    let fast = compile(g.clone(), spec.clone(), &Mode::fast_run()).unwrap();
    assert!(fast.built.fgraph.feature::<ReplacementLog>().is_none());
    let c = compile(g, spec, &Mode::debug_mode()).unwrap();
    let log = c.built.fgraph.feature::<ReplacementLog>().unwrap();
    assert!(!log.replacements().is_empty());
    let (_, _, pairs) = witness_graph(&c.built.fgraph).unwrap().unwrap();
    assert!(
        pairs.iter().any(|p| p.old_label.contains("Log")),
        "{pairs:?}"
    );
    let v = |d: Vec<f64>| Tensor::from_vec(vec![3], d).unwrap().into();
    c.program
        .run(vec![v(vec![-800.0, 0.0, 800.0]), v(vec![2.0, 0.0, -3.0])])
        .unwrap();
}
