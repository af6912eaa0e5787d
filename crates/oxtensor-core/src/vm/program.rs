//! Linking and running: the toposort of a function graph becomes steps over
//! storage slots; each call fills the input slots, runs the steps, frees
//! intermediates after their last use (recycling their buffers), and
//! returns the output slots.

use super::profile::{NodeStats, Profile};
use super::thunk::{OpThunk, Thunk};
use crate::error::{Error, Result};
use crate::graph::{FunctionGraph, NodeId, VarId, VarKind};
use crate::kernels::alloc::Pool;
use crate::ops::ifelse::LazyStep;
use crate::types::Type;
use crate::value::Value;
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Linker options.
#[derive(Clone, Debug)]
pub struct LinkOptions {
    /// Free intermediates after their last use (PyTensor's `allow_gc`).
    pub allow_gc: bool,
    /// Record per-node call counts and times.
    pub profile: bool,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            allow_gc: true,
            profile: false,
        }
    }
}

struct Step {
    thunk: Box<dyn Thunk>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    output_types: Vec<Type>,
    label: String,
    /// Slots whose last reader is this step.
    frees: Vec<usize>,
}

/// A compiled, runnable function graph.
pub struct Program {
    steps: Vec<Step>,
    n_slots: usize,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    constants: Vec<(usize, Value)>,
    input_types: Vec<Type>,
    pool: Mutex<Pool>,
    profile: Option<Mutex<Profile>>,
    /// For each slot a step computes, that step (used by lazy runs).
    producer: HashMap<usize, usize>,
    /// Whether some step is lazy: the program then runs on demand from its
    /// outputs, so branches nobody asks for are never computed.
    lazy: bool,
}

impl Program {
    /// Links `fg`: nodes in `host_thunks` use those thunks, every other node
    /// its op's `perform`.
    pub fn link(
        fg: &FunctionGraph,
        mut host_thunks: HashMap<NodeId, Box<dyn Thunk>>,
        opts: &LinkOptions,
    ) -> Result<Program> {
        let g = fg.graph();
        let order = fg.toposort()?;
        let mut slots: HashMap<VarId, usize> = HashMap::new();
        let mut constants = Vec::new();
        // A slot per variable; a constant's value is stored when first seen.
        let mut slot = |v: VarId| {
            let n = slots.len();
            let s = *slots.entry(v).or_insert(n);
            if let (true, VarKind::Constant(c)) = (s == n, &g.var(v).kind) {
                constants.push((s, c.value.clone()));
            }
            s
        };
        let inputs: Vec<usize> = fg.inputs().iter().map(|&v| slot(v)).collect();
        let mut steps = Vec::with_capacity(order.len());
        for &n in &order {
            let node = g.node(n);
            let thunk = match host_thunks.remove(&n) {
                Some(t) => t,
                None => Box::new(OpThunk::new(
                    node.op.clone(),
                    types(fg, &node.inputs),
                    types(fg, &node.outputs),
                )) as Box<dyn Thunk>,
            };
            steps.push(Step {
                thunk,
                inputs: node.inputs.iter().map(|&v| slot(v)).collect(),
                outputs: node.outputs.iter().map(|&v| slot(v)).collect(),
                output_types: types(fg, &node.outputs),
                label: g.describe_node(n),
                frees: Vec::new(),
            });
        }
        let outputs: Vec<usize> = fg.outputs().iter().map(|&v| slot(v)).collect();
        let n_slots = slots.len();
        if opts.allow_gc {
            schedule_frees(&mut steps, &outputs);
        }
        let profile = opts
            .profile
            .then(|| Mutex::new(initial_profile(fg, &order, &steps)));
        let input_types = types(fg, fg.inputs());
        let producer = steps
            .iter()
            .enumerate()
            .flat_map(|(k, st)| st.outputs.iter().map(move |&o| (o, k)))
            .collect();
        let lazy = steps.iter().any(|st| st.thunk.is_lazy());
        if lazy {
            // On-demand runs skip steps, so "last reader" is not known ahead.
            steps.iter_mut().for_each(|st| st.frees.clear());
        }
        Ok(Program {
            producer,
            lazy,
            steps,
            n_slots,
            inputs,
            outputs,
            constants,
            input_types,
            pool: Mutex::default(),
            profile,
        })
    }

