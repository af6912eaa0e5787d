//! The checked-execution hook. A program linked with a [`StepChecker`]
//! (`LinkOptions::checker`) hands every node's computation to it instead
//! of calling the thunk directly, and (given a reference program) compares
//! each call's outputs with the reference's. The checks themselves —
//! DebugMode's and the cheap view-map check — live in
//! [`crate::compile::debug`]; the VM only routes through them. A checked
//! program lends no buffers (`donation.rs`), so what is checked is what
//! the graph's ops do.
//!
//! DebugMode also links a [`Witness`]: a program over the same inputs whose
//! outputs are both sides of every replacement the rewrites made (the
//! replaced variable computed from the graph as it was, and what replaced
//! it). After each call it runs output by output, on demand, and the
//! checker compares each pair (`BadOptimization`). An output whose
//! computation fails is left out rather than failing the call: a lazy
//! `IfElse` may not have taken the branch it belongs to.

use super::program::{Program, Src, Workspace};
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

    /// Compares the two sides of a replacement the rewrites made, computed
    /// on a call's inputs (see [`Witness`]).
    fn compare_replacement(&self, pair: &WitnessPair, old: &Value, new: &Value) -> Result<()> {
        let _ = (pair, old, new);
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

/// One replacement to check: which outputs of the witness program hold
/// its two sides, and how to name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessPair {
    /// The rewriter that made it.
    pub reason: String,
    /// The replaced variable, printed.
    pub old_label: String,
    /// Its replacement, printed.
    pub new_label: String,
    /// The witness output computing the replaced variable.
    pub old: usize,
    /// The witness output computing the replacement.
    pub new: usize,
    /// The witness outputs computing what stands for the replacement in
    /// the function's graph (the replacement, or what later replaced it
    /// or the nodes reading it): in a lazy function the pair is checked
    /// only when the call computed one of them (always, when empty).
    pub live: Vec<usize>,
}

/// Both sides of every replacement, as a program (see the module docs).
pub struct Witness {
    /// Computes the function's own outputs first, then the sides, one
    /// output each (a side shared by two pairs once).
    pub program: Program,
    /// How many leading outputs are the function's own.
    pub own_outputs: usize,
    /// The pairs, in the order they are checked.
    pub pairs: Vec<WitnessPair>,
}

impl Witness {
    /// Computes every pair on `inputs` and has `checker` compare each
    /// whose sides could both be computed. In a lazy program the
    /// function's own outputs are computed first, as the call did: a pair
    /// whose replacement stands in a branch that was not taken is skipped.
    fn check(&self, checker: &dyn StepChecker, inputs: &[Value]) -> Result<()> {
        let p = &self.program;
        if inputs.len() != p.n_inputs() {
            return Ok(());
        }
        let mut ws = Workspace::default();
        ws.storage.resize(p.n_slots, None);
        let mut ran = vec![true; p.outputs.len()];
        if p.lazy {
            for o in 0..self.own_outputs {
                p.demand_output(o, inputs, &mut ws);
            }
            ran = (0..p.outputs.len())
                .map(|o| p.output_ready(o, &ws))
                .collect();
        }
        for pair in &self.pairs {
            let taken = |&l: &usize| ran.get(l).copied().unwrap_or(false);
            if !pair.live.is_empty() && !pair.live.iter().any(taken) {
                continue;
            }
            let old = p.demand_output(pair.old, inputs, &mut ws);
            let new = p.demand_output(pair.new, inputs, &mut ws);
            if let (Some(old), Some(new)) = (old, new) {
                checker.compare_replacement(pair, &old, &new)?;
            }
        }
        Ok(())
    }
}

impl Program {
    /// Output `o` computed on demand in `ws`: `None` when its computation
    /// failed.
    fn demand_output(&self, o: usize, inputs: &[Value], ws: &mut Workspace) -> Option<Value> {
        let src = *self.outputs.get(o)?;
        if let Src::Slot(s) = src {
            self.demand(s, inputs, ws, &mut None).ok()?;
        }
        self.value(src, inputs, &ws.storage).cloned()
    }

    /// Whether output `o` has been computed in `ws` (inputs and constants
    /// always are).
    fn output_ready(&self, o: usize, ws: &Workspace) -> bool {
        match self.outputs.get(o) {
            Some(Src::Slot(s)) => ws.storage.get(*s).is_some_and(Option::is_some),
            Some(_) => true,
            None => false,
        }
    }

    /// Makes every checked call also compute both sides of the rewrites'
    /// replacements and compare them. Without a checker this does nothing.
    pub fn set_witness(&mut self, witness: Witness) {
        if self.checker.is_some() {
            self.witness = Some(Arc::new(witness));
        }
    }

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

    /// Checks the rewrites' replacements on `inputs` (first: a wrong
    /// rewrite is the cause of a wrong result), then runs the reference
    /// program on them and compares its outputs with `outputs`.
    pub(super) fn check_against_reference(
        &self,
        inputs: &[Value],
        outputs: &[Value],
    ) -> Result<()> {
        let Some(checker) = &self.checker else {
            return Ok(());
        };
        if let Some(w) = &self.witness {
            w.check(checker.as_ref(), inputs)?;
        }
        let Some(reference) = &self.reference else {
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
