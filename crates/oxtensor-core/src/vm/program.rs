//! The linked [`Program`] and its calls: each call runs the steps over the
//! caller's inputs, the program's constants and storage slots for computed
//! values, frees intermediates after their last use (recycling their
//! buffers), and returns the outputs. Linking is in `link.rs`, the steps in
//! `step.rs`, the output checks in `node_check.rs`, the tests in
//! `program_tests.rs`.

use super::checked::StepChecker;
use super::destroy_grant::grant_destroyed;
use super::donation::lend;
use super::profile::Profile;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::tensor::Tensor;
use crate::types::Type;
use crate::value::Value;
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[cfg(test)]
pub(super) use super::link::link_native;
pub use super::link::LinkOptions;
pub(super) use super::node_check::check_outputs;
use super::node_check::node_context;
pub(super) use super::step::{Src, Step, Workspace};

/// A step's outputs while it runs.
type StepOutputs = SmallVec<[Option<Value>; 2]>;

/// A compiled, runnable function graph.
pub struct Program {
    pub(super) steps: Vec<Step>,
    pub(super) n_slots: usize,
    pub(super) input_types: Vec<Type>,
    pub(super) outputs: Vec<Src>,
    /// The graph's constants, then the thunks' prepared forms of some.
    pub(super) constants: Vec<Value>,
    /// Elements held by `constants` (see [`Program::is_small_run`]).
    pub(super) constant_elements: usize,
    pub(super) workspace: Mutex<Workspace>,
    pub(super) profile: Option<Mutex<Profile>>,
    /// For each slot a step computes, that step (used by lazy runs).
    pub(super) producer: HashMap<usize, usize>,
    /// For lazy runs: the steps each step waits for besides its inputs
    /// (readers of what it destroys; see `destroy_order.rs`).
    pub(super) before: HashMap<usize, Vec<usize>>,
    /// Whether some step is lazy: the program then runs on demand from its
    /// outputs, so branches nobody asks for are never computed.
    pub(super) lazy: bool,
    /// Whether some step runs host code (e.g. a Python op).
    pub(super) host: bool,
    /// Whether the program is one step computing exactly its outputs, in
    /// order, from inputs and constants (the common `x * 2 + 1`, fused): a
    /// call then runs it without storage slots (see [`Program::run_single`]).
    pub(super) single: bool,
    /// For each input, whether every step reading it reads bools as bytes
    /// (see [`Program::takes_bool_bytes`]).
    pub(super) bool_bytes: Vec<bool>,
    /// The checks every node runs under (see `checked.rs`).
    pub(super) checker: Option<Arc<dyn StepChecker>>,
    /// The program a checked call's outputs are compared with.
    pub(super) reference: Option<Arc<Program>>,
    /// The program computing both sides of each replacement the rewrites
    /// made, checked after each call (DebugMode's `BadOptimization`).
    pub(super) witness: Option<Arc<super::checked::Witness>>,
    /// The outputs, printed (for a checker's messages; empty unchecked).
    pub(super) output_labels: Vec<String>,
    /// For each input, whether a step destroys it (see
    /// [`Program::destroys_input`]).
    pub(super) destroyed: Vec<bool>,
}

/// Inputs plus constants up to this many elements make a run short enough
/// (a few µs at most) that a host may run it without giving up its global
/// lock: releasing and retaking the GIL costs more than such a run.
const SMALL_RUN_ELEMENTS: usize = 1 << 10;

impl Program {
    /// Number of inputs the program takes.
    pub fn n_inputs(&self) -> usize {
        self.input_types.len()
    }

    /// Whether some step destroys input `i` and the caller marked it
    /// mutable (an updated shared variable is): a host may then pass the
    /// caller's writable memory for it (see `vm/destroy_grant.rs`); no
    /// other argument is ever written.
    pub fn destroys_input(&self, i: usize) -> bool {
        self.destroyed.get(i).copied().unwrap_or(false)
    }

    /// Whether input `i`, a bool tensor, may hold bytes other than 0 and 1
    /// (host memory): true when every step reading it reads bytes, nonzero
    /// meaning true, and it is not an output. A host then skips checking
    /// the bytes (a quarter of `a & b` on a million bools).
    pub fn takes_bool_bytes(&self, i: usize) -> bool {
        self.bool_bytes.get(i).copied().unwrap_or(false)
    }

    /// The declared types of the inputs.
    pub fn input_types(&self) -> &[Type] {
        &self.input_types
    }

