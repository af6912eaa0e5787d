//! The checked-execution hook. A program linked with a [`StepChecker`]
//! (`LinkOptions::checker`) hands every node's computation to it instead
//! of calling the thunk directly, and (given a reference program) compares
//! each call's outputs with the reference's. The checks themselves —
//! DebugMode's and the cheap view-map check — live in
//! [`crate::compile::debug`]; the VM only routes through them. A checked
//! program lends no buffers (`donation.rs`), so what is checked is what
//! the graph's ops do.

use super::program::Program;
use super::thunk::Thunk;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::ops::OpRef;
use crate::types::Type;
use crate::value::Value;
use std::fmt;
use std::sync::Arc;

/// What a checker knows about the node it runs.
pub struct NodeView<'a> {
    /// The node's position in the schedule.
    pub index: usize,
    /// The node, printed (`Add(x, y)`).
    pub label: &'a str,
    /// Its op (for `view_map`, `destroy_map` and its name).
    pub op: &'a OpRef,
    /// The declared types of its outputs.
    pub output_types: &'a [Type],
}

/// Runs one node's thunk under checks.
pub trait StepChecker: fmt::Debug + Send + Sync {
    /// Computes the node's `outputs` (empty on entry) from `inputs` with
    /// `thunk`, checking what the checker checks.
    fn run(
        &self,
        node: &NodeView<'_>,
        thunk: &dyn Thunk,
        inputs: &[&Value],
        outputs: &mut [Option<Value>],
        pool: &mut Pool,
    ) -> Result<()>;

    /// Compares a call's outputs with the reference program's
    /// (`labels[i]` names output `i`).
    fn compare(&self, outputs: &[Value], reference: &[Value], labels: &[String]) -> Result<()> {
        let _ = (outputs, reference, labels);
        Ok(())
    }

    /// Whether the program should be compared with a reference compiled
    /// in `FAST_COMPILE` (DebugMode); the compiler then links one.
    fn wants_reference(&self) -> bool {
        false
    }

    /// Whether host ops should run their debug form (`debug_perform`, on
    /// writable copies, their outputs unfiltered so the core can judge them).
    fn debug_host(&self) -> bool {
        false
    }
}

impl Program {
    /// Makes every call also run `reference` (the same function compiled
    /// otherwise, e.g. in `FAST_COMPILE`) on the same inputs and compare
    /// the outputs through the checker. Without a checker this does nothing.
    pub fn set_reference(&mut self, reference: Arc<Program>) {
        if self.checker.is_some() {
            self.reference = Some(reference);
        }
    }

    /// The checker this program was linked with.
    pub fn checker(&self) -> Option<&Arc<dyn StepChecker>> {
        self.checker.as_ref()
    }

    /// Runs the reference program on `inputs` and compares its outputs with
    /// `outputs`, when there is one.
    pub(super) fn check_against_reference(
        &self,
        inputs: &[Value],
        outputs: &[Value],
    ) -> Result<()> {
        let (Some(reference), Some(checker)) = (&self.reference, &self.checker) else {
            return Ok(());
        };
        // On copies: the reference may destroy inputs the caller let it
        // (`mutable`), and DebugMode never modifies a caller's array.
        let copies: Vec<Value> = inputs
            .iter()
            .map(|v| match v {
                Value::Tensor(t) => crate::kernels::copy::copy_contiguous(t).map(Value::Tensor),
                Value::Host(_) => Ok(v.clone()),
            })
            .collect::<Result<_>>()?;
        let expected = reference.run(&copies)?;
        checker.compare(outputs, &expected, &self.output_labels)
    }
}
