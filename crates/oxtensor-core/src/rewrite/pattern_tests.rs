//! Tests of the pattern rewriter: matching, templates and head tests.

use super::*;
use crate::build;
use crate::dtype::DType;
use crate::graph::testing::{graph_with, x_and_constant};
use crate::ops::elemwise::Elemwise;
use crate::rewrite::{rewrite_graph, RunContext, WalkOrder, Walking};
use crate::scalar::ScalarKind;

fn op(k: ScalarKind) -> OpRef {
    Arc::new(Elemwise::new(k))
}

fn var(name: &str) -> Pattern {
    Pattern::Var {
        name: name.into(),
        constraint: None,
    }
}

fn run(fg: &mut FunctionGraph, rw: PatternRewriter) {
    let walk = Walking::new(
        "test",
        vec![Arc::new(rw) as Arc<dyn NodeRewriter>],
        WalkOrder::InToOut,
    );
    let mut run = RunContext::default();
    rewrite_graph(&walk, fg, &mut run).unwrap();
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn commutative_matching_repeated_names_and_templates() {
    let (mut g, [x, y]) = graph_with([("x", DType::Float64, 1), ("y", DType::Float64, 1)]);
    let e = build::exp(&mut g, y).unwrap();
    let prod = build::mul(&mut g, e, x).unwrap(); // exp(y) * x
    let div = build::true_div(&mut g, prod, x).unwrap();
    let mut fg = FunctionGraph::new(g, vec![x, y], vec![div]).unwrap();
    // (x * z) / x -> z, with mul's inputs in either order.
    let pattern = Pattern::Apply {
        op: Head::Op(op(ScalarKind::TrueDiv)),
        args: vec![
            Pattern::Apply {
                op: Head::Op(op(ScalarKind::Mul)),
                args: vec![var("x"), var("z")],
                rest: None,
            },
            var("x"),
        ],
        rest: None,
    };
    run(
        &mut fg,
        PatternRewriter::new("cancel", pattern, Template::Var("z".into())),
    );
    assert_eq!(fg.outputs()[0], e);
}

#[test]
fn intermediates_with_other_readers_block_the_match_unless_allowed() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let e = build::exp(&mut g, x).unwrap();
    let l = build::log(&mut g, e).unwrap();
    let mut fg = FunctionGraph::new(g.clone(), vec![x], vec![l, e]).unwrap();
    let pattern = || Pattern::Apply {
        op: Head::Op(op(ScalarKind::Log)),
        args: vec![Pattern::Apply {
            op: Head::Op(op(ScalarKind::Exp)),
            args: vec![var("x")],
            rest: None,
        }],
        rest: None,
    };
    run(
        &mut fg,
        PatternRewriter::new("log_exp", pattern(), Template::Var("x".into())),
    );
    assert_eq!(fg.outputs()[0], l, "exp(x) is also an output");
    let rw = PatternRewriter::new("log_exp", pattern(), Template::Var("x".into()))
        .allow_multiple_clients(true);
    run(&mut fg, rw);
    assert_eq!(fg.outputs()[0], x);
}

#[test]
fn constants_match_by_value_and_templates_build_nodes() {
    let (mut g, x, two) = x_and_constant(2.0);
    let sq = build::pow(&mut g, x, two).unwrap();
    let mut fg = FunctionGraph::new(g, vec![x], vec![sq]).unwrap();
    // pow(x, [2.]) (the constant is expanded) -> sqr(x)
    let pattern = Pattern::Apply {
        op: Head::Op(op(ScalarKind::Pow)),
        args: vec![var("x"), Pattern::Const(Tensor::scalar(2.0f64))],
        rest: None,
    };
    let template = Template::Apply(op(ScalarKind::Sqr), vec![Template::Var("x".into())]);
    run(&mut fg, PatternRewriter::new("pow2", pattern, template));
    let out = fg.outputs()[0];
    let node = fg.graph().var(out).owner().unwrap();
    assert_eq!(fg.graph().node(node).op.describe(), "Sqr");
    assert!(array_equiv(
        &Tensor::from_vec(vec![1, 3], vec![2.0f64; 3]).unwrap(),
        &Tensor::scalar(2.0f64)
    ));
    assert!(!array_equiv(
        &Tensor::from_vec(vec![2], vec![2.0f64, 3.0]).unwrap(),
        &Tensor::scalar(2.0f64)
    ));
}

/// A head test binding the scalar kind's name as parameter `kind`.
fn kind_test() -> Head {
    let test: OpTest = Arc::new(|fg, node, params| {
        let op = fg.graph().node(node).op.clone();
        let Some(e) = op.as_any().downcast_ref::<Elemwise>() else {
            return Ok(false);
        };
        let ScalarOp::Kind(k) = e.scalar_op else {
            return Ok(false);
        };
        params.insert("kind".into(), Arc::new(k.name().to_owned()));
        Ok(true)
    });
    Head::Test {
        class: "Elemwise".into(),
        test,
    }
}

#[test]
fn a_head_test_binds_parameters_the_builder_reads() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let e = build::exp(&mut g, x).unwrap();
    let mut fg = FunctionGraph::new(g, vec![x], vec![e]).unwrap();
    let pattern = Pattern::Apply {
        op: kind_test(),
        args: vec![Pattern::Var {
            name: "a".into(),
            constraint: None,
        }],
        rest: None,
    };
    // exp(a) -> log(a), chosen from the bound parameter.
    let builder: Builder = Arc::new(|fg, _, vars, params| {
        let kind = params["kind"].downcast_ref::<String>().cloned();
        if kind.as_deref() != Some("exp") {
            return Ok(None);
        }
        Ok(Some(build::log(fg.graph_mut(), vars["a"])?))
    });
    let rw = PatternRewriter::new("by_kind", pattern, Template::Build(builder));
    assert!(
        matches!(rw.tracks(), Tracks::Some(t) if matches!(&t[..], [Track::Class(c)] if c == "Elemwise"))
    );
    let walk = Walking::new(
        "w",
        vec![Arc::new(rw) as Arc<dyn NodeRewriter>],
        WalkOrder::InToOut,
    );
    let mut run = RunContext::default();
    rewrite_graph(&walk, &mut fg, &mut run).unwrap();
    let out = fg.outputs()[0];
    let node = fg.graph().var(out).owner().unwrap();
    assert_eq!(fg.graph().node(node).op.describe(), "Log");
}