    /// Number of inputs the program takes.
    pub fn n_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// The declared types of the inputs.
    pub fn input_types(&self) -> &[Type] {
        &self.input_types
    }

    /// Runs the program. Values are checked against the declared output
    /// types of each node; errors name the node.
    pub fn run(&self, inputs: Vec<Value>) -> Result<Vec<Value>> {
        if inputs.len() != self.inputs.len() {
            return Err(Error::Type(format!(
                "expected {} inputs, got {}",
                self.inputs.len(),
                inputs.len()
            )));
        }
        let start = self.profile.as_ref().map(|_| Instant::now());
        let mut pool = self
            .pool
            .try_lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default();
        let mut storage: Vec<Option<Value>> = vec![None; self.n_slots];
        for (&s, v) in self.inputs.iter().zip(inputs) {
            storage[s] = Some(v);
        }
        for (s, v) in &self.constants {
            storage[*s] = Some(v.clone());
        }
        // Per step, the time it ran (`None`: skipped by a lazy run).
        let mut times = self.profile.as_ref().map(|_| vec![None; self.steps.len()]);
        if self.lazy {
            for &out in &self.outputs {
                self.demand(out, &mut storage, &mut pool, &mut times)?;
            }
        }
        // A lazy program has already run what its outputs need.
        let steps = if self.lazy {
            &self.steps[..0]
        } else {
            &self.steps[..]
        };
        for (k, step) in steps.iter().enumerate() {
            let t0 = times.as_ref().map(|_| Instant::now());
            self.run_step(k, step, &mut storage, &mut pool)?;
            if let (Some(times), Some(t0)) = (times.as_mut(), t0) {
                times[k] = Some(t0.elapsed());
            }
        }
        let outputs = self
            .outputs
            .iter()
            .map(|&s| {
                storage[s]
                    .clone()
                    .ok_or_else(|| Error::Value("an output was not computed".into()))
            })
            .collect();
        drop(storage);
        if let Ok(mut shared) = self.pool.try_lock() {
            *shared = pool;
        }
        if let (Some(p), Some(times), Some(start)) = (&self.profile, times, start) {
            record(p, times, start.elapsed());
        }
        outputs
    }

    fn run_step(
        &self,
        k: usize,
        step: &Step,
        storage: &mut [Option<Value>],
        pool: &mut Pool,
    ) -> Result<()> {
        // Inline vectors: steps rarely have more than a few inputs and outputs,
        // and this runs for every node of every call.
        let inputs: SmallVec<[Value; 4]> = step
            .inputs
            .iter()
            .map(|&s| {
                storage[s].clone().ok_or_else(|| {
                    Error::Value(format!("input slot {s} of {} is empty", step.label))
                })
            })
            .collect::<Result<_>>()?;
        let mut outs: SmallVec<[Option<Value>; 2]> = smallvec::smallvec![None; step.outputs.len()];
        let result = step
            .thunk
            .run(&inputs, &mut outs, pool)
            .and_then(|()| check_outputs(step, &outs));
        if let Err(e) = result {
            return Err(e.at_node(node_context(k, step, &inputs)));
        }
        for (&s, v) in step.outputs.iter().zip(outs) {
            storage[s] = v;
        }
        drop(inputs);
        for &s in &step.frees {
            if let Some(Value::Tensor(t)) = storage[s].take() {
                pool.recycle(t);
            }
        }
        Ok(())
    }

