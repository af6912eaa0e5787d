//! The two checkers a program can run its nodes under (see `vm/checked.rs`):
//! [`DebugChecker`], DebugMode's, which runs each node on copies of its
//! inputs and checks what the op did to them and what it returned (and,
//! asked to, runs it again with preallocated outputs: `prealloc.rs`), and
//! compares the sides of the rewrites' replacements; and
//! [`ViewMapChecker`], the cheap one, which runs each node as usual and
//! only compares the memory of its outputs and inputs with the declared maps.

use super::compare::{allclose, differences, same_bytes};
use super::errors::DebugModeError;
use super::memory::NodeMaps;
use super::prealloc::Prealloc;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::copy::copy_contiguous;
use crate::tensor::Tensor;
use crate::types::Type;
use crate::value::Value;
use crate::vm::{NodeView, StepChecker, Thunk, WitnessPair};

/// DebugMode's checks, node by node, and the comparisons with `FAST_COMPILE`
/// and of the rewrites' replacements.
#[derive(Debug, Default)]
pub struct DebugChecker {
    /// The kinds of preallocated output each node runs again with
    /// (`check_preallocated_output`).
    pub prealloc: Vec<Prealloc>,
}

/// The cheap check: undeclared aliasing only, nothing re-run or copied.
#[derive(Debug, Default)]
pub struct ViewMapChecker;

fn debug_error(e: DebugModeError) -> Error {
    Error::DebugMode(Box::new(e))
}

/// A copy of a value in memory of its own (host values are shared: the
/// core cannot copy them).
fn fresh_copy(v: &Value) -> Result<Value> {
    Ok(match v {
        Value::Tensor(t) => Value::Tensor(copy_contiguous(t)?),
        Value::Host(_) => v.clone(),
    })
}

/// A fresh copy of each input, for one run of a node.
fn fresh_copies(inputs: &[&Value]) -> Result<Vec<Value>> {
    inputs.iter().map(|v| fresh_copy(v)).collect()
}

/// The inputs some output of the node destroys.
fn destroyed_inputs(node: &NodeView<'_>) -> Vec<usize> {
    node.op
        .destroy_map()
        .into_iter()
        .flat_map(|(_, ins)| ins)
        .collect()
}

/// Checks that every input not destroyed is as it was.
fn check_unchanged(node: &NodeView<'_>, before: &[&Value], after: &[Value]) -> Result<()> {
    let destroyed = destroyed_inputs(node);
    for (i, (old, new)) in before.iter().zip(after).enumerate() {
        let (Value::Tensor(old), Value::Tensor(new)) = (old, new) else {
            continue;
        };
        if destroyed.contains(&i) || same_bytes(old, new)? {
            continue;
        }
        let (n, worst) = differences(old, new);
        return Err(debug_error(DebugModeError::BadDestroyMap {
            node: node.label.to_owned(),
            op: node.op.describe(),
            input: i,
            detail: format!(
                "{n} of {} elements changed, by at most {worst}; destroy_map={}",
                old.len(),
                super::memory::fmt_map(&node.op.destroy_map())
            ),
        }));
    }
    Ok(())
}

/// Checks each output against its declared type: dtype, rank, static shape.
fn check_types(node: &NodeView<'_>, outputs: &[Option<Value>]) -> Result<()> {
    for (o, (v, ty)) in outputs.iter().zip(node.output_types).enumerate() {
        let detail = match (v, ty) {
            (None, _) => Some(format!("no value was stored for type {ty}")),
            (Some(Value::Tensor(t)), Type::Tensor(tt)) => {
                (t.dtype() != tt.dtype || !tt.fits(t.shape())).then(|| {
                    format!(
                        "expected {tt}, got dtype {} with shape {:?}",
                        t.dtype(),
                        t.shape()
                    )
                })
            }
            (Some(Value::Tensor(t)), Type::Scalar(d)) => {
                (t.dtype() != *d || t.ndim() != 0).then(|| {
                    format!(
                        "expected a {d} scalar, got dtype {} with shape {:?}",
                        t.dtype(),
                        t.shape()
                    )
                })
            }
            (Some(Value::Host(h)), Type::Tensor(tt)) => {
                Some(format!("expected {tt}, got a host value {h:?}"))
            }
            _ => None,
        };
        if let Some(detail) = detail {
            return Err(debug_error(DebugModeError::InvalidValue {
                node: node.label.to_owned(),
                op: node.op.describe(),
                output: o,
                detail,
            }));
        }
    }
    Ok(())
}

fn check_aliasing(node: &NodeView<'_>, inputs: &[&Value], outputs: &[Option<Value>]) -> Result<()> {
    let (op, view_map, destroy_map) = (
        node.op.describe(),
        node.op.view_map(),
        node.op.destroy_map(),
    );
    let maps = NodeMaps {
        node: node.label,
        op: &op,
        view_map: &view_map,
        destroy_map: &destroy_map,
    };
    maps.check_aliasing(inputs, outputs).map_err(debug_error)
}

