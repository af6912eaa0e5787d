//! DebugMode and the view-map check on graphs of [`Test`] ops, which do
//! honestly or falsely what their maps declare.

use super::*;
use crate::build;
use crate::compile::{compile, FunctionInput, FunctionSpec};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::testing::graph_with;
use crate::graph::VarId;
use crate::ops::{IoMap, Op, PerformCtx};
use crate::tensor::Tensor;
use crate::types::Type;
use crate::value::Value;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a [`Test`] op does (each computes `2 * x` on float64 vectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Does {
    /// A new array.
    Honest,
    /// Returns its input, declaring `view_map = {0: [0]}`.
    View,
    /// Doubles its input in place, declaring `destroy_map = {0: [0]}`.
    Inplace,
    /// Returns its input without declaring it.
    LyingView,
    /// Doubles its input in place without declaring it.
    LyingInplace,
    /// Returns float32 for a float64 output.
    WrongDtype,
    /// Adds how many times it ran (differs from call to call).
    Unstable,
    /// Adds `2 * x` to whatever its output storage holds, as if it were
    /// zeros (wrong under `check_preallocated_output`).
    Accumulates,
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Test(Does);

static CALLS: AtomicUsize = AtomicUsize::new(0);

fn doubled_in_place(v: &Value) -> Result<Value> {
    let mut t = v.tensor()?.clone();
    // SAFETY: DebugMode handed this node its own copy of the input, which
    // nothing else reads while the op runs.
    let s = unsafe { t.as_granted_mut_slice::<f64>() }
        .ok_or_else(|| Error::Value("not a writable float64 vector".into()))?;
    s.iter_mut().for_each(|x| *x *= 2.0);
    Ok(Value::Tensor(t))
}

fn doubled(v: &Value, add: f64) -> Result<Value> {
    let t = v.tensor()?;
    let data: Vec<f64> = (0..t.len())
        .map(|i| match t.get(i) {
            crate::tensor::Scalar::Float(x, _) => 2.0 * x + add,
            _ => f64::NAN,
        })
        .collect();
    Ok(Value::Tensor(Tensor::from_vec(vec![data.len()], data)?))
}

fn accumulated(v: &Value, storage: Option<Value>) -> Result<Value> {
    let twice = doubled(v, 0.0)?;
    let Some(Value::Tensor(old)) = storage else {
        return Ok(twice);
    };
    let t = twice.tensor()?;
    let data: Vec<f64> = (0..t.len())
        .map(|i| match (t.get(i), old.get(i % old.len().max(1))) {
            (crate::tensor::Scalar::Float(a, _), crate::tensor::Scalar::Float(b, _)) => a + b,
            _ => f64::NAN,
        })
        .collect();
    Ok(Value::Tensor(Tensor::from_vec(vec![data.len()], data)?))
}

impl Op for Test {
    fn name(&self) -> &str {
        "Test"
    }
    fn describe(&self) -> String {
        format!("{:?}", self.0)
    }
    crate::op_identity!();
    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        Ok(vec![inputs[0].clone()])
    }
    fn view_map(&self) -> IoMap {
        match self.0 {
            Does::View => vec![(0, vec![0])],
            _ => Vec::new(),
        }
    }
    fn destroy_map(&self) -> IoMap {
        match self.0 {
            Does::Inplace => vec![(0, vec![0])],
            _ => Vec::new(),
        }
    }
    fn perform(
        &self,
        _: &mut PerformCtx<'_>,
        ins: &[&Value],
        outs: &mut [Option<Value>],
    ) -> Result<()> {
        outs[0] = Some(match self.0 {
            Does::Honest => doubled(ins[0], 0.0)?,
            Does::View | Does::LyingView => ins[0].clone(),
            Does::Inplace | Does::LyingInplace => doubled_in_place(ins[0])?,
            Does::WrongDtype => Value::Tensor(Tensor::from_vec(vec![1], vec![1.0f32])?),
            Does::Unstable => doubled(ins[0], CALLS.fetch_add(1, Ordering::SeqCst) as f64)?,
            Does::Accumulates => accumulated(ins[0], outs[0].take())?,
        });
        Ok(())
    }
}

/// `Test(does)(-x)` (or of `x` itself when `direct`), compiled in `mode`.
fn program(does: Does, direct: bool, mode: &Mode) -> Result<crate::vm::Program> {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
    let arg: VarId = if direct { x } else { build::neg(&mut g, x)? };
    let y = g.apply_out(std::sync::Arc::new(Test(does)), &[arg])?;
    let spec = FunctionSpec {
        inputs: vec![FunctionInput {
            mutable: direct,
            ..FunctionInput::new(x)
        }],
        outputs: vec![(y, false)],
        accept_inplace: true,
        ..FunctionSpec::default()
    };
    Ok(compile(g, spec, mode)?.program)
}

fn input() -> Tensor {
    Tensor::from_vec(vec![3], vec![1.0f64, 2.0, 3.0]).unwrap()
}

/// The DebugMode finding a run of `does` raises, by class name.
fn finding(does: Does, mode: &Mode) -> Option<&'static str> {
    let err = program(does, false, mode)
        .unwrap()
        .run(vec![input().into()])
        .err()?;
    match err.root() {
        Error::DebugMode(e) => Some(e.class_name()),
        other => panic!("not a DebugMode error: {other}"),
    }
}