    /// Computes `slot` by running, depth first, only the steps it needs; a
    /// lazy step names the inputs it needs given those already computed.
    fn demand(
        &self,
        slot: usize,
        storage: &mut [Option<Value>],
        pool: &mut Pool,
        times: &mut Option<Vec<Option<Duration>>>,
    ) -> Result<()> {
        if storage[slot].is_some() {
            return Ok(());
        }
        let mut stack = vec![self.producer_of(slot)?];
        while let Some(&k) = stack.last() {
            let step = &self.steps[k];
            if step.outputs.iter().all(|&o| storage[o].is_some()) {
                stack.pop();
                continue;
            }
            let mut outs: Vec<Option<Value>> = vec![None; step.outputs.len()];
            let next = {
                let ins: Vec<Option<&Value>> =
                    step.inputs.iter().map(|&s| storage[s].as_ref()).collect();
                let owned: Vec<Value> = ins.iter().flatten().map(|v| (*v).clone()).collect();
                let t0 = Instant::now();
                let ran = step.thunk.run_lazy(&ins, &mut outs, pool);
                if let Some(t) = times.as_mut().map(|t| &mut t[k]) {
                    *t = Some(t.unwrap_or_default() + t0.elapsed());
                }
                ran.and_then(|n| {
                    if n == LazyStep::Done {
                        check_outputs(step, &outs).map(|()| n)
                    } else {
                        Ok(n)
                    }
                })
                .map_err(|e| e.at_node(node_context(k, step, &owned)))?
            };
            match next {
                LazyStep::Done => {
                    for (&s, v) in step.outputs.iter().zip(outs) {
                        storage[s] = v;
                    }
                    stack.pop();
                }
                LazyStep::Need(missing) => {
                    for i in missing {
                        let s = step.inputs[i];
                        if storage[s].is_none() {
                            stack.push(self.producer_of(s)?);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn producer_of(&self, slot: usize) -> Result<usize> {
        self.producer.get(&slot).copied().ok_or_else(|| {
            Error::Value(format!("slot {slot} has no value and no node computes it"))
        })
    }

    /// Whether `t` shares memory with one of the program's constants.
    pub fn aliases_constant(&self, t: &crate::tensor::Tensor) -> bool {
        self.constants
            .iter()
            .any(|(_, v)| matches!(v, Value::Tensor(c) if c.shares_buffer(t)))
    }

    /// Drops the buffers kept for reuse between calls.
    pub fn free(&self) {
        if let Ok(mut pool) = self.pool.lock() {
            *pool = Pool::default();
        }
    }

    /// The recorded profile, if profiling is on.
    pub fn profile(&self) -> Option<Profile> {
        self.profile
            .as_ref()
            .and_then(|p| p.lock().ok().map(|p| p.clone()))
    }
}

fn types(fg: &FunctionGraph, vars: &[VarId]) -> Vec<Type> {
    vars.iter().map(|&v| fg.graph().var(v).ty.clone()).collect()
}

/// Marks each slot to be freed after its last reader; outputs are kept.
fn schedule_frees(steps: &mut [Step], outputs: &[usize]) {
    let mut last: HashMap<usize, usize> = HashMap::new();
    for (k, step) in steps.iter().enumerate() {
        for &s in &step.inputs {
            last.insert(s, k);
        }
    }
    for (s, k) in last {
        if !outputs.contains(&s) {
            steps[k].frees.push(s);
        }
    }
}

/// Every output must be set and match its declared type.
fn check_outputs(step: &Step, outs: &[Option<Value>]) -> Result<()> {
    for (i, (v, ty)) in outs.iter().zip(&step.output_types).enumerate() {
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
            tt.check_shape(t.shape())
                .map_err(|e| Error::Type(format!("output {i} should be {tt}: {e}")))?;
        }
    }
    Ok(())
}

/// PyTensor's `raise_with_op` context: the node, its position and its inputs.
fn node_context(k: usize, step: &Step, inputs: &[Value]) -> String {
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
        "{}\nToposort index: {k}\nInputs shapes: [{}]\nInputs dtypes: [{}]",
        step.label,
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
            },
        )
        .unwrap();
        let input = Tensor::from_vec(vec![3], vec![1.0, 2.0, 3.0]).unwrap();
        let out = prog.run(vec![input.into()]).unwrap();
        assert_eq!(f64s(&out[0]), vec![32.0, 64.0, 96.0]);
        assert_eq!(f64s(&out[1]), vec![192.0]);
        assert!(
            !prog.pool.lock().unwrap().is_empty(),
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
}
