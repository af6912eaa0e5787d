//! Linking and running: the toposort of a function graph becomes steps that
//! read the caller's inputs, the program's constants and storage slots for
//! computed values; each call runs the steps, frees intermediates after
//! their last use (recycling their buffers), and returns the outputs.

use super::checked::{NodeView, StepChecker};
use super::destroy_grant::{destroyed_input, destroyed_mutable_inputs, grant_destroyed};
use super::destroy_order::{destroying_steps, steps_before};
use super::donation::{lend, mark_donors};
use super::profile::{NodeStats, Profile};
use super::thunk::{OpThunk, Thunk};
use crate::error::{Error, Result};
use crate::graph::{FunctionGraph, NodeId, VarId, VarKind};
use crate::kernels::alloc::Pool;
use crate::ops::OpRef;
use crate::tensor::Tensor;
use crate::types::Type;
use crate::value::Value;
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Linker options.
#[derive(Clone, Debug)]
pub struct LinkOptions {
    /// Free intermediates after their last use (PyTensor's `allow_gc`).
    pub allow_gc: bool,
    /// Record per-node call counts and times.
    pub profile: bool,
    /// Runs every node through these checks (DebugMode, the view-map
    /// check; see `checked.rs`), each node as its own step.
    pub checker: Option<Arc<dyn StepChecker>>,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            allow_gc: true,
            profile: false,
            checker: None,
        }
    }
}

/// Where a step reads a value. Inputs and constants are borrowed where they
/// are, so a call copies no value into storage before the steps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Src {
    /// The caller's input at this position.
    Input(usize),
    /// The program's constant at this position.
    Const(usize),
    /// A storage slot, filled by the step that computes it.
    Slot(usize),
}

pub(super) struct Step {
    pub(super) thunk: Box<dyn Thunk>,
    /// The node's op (what a checker reads the declared maps from).
    pub(super) op: OpRef,
    /// The node's inputs, as declared (what error messages and lazy runs see).
    pub(super) inputs: Vec<Src>,
    /// What the thunk is given: `inputs`, with constants replaced by the
    /// form the thunk prepared at link time (see [`Thunk::prepare_constant`]).
    pub(super) run_inputs: Vec<Src>,
    pub(super) outputs: Vec<usize>,
    pub(super) output_types: Vec<Type>,
    pub(super) label: String,
    /// Slots whose last reader is this step.
    pub(super) frees: Vec<usize>,
    /// `(input, slot)`: an input the step reads last, lent to the thunk to
    /// write its output into (see [`super::donation`]).
    pub(super) donor: Option<(usize, usize)>,
    /// The input the node destroys (its op's `destroy_map`), offered to a
    /// native thunk to write its output into (see [`super::destroy_grant`]).
    pub(super) destroys: Option<usize>,
}

impl Step {
    /// What a checker is told about step `k`.
    pub(super) fn view(&self, k: usize) -> NodeView<'_> {
        NodeView {
            index: k,
            label: &self.label,
            op: &self.op,
            output_types: &self.output_types,
        }
    }
}

/// What a call needs besides its inputs, kept between calls so that a call
/// allocates neither: the storage slots (all empty between calls) and the
/// buffers of dead intermediates.
#[derive(Default)]
pub(super) struct Workspace {
    pub(super) storage: Vec<Option<Value>>,
    pub(super) pool: Pool,
}

/// A step's outputs while it runs.
type StepOutputs = SmallVec<[Option<Value>; 2]>;