    /// Whether a run on `inputs` is certain to be short: every step is
    /// native and the inputs and constants are small. (Broadcasting or an
    /// outer product can still make outputs larger than the inputs, but
    /// from so few elements only by a bounded amount.)
    pub fn is_small_run(&self, inputs: &[Value]) -> bool {
        !self.host
            && self.constant_elements + inputs.iter().map(elements).sum::<usize>()
                <= SMALL_RUN_ELEMENTS
    }

    /// Runs the program on `inputs` (a `Vec` or a slice; they are only
    /// borrowed). Values are checked against the declared output types of
    /// each node; errors name the node.
    pub fn run(&self, inputs: impl AsRef<[Value]>) -> Result<Vec<Value>> {
        let inputs = inputs.as_ref();
        let outputs = self.run_own(inputs)?;
        self.check_against_reference(inputs, &outputs)?;
        Ok(outputs)
    }

    /// [`Program::run`] without the reference comparison.
    fn run_own(&self, inputs: &[Value]) -> Result<Vec<Value>> {
        super::fork::enter();
        if inputs.len() != self.n_inputs() {
            return Err(Error::Type(format!(
                "expected {} inputs, got {}",
                self.n_inputs(),
                inputs.len()
            )));
        }
        if self.single {
            return self.run_single(inputs);
        }
        let start = self.profile.as_ref().map(|_| Instant::now());
        // A concurrent (or re-entrant) call finds the workspace taken and
        // starts with a fresh one; nothing ever waits for the lock.
        let mut guard = self.workspace.try_lock().ok();
        let mut fresh = Workspace::default();
        let ws = guard.as_deref_mut().unwrap_or(&mut fresh);
        ws.pool.trim();
        ws.storage.resize(self.n_slots, None);
        // Per step, the time it ran (`None`: skipped by a lazy run).
        let mut times = self.profile.as_ref().map(|_| vec![None; self.steps.len()]);
        let result = self
            .run_steps(inputs, ws, &mut times)
            .and_then(|()| self.collect_outputs(inputs, &mut ws.storage));
        // Storage is empty between calls, whatever happened in this one.
        ws.storage.iter_mut().for_each(|v| *v = None);
        drop(guard);
        if let (Some(p), Some(times), Some(start)) = (&self.profile, times, start) {
            record(p, times, start.elapsed());
        }
        result
    }

    fn run_steps(
        &self,
        inputs: &[Value],
        ws: &mut Workspace,
        times: &mut Option<Vec<Option<Duration>>>,
    ) -> Result<()> {
        if self.lazy {
            for &out in &self.outputs {
                if let Src::Slot(s) = out {
                    self.demand(s, inputs, ws, times)?;
                }
            }
            return Ok(());
        }
        for (k, step) in self.steps.iter().enumerate() {
            let t0 = times.as_ref().map(|_| Instant::now());
            self.run_step(k, step, inputs, ws)?;
            if let (Some(times), Some(t0)) = (times.as_mut(), t0) {
                times[k] = Some(t0.elapsed());
            }
        }
        Ok(())
    }

    /// A one-step program's call: the step's outputs are the call's.
    fn run_single(&self, inputs: &[Value]) -> Result<Vec<Value>> {
        let mut guard = self.workspace.try_lock().ok();
        // A fresh workspace only for a concurrent call (built lazily: this
        // path is for calls of a microsecond).
        let mut fresh = None;
        let ws = match guard.as_deref_mut() {
            Some(ws) => ws,
            None => fresh.insert(Workspace::default()),
        };
        ws.pool.trim();
        let mut outs = StepOutputs::new();
        grant_destroyed(&self.steps[0], inputs, &[], &self.destroyed, &mut ws.pool);
        let result = self.compute(0, &self.steps[0], inputs, &[], &mut ws.pool, &mut outs);
        ws.pool.end_grant();
        result?;
        // `compute` checked that every output is there. Taken one by one:
        // moving the inline vector whole cost a copy of all its slots.
        Ok(outs.iter_mut().filter_map(Option::take).collect())
    }

    fn run_step(&self, k: usize, step: &Step, inputs: &[Value], ws: &mut Workspace) -> Result<()> {
        let mut outs = StepOutputs::new();
        if let Some((_, slot)) = step.donor {
            lend(ws, slot);
        }
        grant_destroyed(step, inputs, &ws.storage, &self.destroyed, &mut ws.pool);
        let result = self.compute(k, step, inputs, &ws.storage, &mut ws.pool, &mut outs);
        ws.pool.end_loan();
        ws.pool.end_grant();
        result?;
        for (&s, v) in step.outputs.iter().zip(outs) {
            ws.storage[s] = v;
        }
        for &s in &step.frees {
            if let Some(Value::Tensor(t)) = ws.storage[s].take() {
                ws.pool.recycle(t);
            }
        }
        Ok(())
    }

