//! Link-time elementwise fusion: a chain (or tree) of float elementwise
//! steps whose intermediates nobody else reads becomes one step. It walks
//! the output in blocks that stay in cache, running the same kernels the
//! separate steps would (so results are bit-identical) on block-sized
//! scratch, and so never materialises the intermediates: a 20-op chain
//! needs one output array instead of a pool of temporaries, and a small
//! call pays for one step instead of one per node. This file forms the
//! groups; `fusion_thunk.rs` runs them, `fusion_walk.rs` plans the blocks.
//!
//! The graph is not changed (`dprint` of a compiled function shows every
//! node, and profiling, which times nodes, links without fusion). Inputs
//! may be strided or broadcast in any dimension their types allow; only a
//! call whose shapes do not broadcast runs its nodes one by one, for their
//! errors.

use super::fusion_sum::SumPart;
use super::fusion_thunk::FusedThunk;
use super::program::Src;
use super::program::Step;
use super::thunk::Thunk;
use crate::dtype::DType;
use crate::kernels::cast::cast;
use crate::kernels::tiny::{TinyArg, TinyProgram};
use crate::ops::reduce::{CAReduce, ReduceKind};
use crate::ops::scalar::ScalarKind;
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use smallvec::SmallVec;
use std::collections::HashMap;

/// What the linker knows of a step that may join a fused group.
#[derive(Clone, Debug)]
pub(super) struct Fusible {
    pub(super) dtype: DType,
    pub(super) ndim: usize,
    /// The dimensions its static type says are 1: a step joins a reader
    /// only with the same ones, so no group computes a smaller value (a
    /// row, a scalar) once per element of the output.
    pub(super) ones: SmallVec<[bool; 4]>,
    /// For a `Sum` over these axes of its input (rank `ndim`): it may only
    /// end a group, consuming the group's values block by block.
    pub(super) sum_axes: Option<SmallVec<[usize; 4]>>,
    /// A `Sum`'s accumulator dtype.
    pub(super) sum_acc: DType,
}

impl Fusible {
    /// A step of `Elemwise(kind)` qualifies when it computes a float dtype
    /// with a kind whose kernel computes in the output dtype, from real
    /// inputs of its rank (those of another dtype are converted first, as
    /// the node itself does: constants like `0.5` are float32).
    pub(super) fn of(kind: ScalarKind, inputs: &[Type], output: &Type) -> Option<Fusible> {
        use ScalarKind::*;
        let fusible_kind = matches!(
            kind,
            Add | Sub
                | Mul
                | TrueDiv
                | Pow
                | Maximum
                | Minimum
                | Neg
                | Abs
                | Sqr
                | Sqrt
                | Exp
                | Exp2
                | Expm1
                | Log
                | Log2
                | Log10
                | Log1p
                | Sin
                | Cos
                | Tan
                | Tanh
                | Sinh
                | Cosh
                | Sigmoid
                | Softplus
                | Reciprocal
        );
        let out = output.as_tensor()?;
        let float = matches!(out.dtype, DType::Float32 | DType::Float64);
        let same = inputs.iter().all(|t| {
            t.as_tensor()
                .is_some_and(|t| !t.dtype.is_complex() && t.ndim() == out.ndim())
        });
        (fusible_kind && float && same).then(|| Fusible {
            dtype: out.dtype,
            ndim: out.ndim(),
            ones: out.shape.iter().map(|&n| n == Some(1)).collect(),
            sum_axes: None,
            sum_acc: out.dtype,
        })
    }

    /// A `Sum` (`CAReduce` add) qualifies when its input and output share
    /// one float dtype, accumulated in it or in float64 (float32's default).
    pub(super) fn sum(op: &CAReduce, inputs: &[Type], output: &Type) -> Option<Fusible> {
        let [input] = inputs else { return None };
        let (input, out) = (input.as_tensor()?, output.as_tensor()?);
        let float = matches!(input.dtype, DType::Float32 | DType::Float64);
        let acc = op.acc_dtype == input.dtype || op.acc_dtype == DType::Float64;
        let same = op.dtype == input.dtype && out.dtype == op.dtype;
        (op.kind == ReduceKind::Sum && float && acc && same).then(|| Fusible {
            dtype: input.dtype,
            ndim: input.ndim(),
            ones: input.shape.iter().map(|&n| n == Some(1)).collect(),
            sum_acc: op.acc_dtype,
            sum_axes: Some(op.axes(input.ndim()).into_iter().collect()),
        })
    }
}