/// A compiled, runnable function graph.
pub struct Program {
    pub(super) steps: Vec<Step>,
    n_slots: usize,
    input_types: Vec<Type>,
    outputs: Vec<Src>,
    /// The graph's constants, then the thunks' prepared forms of some.
    constants: Vec<Value>,
    /// Elements held by `constants` (see [`Program::is_small_run`]).
    constant_elements: usize,
    pub(super) workspace: Mutex<Workspace>,
    profile: Option<Mutex<Profile>>,
    /// For each slot a step computes, that step (used by lazy runs).
    pub(super) producer: HashMap<usize, usize>,
    /// For lazy runs: the steps each step waits for besides its inputs
    /// (readers of what it destroys; see `destroy_order.rs`).
    pub(super) before: HashMap<usize, Vec<usize>>,
    /// Whether some step is lazy: the program then runs on demand from its
    /// outputs, so branches nobody asks for are never computed.
    lazy: bool,
    /// Whether some step runs host code (e.g. a Python op).
    host: bool,
    /// Whether the program is one step computing exactly its outputs, in
    /// order, from inputs and constants (the common `x * 2 + 1`, fused): a
    /// call then runs it without storage slots (see [`Program::run_single`]).
    single: bool,
    /// For each input, whether every step reading it reads bools as bytes
    /// (see [`Program::takes_bool_bytes`]).
    bool_bytes: Vec<bool>,
    /// The checks every node runs under (see `checked.rs`).
    pub(super) checker: Option<Arc<dyn StepChecker>>,
    /// The program a checked call's outputs are compared with.
    pub(super) reference: Option<Arc<Program>>,
    /// The outputs, printed (for a checker's messages; empty unchecked).
    pub(super) output_labels: Vec<String>,
    /// For each input, whether a step destroys it (see
    /// [`Program::destroys_input`]).
    destroyed: Vec<bool>,
}

/// Inputs plus constants up to this many elements make a run short enough
/// (a few µs at most) that a host may run it without giving up its global
/// lock: releasing and retaking the GIL costs more than such a run.
const SMALL_RUN_ELEMENTS: usize = 1 << 10;