impl StepChecker for DebugChecker {
    /// Runs the node on copies of its inputs (so an op that writes where
    /// it should not cannot reach the caller's arrays or other nodes'
    /// values), then checks, as PyTensor's DebugMode does, that inputs it
    /// does not declare destroying are unchanged, that its outputs are
    /// values of their types, and that they alias no input undeclared.
    fn run(
        &self,
        node: &NodeView<'_>,
        thunk: &dyn Thunk,
        inputs: &[&Value],
        outputs: &mut [Option<Value>],
        pool: &mut Pool,
    ) -> Result<()> {
        let copies = fresh_copies(inputs)?;
        let given: Vec<&Value> = copies.iter().collect();
        thunk.run(&given, outputs, pool)?;
        check_unchanged(node, inputs, &copies)?;
        check_types(node, outputs)?;
        check_aliasing(node, &given, outputs)?;
        for kind in &self.prealloc {
            for variant in kind.variants(outputs)? {
                check_preallocated(node, thunk, inputs, outputs, variant, pool)?;
            }
        }
        Ok(())
    }

    fn compare_replacement(&self, pair: &WitnessPair, old: &Value, new: &Value) -> Result<()> {
        let (Value::Tensor(o), Value::Tensor(n)) = (old, new) else {
            return Ok(());
        };
        if allclose(n, o) {
            return Ok(());
        }
        Err(debug_error(DebugModeError::BadOptimization {
            reason: pair.reason.clone(),
            old: pair.old_label.clone(),
            new: pair.new_label.clone(),
            detail: how_they_differ(n, o, "the replaced variable"),
        }))
    }

    fn compare(&self, outputs: &[Value], reference: &[Value], labels: &[String]) -> Result<()> {
        for (i, (got, expected)) in outputs.iter().zip(reference).enumerate() {
            let (Value::Tensor(g), Value::Tensor(e)) = (got, expected) else {
                continue;
            };
            if allclose(g, e) {
                continue;
            }
            let detail = how_they_differ(g, e, "FAST_COMPILE");
            return Err(debug_error(DebugModeError::BadThunkOutput {
                output: i,
                variable: labels
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("output {i}")),
                expected_from: "the FAST_COMPILE result".to_owned(),
                computed_by: "the rewritten graph".to_owned(),
                detail,
            }));
        }
        Ok(())
    }

    fn wants_reference(&self) -> bool {
        true
    }

    fn debug_host(&self) -> bool {
        true
    }
}

/// How `got` differs from `expected` (computed by `reference`), for messages.
fn how_they_differ(got: &Tensor, expected: &Tensor, reference: &str) -> String {
    if got.dtype() != expected.dtype() || got.shape() != expected.shape() {
        return format!(
            "got dtype {} with shape {:?}, {reference} gave dtype {} with shape {:?}",
            got.dtype(),
            got.shape(),
            expected.dtype(),
            expected.shape()
        );
    }
    let (n, worst) = differences(got, expected);
    let (atol, rtol) = super::compare::tolerance(got.dtype());
    format!(
        "{n} of {} elements differ, by at most {worst} (atol={atol}, rtol={rtol})",
        got.len()
    )
}

/// Runs the node again on fresh copies of its inputs, its outputs starting
/// as `variant` gives them, and checks that it returns what it returned
/// (`expected`) the first time.
fn check_preallocated(
    node: &NodeView<'_>,
    thunk: &dyn Thunk,
    inputs: &[&Value],
    expected: &[Option<Value>],
    (name, mut outputs): super::prealloc::Variant,
    pool: &mut Pool,
) -> Result<()> {
    let copies = fresh_copies(inputs)?;
    let given: Vec<&Value> = copies.iter().collect();
    let bad = |output: usize, detail: String| {
        debug_error(DebugModeError::BadThunkOutput {
            output,
            variable: node.label.to_owned(),
            expected_from: "its run without preallocated outputs".to_owned(),
            computed_by: format!("{} with {name} output storage", node.op.describe()),
            detail,
        })
    };
    if let Err(e) = thunk.run(&given, &mut outputs, pool) {
        return Err(bad(0, format!("it raised {e}")));
    }
    for (o, (got, want)) in outputs.iter().zip(expected).enumerate() {
        match (got, want) {
            (Some(Value::Tensor(g)), Some(Value::Tensor(w))) if !allclose(g, w) => {
                return Err(bad(o, how_they_differ(g, w, "the first run")));
            }
            (None, Some(_)) => return Err(bad(o, "no value was stored".to_owned())),
            _ => {}
        }
    }
    Ok(())
}

impl StepChecker for ViewMapChecker {
    fn run(
        &self,
        node: &NodeView<'_>,
        thunk: &dyn Thunk,
        inputs: &[&Value],
        outputs: &mut [Option<Value>],
        pool: &mut Pool,
    ) -> Result<()> {
        thunk.run(inputs, outputs, pool)?;
        check_aliasing(node, inputs, outputs)
    }
}