/// What the linker knows of a fused step's input.
pub(super) struct Leaf {
    /// Its static type.
    pub(super) ty: Option<TensorType>,
    /// Its value, when it is a constant.
    pub(super) constant: Option<Tensor>,
}

/// An operand of a fused instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Operand {
    /// The fused step's input at this position.
    Leaf(usize),
    /// The result of the instruction at this position.
    Tmp(usize),
}

/// One node of the group.
pub(super) struct Instr {
    pub(super) kind: ScalarKind,
    pub(super) args: SmallVec<[Operand; 3]>,
    /// The node's own thunk, label and output type, for the unfused path.
    pub(super) thunk: Box<dyn Thunk>,
    pub(super) label: String,
    pub(super) output_type: Type,
    /// The node's position in the unfused program (for error messages).
    pub(super) index: usize,
}

/// Replaces each group of fusible steps by one step. `fusible[k]` says
/// whether step `k` may join; `outputs` are the program's outputs (never
/// fused away). Returns the new steps.
pub(super) fn fuse(
    steps: Vec<Step>,
    fusible: &[Option<Fusible>],
    outputs: &[Src],
    leaf: impl Fn(Src) -> Leaf,
) -> Vec<Step> {
    let parent = parents(&steps, fusible, outputs);
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for k in 0..steps.len() {
        if let Some(root) = root_of(k, &parent) {
            members.entry(root).or_default().push(k);
        }
    }
    let mut slots: Vec<Option<Step>> = steps.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for k in 0..slots.len() {
        if parent[k].is_some() {
            continue; // Taken into its root's group below.
        }
        match members.remove(&k) {
            Some(group) => {
                let taken: Vec<(usize, Step)> = group
                    .iter()
                    .filter_map(|&m| Some((m, slots[m].take()?)))
                    .collect();
                match &fusible[k] {
                    Some(root) => out.push(fused_step(taken, root, &leaf)),
                    None => out.extend(taken.into_iter().map(|(_, st)| st)),
                }
            }
            None => out.extend(slots[k].take()),
        }
    }
    out
}

/// For each step, the step it is fused into: its only reader, when both
/// are fusible with the same dtype and rank and its output is not a
/// program output. A `Sum` reads into no group: it can only end one.
fn parents(steps: &[Step], fusible: &[Option<Fusible>], outputs: &[Src]) -> Vec<Option<usize>> {
    let mut readers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, st) in steps.iter().enumerate() {
        for src in &st.inputs {
            if let Src::Slot(s) = *src {
                readers.entry(s).or_default().push(k);
            }
        }
    }
    let is_output = |s: usize| outputs.contains(&Src::Slot(s));
    steps
        .iter()
        .enumerate()
        .map(|(k, st)| {
            let me = fusible[k].as_ref().filter(|f| f.sum_axes.is_none())?;
            let [slot] = st.outputs[..] else { return None };
            let [reader] = readers.get(&slot)?[..] else {
                return None;
            };
            let them = fusible[reader].as_ref()?;
            let fits = them.dtype == me.dtype
                && them.ndim == me.ndim
                && them.ones == me.ones
                && !is_output(slot);
            fits.then_some(reader)
        })
        .collect()
}

/// The root of `k`'s group, when `k` belongs to a group of two or more.
fn root_of(k: usize, parent: &[Option<usize>]) -> Option<usize> {
    let mut root = k;
    while let Some(p) = parent[root] {
        root = p;
    }
    (root != k || parent.contains(&Some(k))).then_some(root)
}