    /// Step `k`'s outputs into `outs` (empty), checked against their types,
    /// from the values it reads; errors name the node.
    fn compute(
        &self,
        k: usize,
        step: &Step,
        inputs: &[Value],
        storage: &[Option<Value>],
        pool: &mut Pool,
        outs: &mut StepOutputs,
    ) -> Result<()> {
        // Inline vectors: steps rarely have more than a few inputs and outputs,
        // and this runs for every node of every call.
        outs.resize_with(step.outputs.len(), || None);
        let mut ins: SmallVec<[&Value; 4]> = SmallVec::new();
        for &src in &step.run_inputs {
            match self.value(src, inputs, storage) {
                Some(v) => ins.push(v),
                None => {
                    let what = format!("{src:?} of {} is empty", step.label);
                    return Err(Error::Value(what));
                }
            }
        }
        let result = match &self.checker {
            Some(checker) => checker.run(&step.view(k), step.thunk.as_ref(), &ins, outs, pool),
            None => step.thunk.run(&ins, outs, pool),
        }
        .and_then(|()| check_outputs(&step.output_types, outs));
        match result {
            Ok(()) => Ok(()),
            Err(e) => Err(e.at_node(self.node_context(k, step, inputs, storage))),
        }
    }

    /// Takes back an output the caller no longer needs (a host that copied
    /// a small result out, say), so a later call reuses its buffer.
    pub fn recycle(&self, t: Tensor) {
        if let Ok(mut ws) = self.workspace.try_lock() {
            ws.pool.recycle(t);
        }
    }

    /// The value `src` names, if it is there.
    pub(super) fn value<'a>(
        &'a self,
        src: Src,
        inputs: &'a [Value],
        storage: &'a [Option<Value>],
    ) -> Option<&'a Value> {
        match src {
            Src::Input(i) => inputs.get(i),
            Src::Const(c) => self.constants.get(c),
            Src::Slot(s) => storage.get(s)?.as_ref(),
        }
    }

    /// The outputs, moved out of storage (cloned when an output is an
    /// input, a constant, or the same variable as an earlier output).
    fn collect_outputs(
        &self,
        inputs: &[Value],
        storage: &mut [Option<Value>],
    ) -> Result<Vec<Value>> {
        let mut outs: Vec<Value> = Vec::with_capacity(self.outputs.len());
        for (k, &src) in self.outputs.iter().enumerate() {
            let taken = match src {
                Src::Slot(s) => storage[s].take(),
                _ => self.value(src, inputs, storage).cloned(),
            };
            let repeated = || {
                let j = self.outputs[..k].iter().position(|&o| o == src)?;
                Some(outs[j].clone())
            };
            let Some(v) = taken.or_else(repeated) else {
                return Err(Error::Value("an output was not computed".into()));
            };
            outs.push(v);
        }
        Ok(outs)
    }

    /// PyTensor's `raise_with_op` context: the node, its position and the
    /// inputs it has.
    pub(super) fn node_context(
        &self,
        k: usize,
        step: &Step,
        inputs: &[Value],
        storage: &[Option<Value>],
    ) -> String {
        let values: SmallVec<[&Value; 4]> = step
            .inputs
            .iter()
            .filter_map(|&src| self.value(src, inputs, storage))
            .collect();
        node_context(k, &step.label, &values)
    }

    /// Whether `t` shares memory with one of the program's constants.
    pub fn aliases_constant(&self, t: &Tensor) -> bool {
        self.constants
            .iter()
            .any(|v| matches!(v, Value::Tensor(c) if c.shares_buffer(t)))
    }

    /// Drops the buffers kept for reuse between calls (a call in progress
    /// keeps its own: this never waits for it).
    pub fn free(&self) {
        if let Ok(mut ws) = self.workspace.try_lock() {
            ws.pool = Pool::default();
        }
    }

    /// The recorded profile, if profiling is on.
    pub fn profile(&self) -> Option<Profile> {
        self.profile
            .as_ref()
            .and_then(|p| p.lock().ok().map(|p| p.clone()))
    }
}

/// Elements a value holds (a host value counts one).
pub(super) fn elements(v: &Value) -> usize {
    match v {
        Value::Tensor(t) => t.len(),
        Value::Host(_) => 1,
    }
}

fn record(p: &Mutex<Profile>, times: Vec<Option<Duration>>, total: Duration) {
    if let Ok(mut p) = p.lock() {
        p.calls += 1;
        p.total += total;
        for (stats, t) in p.nodes.iter_mut().zip(times) {
            if let Some(t) = t {
                stats.calls += 1;
                stats.time += t;
            }
        }
    }
}

#[cfg(test)]
#[path = "program_tests.rs"]
mod tests;