impl Program {
    /// Links `fg`: nodes in `host_thunks` use those thunks, every other node
    /// its op's `perform`.
    pub fn link(
        fg: &FunctionGraph,
        mut host_thunks: HashMap<NodeId, Box<dyn Thunk>>,
        opts: &LinkOptions,
    ) -> Result<Program> {
        // Kernels trust the types they are linked with.
        crate::graph::check_graph_types(fg)?;
        // Forks after this are noticed (see `fork.rs`).
        super::fork::watch();
        let g = fg.graph();
        let schedule = crate::graph::destroy::schedule(fg)?;
        let order = schedule.order;
        let mut srcs: HashMap<VarId, Src> = HashMap::new();
        for (i, &v) in fg.inputs().iter().enumerate() {
            srcs.insert(v, Src::Input(i));
        }
        let (mut constants, mut n_slots) = (Vec::new(), 0);
        // A constant's value is stored once, when first seen; every other
        // variable gets a storage slot.
        let mut src = |v: VarId| {
            *srcs.entry(v).or_insert_with(|| match &g.var(v).kind {
                VarKind::Constant(c) => {
                    constants.push(c.value.clone());
                    Src::Const(constants.len() - 1)
                }
                _ => {
                    n_slots += 1;
                    Src::Slot(n_slots - 1)
                }
            })
        };
        let mut steps = Vec::with_capacity(order.len());
        for &n in &order {
            let node = g.node(n);
            let (thunk, destroys) = match host_thunks.remove(&n) {
                Some(t) => (t, None),
                None => (native_thunk(fg, n), destroyed_input(fg, n)),
            };
            let inputs: Vec<Src> = node.inputs.iter().map(|&v| src(v)).collect();
            let outputs = node.outputs.iter().map(|&v| slot_of(src(v))).collect();
            steps.push(Step {
                thunk,
                op: node.op.clone(),
                run_inputs: inputs.clone(),
                inputs,
                outputs,
                output_types: types(fg, &node.outputs),
                label: g.describe_node(n),
                frees: Vec::new(),
                donor: None,
                destroys,
            });
        }
        let outputs: Vec<Src> = fg.outputs().iter().map(|&v| src(v)).collect();
        let barriers = destroying_steps(fg, &order);
        prepare_constants(&mut steps, &mut constants);
        let lazy = steps.iter().any(|st| st.thunk.is_lazy());
        let before = if lazy && !barriers.is_empty() {
            steps_before(&order, &schedule.before)
        } else {
            HashMap::new()
        };
        // On-demand runs skip steps, so "last reader" is not known ahead.
        if opts.allow_gc && !lazy {
            schedule_frees(&mut steps, &outputs);
            if opts.checker.is_none() {
                mark_donors(&mut steps);
            }
        }
        let profile = opts
            .profile
            .then(|| Mutex::new(initial_profile(fg, &order, &steps)));
        let producer = steps
            .iter()
            .enumerate()
            .flat_map(|(k, st)| st.outputs.iter().map(move |&o| (o, k)))
            .collect();
        let constant_elements = constants.iter().map(elements).sum();
        let single = !lazy
            && profile.is_none()
            && steps.len() == 1
            && steps[0].outputs.len() == outputs.len()
            && outputs
                .iter()
                .zip(&steps[0].outputs)
                .all(|(&o, &s)| o == Src::Slot(s));
        let bool_bytes = (0..fg.inputs().len())
            .map(|i| reads_only_bytes(&steps, &outputs, i))
            .collect();
        let destroyed = destroyed_mutable_inputs(fg, &steps);
        let output_labels = match opts.checker {
            Some(_) => fg.outputs().iter().map(|&v| g.describe_var(v)).collect(),
            None => Vec::new(),
        };
        Ok(Program {
            checker: opts.checker.clone(),
            reference: None,
            output_labels,
            destroyed,
            bool_bytes,
            single,
            producer,
            before,
            lazy,
            host: steps.iter().any(|st| st.thunk.is_host()),
            steps,
            n_slots,
            input_types: types(fg, fg.inputs()),
            outputs,
            constants,
            constant_elements,
            workspace: Mutex::default(),
            profile,
        })
    }

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

/// Node `n`'s thunk: the op's own (made once here, `Op::make_thunk`), or
/// one calling its `perform`.
fn native_thunk(fg: &FunctionGraph, n: NodeId) -> Box<dyn Thunk> {
    let node = fg.graph().node(n);
    let (ins, outs) = (types(fg, &node.inputs), types(fg, &node.outputs));
    match node.op.make_thunk(&ins, &outs) {
        Some(t) => t,
        None => Box::new(OpThunk::new(node.op.clone(), ins, outs)),
    }
}

/// Whether input `i` is read only by steps that read bools as bytes (and
/// is not returned as an output).
fn reads_only_bytes(steps: &[Step], outputs: &[Src], i: usize) -> bool {
    let me = Src::Input(i);
    !outputs.contains(&me)
        && steps.iter().all(|st| {
            st.inputs
                .iter()
                .enumerate()
                .all(|(j, &s)| s != me || st.thunk.reads_bool_bytes(j))
        })
}

fn types(fg: &FunctionGraph, vars: &[VarId]) -> Vec<Type> {
    vars.iter().map(|&v| fg.graph().var(v).ty.clone()).collect()
}

fn slot_of(src: Src) -> usize {
    match src {
        Src::Slot(s) => s,
        other => unreachable!("a node output is computed, not {other:?}"),
    }
}

fn elements(v: &Value) -> usize {
    match v {
        Value::Tensor(t) => t.len(),
        Value::Host(_) => 1,
    }
}

/// Lets each thunk precompute what it would derive from a constant input
/// on every call (an elementwise op's cast to its computation dtype).
fn prepare_constants(steps: &mut [Step], constants: &mut Vec<Value>) {
    for step in steps {
        for (i, src) in step.run_inputs.iter_mut().enumerate() {
            if let Src::Const(c) = *src {
                if let Some(v) = step.thunk.prepare_constant(i, &constants[c]) {
                    constants.push(v);
                    *src = Src::Const(constants.len() - 1);
                }
            }
        }
    }
}

/// Marks each slot to be freed after its last reader; outputs are kept.
fn schedule_frees(steps: &mut [Step], outputs: &[Src]) {
    let mut last: HashMap<usize, usize> = HashMap::new();
    for (k, step) in steps.iter().enumerate() {
        for &src in &step.inputs {
            if let Src::Slot(s) = src {
                last.insert(s, k);
            }
        }
    }
    for (s, k) in last {
        if !outputs.contains(&Src::Slot(s)) {
            steps[k].frees.push(s);
        }
    }
}

/// Every output must be set and match its declared type.
pub(super) fn check_outputs(types: &[Type], outs: &[Option<Value>]) -> Result<()> {
    for (i, (v, ty)) in outs.iter().zip(types).enumerate() {
        let Some(v) = v else {
            return Err(Error::Value(format!("output {i} was not computed")));
        };
        if let (Value::Tensor(t), Type::Tensor(tt)) = (v, ty) {
            if t.dtype() != tt.dtype {
                return Err(Error::Type(format!(
                    "output {i} should be {tt}, got dtype {} with shape {:?}",
                    t.dtype(),
                    t.shape()
                )));
            }
            if !tt.fits(t.shape()) {
                tt.check_shape(t.shape())
                    .map_err(|e| Error::Type(format!("output {i} should be {tt}: {e}")))?;
            }
        }
        if let (Value::Tensor(t), Type::Scalar(dtype)) = (v, ty) {
            if t.dtype() != *dtype || t.ndim() != 0 {
                return Err(Error::Type(format!(
                    "output {i} should be a {dtype} scalar, got dtype {} with shape {:?}",
                    t.dtype(),
                    t.shape()
                )));
            }
        }
    }
    Ok(())
}

/// PyTensor's `raise_with_op` context: the node, its position and its inputs.
pub(super) fn node_context(k: usize, label: &str, inputs: &[&Value]) -> String {
    let shapes: Vec<String> = inputs
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => format!("{:?}", t.shape()),
            Value::Host(_) => "host value".into(),
        })
        .collect();
    let dtypes: Vec<String> = inputs
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => t.dtype().to_string(),
            Value::Host(_) => "host".into(),
        })
        .collect();
    format!(
        "{label}\nToposort index: {k}\nInputs shapes: [{}]\nInputs dtypes: [{}]",
        shapes.join(", "),
        dtypes.join(", ")
    )
}