/// One step computing what `group` (in program order, the root last) did.
fn fused_step(group: Vec<(usize, Step)>, root: &Fusible, leaf: &impl Fn(Src) -> Leaf) -> Step {
    let dtype = root.dtype;
    let mut leaves: Vec<Src> = Vec::new();
    let mut made: HashMap<usize, usize> = HashMap::new();
    let mut instrs = Vec::with_capacity(group.len());
    let mut labels = Vec::with_capacity(group.len());
    let mut out_slot = 0;
    for (j, (index, st)) in group.into_iter().enumerate() {
        let args = st
            .inputs
            .iter()
            .map(|&src| match src {
                Src::Slot(s) if made.contains_key(&s) => Operand::Tmp(made[&s]),
                _ => Operand::Leaf(position_or_push(&mut leaves, src)),
            })
            .collect();
        out_slot = st.outputs[0];
        made.insert(out_slot, j);
        labels.push(st.label.clone());
        instrs.push(Instr {
            kind: st.thunk.fusible_kind().unwrap_or(ScalarKind::Identity),
            args,
            output_type: st.output_types[0].clone(),
            thunk: st.thunk,
            label: st.label,
            index,
        });
    }
    let out_type = instrs.last().map(|i| i.output_type.clone());
    let sum = root.sum_axes.clone().and_then(|axes| {
        let instr = instrs.pop()?;
        Some(SumPart {
            axes,
            acc: root.sum_acc,
            instr,
        })
    });
    let known: Vec<Leaf> = leaves.iter().map(|&s| leaf(s)).collect();
    let converted: Vec<Option<Tensor>> = known
        .iter()
        .map(|l| {
            let c = l.constant.as_ref()?;
            (c.dtype() != dtype).then(|| cast(c, dtype).ok()).flatten()
        })
        .collect();
    // Leaves of another dtype without a conversion made here (variables,
    // or a constant whose conversion ran out of memory) convert per call.
    let cast_at_run = known.iter().zip(&converted).any(|(l, c)| {
        let leaf_dtype = l
            .constant
            .as_ref()
            .map(Tensor::dtype)
            .or(l.ty.as_ref().map(|t| t.dtype));
        c.is_none() && leaf_dtype != Some(dtype)
    });
    let leaf_types = known
        .into_iter()
        .map(|l| l.ty.unwrap_or_else(|| TensorType::with_ndim(dtype, 0)))
        .collect();
    // Not for summed groups: their output is the reduction's.
    let tiny = match sum {
        Some(_) => None,
        None => TinyProgram::new(dtype, &tiny_instrs(&instrs)),
    };
    Step::fused(
        Box::new(FusedThunk {
            dtype,
            instrs,
            leaf_types,
            converted,
            cast_at_run,
            tiny,
            sum,
        }),
        leaves,
        out_slot,
        out_type.unwrap_or(Type::Disconnected),
        format!("Fused{{{}}}", labels.join(", ")),
    )
}

fn tiny_instrs(instrs: &[Instr]) -> Vec<(ScalarKind, SmallVec<[TinyArg; 3]>)> {
    let arg = |a: &Operand| match *a {
        Operand::Leaf(i) => TinyArg::Leaf(i),
        Operand::Tmp(t) => TinyArg::Tmp(t),
    };
    instrs
        .iter()
        .map(|i| (i.kind, i.args.iter().map(arg).collect()))
        .collect()
}

fn position_or_push(leaves: &mut Vec<Src>, src: Src) -> usize {
    leaves.iter().position(|&l| l == src).unwrap_or_else(|| {
        leaves.push(src);
        leaves.len() - 1
    })
}