#[test]
fn debug_mode_catches_each_kind_of_lie_by_name() {
    let m = Mode::debug_mode();
    assert_eq!(finding(Does::LyingView, &m), Some("BadViewMap"));
    assert_eq!(finding(Does::LyingInplace, &m), Some("BadDestroyMap"));
    assert_eq!(finding(Does::WrongDtype, &m), Some("InvalidValueError"));
    assert_eq!(finding(Does::Unstable, &m), Some("BadThunkOutput"));
    for honest in [Does::Honest, Does::View, Does::Inplace] {
        assert_eq!(finding(honest, &m), None, "{honest:?}");
    }
}

#[test]
fn messages_name_node_input_and_op() {
    let err = program(Does::LyingInplace, false, &Mode::debug_mode())
        .unwrap()
        .run(vec![input().into()])
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("LyingInplace modified input 0 of node"),
        "{msg}"
    );
    assert!(msg.contains("3 of 3 elements changed"), "{msg}");
}

#[test]
fn the_callers_array_is_never_modified() {
    // The inplace op destroys the (mutable) input itself; DebugMode runs
    // it on a copy, so the caller's array keeps its values.
    let prog = program(Does::Inplace, true, &Mode::debug_mode()).unwrap();
    let x = input();
    let out = prog.run(vec![x.clone().into()]).unwrap();
    assert_eq!(x.as_slice::<f64>().unwrap(), [1.0, 2.0, 3.0]);
    assert_eq!(
        out[0].tensor().unwrap().as_slice::<f64>().unwrap(),
        [2.0, 4.0, 6.0]
    );
}

#[test]
fn the_cheap_check_catches_undeclared_views_only() {
    let m = Mode::fast_run().with_view_map_checks();
    assert_eq!(finding(Does::LyingView, &m), Some("BadViewMap"));
    assert_eq!(finding(Does::View, &m), None);
    assert_eq!(finding(Does::Honest, &m), None);
    // It runs nothing twice and copies nothing: an undeclared write goes
    // unseen, but returning the written input is an undeclared view.
    assert_eq!(finding(Does::LyingInplace, &m), Some("BadViewMap"));
    let debug = Mode::debug_mode().with_view_map_checks();
    assert!(
        debug.link.checker.unwrap().wants_reference(),
        "DebugMode kept"
    );
}

#[test]
fn built_in_graphs_pass_and_match_fast_run() {
    let (mut g, [x]) = graph_with([("x", DType::Float64, 2)]);
    let e = build::exp(&mut g, x).unwrap();
    let t = build::mul(&mut g, e, x).unwrap();
    let s = build::sum(&mut g, t, None).unwrap();
    // Reshape returns a view of a contiguous input: declared (DebugMode
    // found it undeclared once).
    let six = g.tensor_constant(Tensor::from_vec(vec![1], vec![6i64]).unwrap());
    let flat = build::reshape(&mut g, x, six).unwrap();
    let spec = FunctionSpec {
        inputs: vec![FunctionInput::new(x)],
        outputs: vec![(t, false), (s, false), (flat, false)],
        ..FunctionSpec::default()
    };
    let data = Tensor::from_vec(vec![2, 3], vec![0.5f64, -1.0, 2.0, 0.0, 1.5, -0.25]).unwrap();
    let run = |mode: &Mode| {
        compile(g.clone(), spec.clone(), mode)
            .unwrap()
            .program
            .run(vec![data.clone().into()])
            .unwrap()
    };
    let (checked, fast) = (run(&Mode::debug_mode()), run(&Mode::fast_run()));
    for (a, b) in checked.iter().zip(&fast) {
        assert!(allclose(a.tensor().unwrap(), b.tensor().unwrap()));
    }
}

#[test]
fn preallocated_outputs_catch_an_op_that_trusts_its_storage() {
    for spec in ["debug:previous", "debug:c_contiguous", "debug:ALL"] {
        let m = Mode::debug_mode_for(spec).unwrap();
        assert_eq!(
            finding(Does::Accumulates, &m),
            Some("BadThunkOutput"),
            "{spec}"
        );
        for honest in [Does::Honest, Does::View, Does::Inplace] {
            assert_eq!(finding(honest, &m), None, "{honest:?} under {spec}");
        }
    }
    // Left empty, the storage hides the bug.
    let initial = Mode::debug_mode_for("debug:initial").unwrap();
    assert_eq!(finding(Does::Accumulates, &initial), None);
    assert_eq!(finding(Does::Accumulates, &Mode::debug_mode()), None);
    let err = program(
        Does::Accumulates,
        false,
        &Mode::debug_mode_for("debug:previous").unwrap(),
    )
    .unwrap()
    .run(vec![input().into()])
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("Accumulates with previous output storage"),
        "{err}"
    );
    assert!(err.contains("3 of 3 elements differ"), "{err}");
    assert!(Mode::debug_mode_for("debug:sideways").is_err());
}