fn initial_profile(fg: &FunctionGraph, order: &[NodeId], steps: &[Step]) -> Profile {
    let nodes = order
        .iter()
        .zip(steps)
        .map(|(&n, step)| NodeStats {
            node: fg.graph().describe_node(n),
            op_class: fg.graph().node(n).op.name().to_owned(),
            host: step.thunk.is_host(),
            ..Default::default()
        })
        .collect();
    Profile {
        nodes,
        ..Default::default()
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

/// Links `fg` with native thunks only, with or without the linker's
/// merges (`argmin`, `var`; a profiled program has none): what tests compare.
#[cfg(test)]
pub(super) fn link_native(fg: &FunctionGraph, merge: bool) -> Program {
    let opts = LinkOptions {
        profile: !merge,
        ..LinkOptions::default()
    };
    Program::link(fg, HashMap::new(), &opts).expect("links")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::Graph;
    use crate::tensor::{Scalar, Tensor};
    use crate::types::TensorType;

    fn f64s(v: &Value) -> Vec<f64> {
        let t = v.tensor().unwrap();
        (0..t.len())
            .map(|i| {
                if let Scalar::Float(x, _) = t.get(i) {
                    x
                } else {
                    f64::NAN
                }
            })
            .collect()
    }

    #[test]
    fn runs_a_chain_and_recycles() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let two = g.tensor_constant(Tensor::scalar(2.0f64));
        let mut y = x;
        for _ in 0..5 {
            y = build::mul(&mut g, y, two).unwrap();
        }
        let s = build::sum(&mut g, y, None).unwrap();
        let fg = FunctionGraph::new(g, vec![x], vec![y, s]).unwrap();
        let prog = Program::link(
            &fg,
            HashMap::new(),
            &LinkOptions {
                allow_gc: true,
                profile: true,
                checker: None,
            },
        )
        .unwrap();
        let input = Tensor::from_vec(vec![3], vec![1.0, 2.0, 3.0]).unwrap();
        let out = prog.run(vec![input.into()]).unwrap();
        assert_eq!(f64s(&out[0]), vec![32.0, 64.0, 96.0]);
        assert_eq!(f64s(&out[1]), vec![192.0]);
        assert!(
            !prog.workspace.lock().unwrap().pool.is_empty(),
            "dead intermediates were recycled"
        );
        assert_eq!(prog.profile().unwrap().calls, 1);
    }

    #[test]
    fn lazy_ifelse_computes_one_branch() {
        use crate::ops::ifelse::IfElse;
        let mut g = Graph::new();
        let c = g.input(TensorType::scalar(DType::Bool), Some("c"));
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let y = g.input(TensorType::with_ndim(DType::Float64, 1), Some("y"));
        let bad = build::add(&mut g, x, y).unwrap();
        let good = build::exp(&mut g, x).unwrap();
        let out = g
            .apply_out(std::sync::Arc::new(IfElse { n_outs: 1 }), &[c, good, bad])
            .unwrap();
        let fg = FunctionGraph::new(g, vec![c, x, y], vec![out]).unwrap();
        let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
        let xv = Tensor::from_vec(vec![2], vec![0.0, 0.0]).unwrap();
        let yv = Tensor::from_vec(vec![3], vec![1.0; 3]).unwrap();
        // `x + y` would fail on these shapes: it must not run.
        let out = prog
            .run(vec![
                Tensor::scalar(true).into(),
                xv.clone().into(),
                yv.clone().into(),
            ])
            .unwrap();
        assert_eq!(f64s(&out[0]), vec![1.0, 1.0]);
        assert!(prog
            .run(vec![Tensor::scalar(false).into(), xv.into(), yv.into()])
            .is_err());
    }

    #[test]
    fn lazy_profiles_count_the_nodes_that_ran() {
        use crate::ops::ifelse::IfElse;
        let mut g = Graph::new();
        let c = g.input(TensorType::scalar(DType::Bool), Some("c"));
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let then = build::exp(&mut g, x).unwrap();
        let other = build::neg(&mut g, x).unwrap();
        let out = g
            .apply_out(std::sync::Arc::new(IfElse { n_outs: 1 }), &[c, then, other])
            .unwrap();
        let fg = FunctionGraph::new(g, vec![c, x], vec![out]).unwrap();
        let opts = LinkOptions {
            allow_gc: true,
            profile: true,
            checker: None,
        };
        let prog = Program::link(&fg, HashMap::new(), &opts).unwrap();
        let xv = Tensor::from_vec(vec![1], vec![0.0]).unwrap();
        prog.run(vec![Tensor::scalar(true).into(), xv.into()])
            .unwrap();
        let calls: Vec<(String, u64)> = prog
            .profile()
            .unwrap()
            .nodes
            .iter()
            .map(|n| (n.op_class.clone(), n.calls))
            .collect();
        assert!(calls.contains(&("IfElse".into(), 1)), "{calls:?}");
        let ran: u64 = calls.iter().map(|(_, n)| n).sum();
        assert_eq!(ran, 2, "if{{}} and the taken branch only: {calls:?}");
    }

    #[test]
    fn outputs_may_be_inputs_constants_or_repeats() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let c = g.tensor_constant(Tensor::from_vec(vec![2], vec![5.0f64, 6.0]).unwrap());
        let y = build::neg(&mut g, x).unwrap();
        let fg = FunctionGraph::new(g, vec![x], vec![x, c, y, y]).unwrap();
        let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
        let input: Value = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap().into();
        // Twice: the workspace kept from the first call must start empty.
        for _ in 0..2 {
            let out = prog.run(std::slice::from_ref(&input)).unwrap();
            let got: Vec<Vec<f64>> = out.iter().map(f64s).collect();
            assert_eq!(
                got,
                [
                    vec![1.0, 2.0],
                    vec![5.0, 6.0],
                    vec![-1.0, -2.0],
                    vec![-1.0, -2.0]
                ]
            );
        }
    }

    #[test]
    fn prepared_constants_compute_the_same_and_errors_show_them_as_declared() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let c = g.tensor_constant(Tensor::from_vec(vec![2], vec![2i8, -3]).unwrap());
        let y = build::mul(&mut g, x, c).unwrap();
        let fg = FunctionGraph::new(g, vec![x], vec![y]).unwrap();
        let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
        assert!(
            prog.constants
                .iter()
                .any(|v| v.tensor().unwrap().dtype() == DType::Float64),
            "the int8 constant was cast once, at link time"
        );
        let two = Tensor::from_vec(vec![2], vec![1.5f64, 2.0]).unwrap();
        assert_eq!(
            f64s(&prog.run(vec![two.into()]).unwrap()[0]),
            vec![3.0, -6.0]
        );
        let three = Tensor::from_vec(vec![3], vec![1.0f64; 3]).unwrap();
        let err = prog.run(vec![three.into()]).unwrap_err().to_string();
        assert!(err.contains("Inputs dtypes: [float64, int8]"), "{err}");
    }

    #[test]
    fn small_runs_count_inputs_and_constants() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let c = g.tensor_constant(Tensor::from_vec(vec![1000], vec![1.0f64; 1000]).unwrap());
        let y = build::add(&mut g, x, c).unwrap();
        let fg = FunctionGraph::new(g, vec![x], vec![y]).unwrap();
        let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
        let input =
            |n: usize| -> Vec<Value> { vec![Tensor::zeros(DType::Float64, &[n]).unwrap().into()] };
        // 1000 constant elements plus the input's, against 1024.
        assert!(prog.is_small_run(&input(24)));
        assert!(!prog.is_small_run(&input(25)));
    }

    #[test]
    fn one_step_programs_run_directly_and_take_outputs_back() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let y = build::neg(&mut g, x).unwrap();
        let link = |outs: Vec<VarId>| {
            let fg = FunctionGraph::new(g.clone(), vec![x], outs).unwrap();
            Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap()
        };
        let prog = link(vec![y]);
        assert!(prog.single);
        let input: Value = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap().into();
        let out = prog.run(std::slice::from_ref(&input)).unwrap();
        assert_eq!(f64s(&out[0]), [-1.0, -2.0]);
        let t = out[0].tensor().unwrap().clone();
        let ptr = t.as_ptr();
        drop(out);
        // Given back, the output's buffer serves the next call.
        prog.recycle(t);
        let again = prog.run(std::slice::from_ref(&input)).unwrap();
        assert_eq!(again[0].tensor().unwrap().as_ptr(), ptr);
        assert_eq!(f64s(&again[0]), [-1.0, -2.0]);
        // Repeated outputs, or outputs that are not the step's, go through
        // storage.
        assert!(!link(vec![y, y]).single);
        assert!(!link(vec![x, y]).single);
    }

    #[test]
    fn errors_name_the_node() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let y = g.input(TensorType::with_ndim(DType::Float64, 1), Some("y"));
        let z = build::add(&mut g, x, y).unwrap();
        let fg = FunctionGraph::new(g, vec![x, y], vec![z]).unwrap();
        let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
        let a = Tensor::from_vec(vec![3], vec![1.0; 3]).unwrap();
        let b = Tensor::from_vec(vec![2], vec![1.0; 2]).unwrap();
        let err = prog.run(vec![a.into(), b.into()]).unwrap_err().to_string();
        assert!(
            err.contains("Apply node that caused the error: Add(x, y)"),
            "{err}"
        );
        assert!(err.contains("Inputs shapes: [[3], [2]]"), "{err}");
    }

    #[test]
    fn bool_inputs_read_as_bytes_skip_the_check() {
        use crate::scalar::ScalarKind;
        let mut g = Graph::new();
        let ty = TensorType::with_ndim(DType::Bool, 1);
        let (x, y, w, v) = (
            g.input(ty.clone(), Some("x")),
            g.input(ty.clone(), Some("y")),
            g.input(ty.clone(), Some("w")),
            g.input(ty, Some("v")),
        );
        let z = build::elemwise(&mut g, ScalarKind::And, &[x, y]).unwrap();
        let n = build::elemwise(&mut g, ScalarKind::Invert, &[z]).unwrap();
        let f = build::cast(&mut g, w, DType::Float64).unwrap();
        let any = build::reduce(&mut g, crate::reduction::ReduceKind::Any, v, None).unwrap();
        let fg = FunctionGraph::new(g, vec![x, y, w, v], vec![n, f, y, any]).unwrap();
        let prog = Program::link(&fg, HashMap::new(), &LinkOptions::default()).unwrap();
        // `x` only feeds `and` and `v` `any`; `y` is also an output; `w` is
        // cast (read as bool).
        let flags: Vec<bool> = (0..5).map(|i| prog.takes_bool_bytes(i)).collect();
        assert_eq!(flags, [true, false, false, true, false]);
        let raw = Tensor::from_bytes(DType::Bool, vec![3], vec![2, 0, 0x80]).unwrap();
        let ones = Tensor::from_bytes(DType::Bool, vec![3], vec![1, 1, 0]).unwrap();
        let out = prog
            .run(vec![
                raw.clone().into(),
                ones.clone().into(),
                ones.into(),
                raw.into(),
            ])
            .unwrap();
        let got: Vec<Scalar> = (0..3).map(|i| out[0].tensor().unwrap().get(i)).collect();
        assert_eq!(got, [false, true, true].map(Scalar::Bool));
        assert_eq!(out[3].tensor().unwrap().get(0), Scalar::Bool(true));
    }
}