#[cfg(test)]
mod tests {
    use super::super::program::Program;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph, VarId};
    use crate::tensor::{Scalar, Tensor};
    use crate::types::TensorType;
    use crate::value::Value;

    /// `exp(x * 2 - y) * x + 0.5f32`, and `x * 2` as an extra output when
    /// `expose` (so that part cannot be fused away).
    fn graph(dtype: DType, expose: bool) -> FunctionGraph {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(dtype, 1), Some("x"));
        let y = g.input(TensorType::with_ndim(dtype, 1), Some("y"));
        let two = g.tensor_constant(Tensor::scalar(2.0f64));
        // float32, as Python's exact `0.5` is: converted in a float64 chain.
        let half = g.tensor_constant(Tensor::scalar(0.5f32));
        let two = cast(&mut g, two, dtype);
        let x2 = build::mul(&mut g, x, two).unwrap();
        let d = build::sub(&mut g, x2, y).unwrap();
        let e = build::exp(&mut g, d).unwrap();
        let m = build::mul(&mut g, e, x).unwrap();
        let out = build::add(&mut g, m, half).unwrap();
        let outs = if expose { vec![out, x2] } else { vec![out] };
        FunctionGraph::new(g, vec![x, y], outs).unwrap()
    }

    fn cast(g: &mut Graph, v: VarId, dtype: DType) -> VarId {
        if dtype == DType::Float64 {
            return v;
        }
        build::elemwise(g, crate::ops::scalar::ScalarOp::Cast(dtype), &[v]).unwrap()
    }

    fn link(fg: &FunctionGraph, fuse: bool) -> Program {
        super::super::program::link_native(fg, fuse)
    }

    fn floats(v: &Value) -> Vec<f64> {
        let t = v.tensor().unwrap();
        (0..t.len())
            .map(|i| match t.get(i) {
                Scalar::Float(x, _) => x,
                other => panic!("not a float: {other:?}"),
            })
            .collect()
    }

    fn input(dtype: DType, n: usize, seed: f64) -> Value {
        let xs: Vec<f64> = (0..n).map(|i| ((i as f64 + seed) * 0.37).sin()).collect();
        let t = Tensor::from_vec(vec![n], xs).unwrap();
        crate::kernels::cast::cast(&t, dtype).unwrap().into()
    }

    #[test]
    fn fused_chains_match_unfused_runs_bit_for_bit() {
        for dtype in [DType::Float64, DType::Float32] {
            let fg = graph(dtype, false);
            let (fused, plain) = (link(&fg, true), link(&fg, false));
            assert!(fused.steps.len() < plain.steps.len(), "the chain was fused");
            // Empty, one block, several blocks with a tail, parallel chunks.
            for n in [0, 1, 10, 2048, 5000, 70_001] {
                let args = vec![input(dtype, n, 0.0), input(dtype, n, 1.5)];
                let (a, b) = (fused.run(&args).unwrap(), plain.run(&args).unwrap());
                let (a, b) = (a[0].tensor().unwrap(), b[0].tensor().unwrap());
                assert_eq!((a.dtype(), a.shape()), (dtype, &[n][..]));
                assert_eq!(
                    floats(&a.clone().into()),
                    floats(&b.clone().into()),
                    "n = {n}"
                );
            }
        }
    }

    #[test]
    fn values_other_nodes_read_are_kept() {
        let fg = graph(DType::Float64, true);
        let prog = link(&fg, true);
        let out = prog.run(vec![
            input(DType::Float64, 7, 0.0),
            input(DType::Float64, 7, 1.0),
        ]);
        let out = out.unwrap();
        let x = floats(&input(DType::Float64, 7, 0.0));
        assert_eq!(
            floats(&out[1]),
            x.iter().map(|v| v * 2.0).collect::<Vec<_>>()
        );
    }

    #[test]
    fn strided_inputs_fuse_and_bad_lengths_run_unfused() {
        let fg = graph(DType::Float64, false);
        let (fused, plain) = (link(&fg, true), link(&fg, false));
        let base = input(DType::Float64, 20, 0.0);
        let t = base.tensor().unwrap();
        let strided: Value = t.view(&[10], &[16], 0).unwrap().into();
        let y = input(DType::Float64, 10, 2.0);
        let args = vec![strided, y];
        let (a, b) = (fused.run(&args).unwrap(), plain.run(&args).unwrap());
        assert_eq!(floats(&a[0]), floats(&b[0]));
        // A length-1 `y` where the type does not let it broadcast: the
        // unfused path's error, naming the node once.
        let bad = vec![input(DType::Float64, 3, 0.0), input(DType::Float64, 1, 0.0)];
        let err = fused.run(&bad).unwrap_err().to_string();
        let plain_err = plain.run(&bad).unwrap_err().to_string();
        assert_eq!(err, plain_err);
        assert_eq!(err.matches("Apply node").count().max(1), 1, "{err}");
    }
}
