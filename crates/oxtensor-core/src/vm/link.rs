//! Linking: the toposort of a function graph becomes the [`Program`]'s
//! steps, each reading the caller's inputs, the program's constants or the
//! storage slots of computed values, with the slots freed after their last
//! reader and the constants prepared once for the thunks that read them.

use super::checked::StepChecker;
use super::destroy_grant::{destroyed_inputs, destroyed_mutable_inputs, ArgumentRoots};
use super::destroy_order::{destroying_steps, steps_before};
use super::donation::mark_donors;
use super::profile::{NodeStats, Profile};
use super::program::{elements, Program};
use super::step::{Src, Step};
use super::thunk::{OpThunk, Thunk};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId, VarKind};
use crate::types::Type;
use crate::value::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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
        let mut roots = ArgumentRoots::default();
        for &n in &order {
            let node = g.node(n);
            let (thunk, destroys) = match host_thunks.remove(&n) {
                Some(t) => (t, Vec::new()),
                None => (native_thunk(fg, n), destroyed_inputs(fg, n, &mut roots)),
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
            witness: None,
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
