//! Link-time elementwise fusion: a chain (or tree) of float elementwise
//! steps whose intermediates nobody else reads becomes one step. It walks
//! the output in blocks that stay in cache, running the same kernels the
//! separate steps would (so results are bit-identical) on block-sized
//! scratch, and so never materialises the intermediates: a 20-op chain
//! needs one output array instead of a pool of temporaries, and a small
//! call pays for one step instead of one per node.
//!
//! The graph is not changed (`dprint` of a compiled function shows every
//! node, and profiling, which times nodes, links without fusion). When the
//! inputs of a call are not all C-contiguous at the output's shape or
//! single elements, the fused step runs its nodes one by one, as unfused.

use super::program::{check_outputs, node_context, Src, Step};
use super::thunk::Thunk;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::{output, Pool};
use crate::kernels::cast::cast;
use crate::kernels::elemwise::run_kind;
use crate::kernels::tiny::{TinyArg, TinyProgram, TINY_MAX};
use crate::kernels::PARALLEL_MIN;
use crate::ops::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};
use crate::types::{TensorType, Type};
use crate::value::Value;
use rayon::prelude::*;
use smallvec::SmallVec;
use std::collections::HashMap;

/// Elements per block: a block of every intermediate stays in L2.
const BLOCK: usize = 2048;

/// What the linker knows of a step that may join a fused group.
#[derive(Clone, Debug)]
pub(super) struct Fusible {
    pub(super) dtype: DType,
    pub(super) ndim: usize,
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
enum Operand {
    /// The fused step's input at this position.
    Leaf(usize),
    /// The result of the instruction at this position.
    Tmp(usize),
}

/// One node of the group.
struct Instr {
    kind: ScalarKind,
    args: SmallVec<[Operand; 3]>,
    /// The node's own thunk, label and output type, for the unfused path.
    thunk: Box<dyn Thunk>,
    label: String,
    output_type: Type,
    /// The node's position in the unfused program (for error messages).
    index: usize,
}

/// The fused step's thunk.
pub(super) struct FusedThunk {
    dtype: DType,
    instrs: Vec<Instr>,
    /// Per leaf, its static type (which dimensions may broadcast).
    leaf_types: Vec<TensorType>,
    /// Per leaf, a constant of another dtype converted once, at link time.
    converted: Vec<Option<Tensor>>,
    /// Whether a leaf that is not a constant may have another dtype (and
    /// so be converted on every call).
    cast_at_run: bool,
    /// The group element by element, for outputs of a few elements.
    tiny: Option<TinyProgram>,
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
                match fusible[k].as_ref().map(|f| f.dtype) {
                    Some(dtype) => out.push(fused_step(taken, dtype, &leaf)),
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
/// program output.
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
            let me = fusible[k].as_ref()?;
            let [slot] = st.outputs[..] else { return None };
            let [reader] = readers.get(&slot)?[..] else {
                return None;
            };
            let them = fusible[reader].as_ref()?;
            let fits = them.dtype == me.dtype && them.ndim == me.ndim && !is_output(slot);
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
fn fused_step(group: Vec<(usize, Step)>, dtype: DType, leaf: &impl Fn(Src) -> Leaf) -> Step {
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
    let known: Vec<Leaf> = leaves.iter().map(|&s| leaf(s)).collect();
    let converted = known
        .iter()
        .map(|l| {
            let c = l.constant.as_ref()?;
            (c.dtype() != dtype).then(|| cast(c, dtype))
        })
        .collect();
    let cast_at_run = known
        .iter()
        .any(|l| l.constant.is_none() && l.ty.as_ref().is_none_or(|t| t.dtype != dtype));
    let leaf_types = known
        .into_iter()
        .map(|l| l.ty.unwrap_or_else(|| TensorType::with_ndim(dtype, 0)))
        .collect();
    let tiny = TinyProgram::new(dtype, &tiny_instrs(&instrs));
    Step::fused(
        Box::new(FusedThunk {
            dtype,
            instrs,
            leaf_types,
            converted,
            cast_at_run,
            tiny,
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

impl FusedThunk {
    /// The output shape when every leaf is C-contiguous at it or a single
    /// element that its static type lets broadcast; `None` otherwise.
    fn blocked_shape(&self, leaves: &[&Tensor]) -> Option<SmallVec<[usize; 4]>> {
        let full = leaves
            .iter()
            .find(|t| t.len() != 1)
            .unwrap_or(leaves.first()?);
        let shape = full.shape();
        let ok = leaves.iter().zip(&self.leaf_types).all(|(t, ty)| {
            if t.shape() == shape {
                return t.is_c_contiguous();
            }
            // A static 1 is what lets a dimension broadcast.
            t.len() == 1
                && t.ndim() == shape.len()
                && shape
                    .iter()
                    .zip(&ty.shape)
                    .all(|(&n, &b)| n == 1 || b == Some(1))
        });
        ok.then(|| shape.into())
    }

    /// The group's nodes one by one (the path for strided or partly
    /// broadcast inputs); errors name the node that failed.
    fn run_unfused(&self, leaves: &[&Value], pool: &mut Pool) -> Result<Value> {
        let mut tmps: Vec<Option<Value>> = Vec::with_capacity(self.instrs.len());
        for ins in &self.instrs {
            let args: SmallVec<[&Value; 4]> = ins
                .args
                .iter()
                .map(|&a| match a {
                    Operand::Leaf(i) => Ok(leaves[i]),
                    Operand::Tmp(t) => tmps[t]
                        .as_ref()
                        .ok_or_else(|| Error::Value("a fused intermediate is missing".into())),
                })
                .collect::<Result<_>>()?;
            let mut outs = [None];
            ins.thunk
                .run(&args, &mut outs, pool)
                .and_then(|()| check_outputs(std::slice::from_ref(&ins.output_type), &outs))
                .map_err(|e| e.at_node(node_context(ins.index, &ins.label, &args)))?;
            drop(args);
            tmps.push(outs[0].take());
        }
        tmps.pop()
            .flatten()
            .ok_or_else(|| Error::Value("a fused group computed nothing".into()))
    }

    /// Runs the instructions over `out` = elements `[start, start + len)`
    /// of the output, in blocks, the leaves read at the same positions (or
    /// broadcast).
    fn run_range<T: Element>(&self, leaves: &[&Tensor], out: &mut [T], start: usize) -> Result<()> {
        let mut scratch: Vec<Tensor> = Vec::new();
        for (b, part) in out.chunks_mut(BLOCK).enumerate() {
            let (at, len) = (start + b * BLOCK, part.len());
            if scratch.first().is_none_or(|t| t.len() != len) {
                scratch = (0..self.instrs.len())
                    .map(|_| Tensor::uninit(self.dtype, &[len]))
                    .collect();
            }
            let views = leaves
                .iter()
                .map(|t| block_view(t, at, len))
                .collect::<Result<SmallVec<[Tensor; 4]>>>()?;
            let refs: SmallVec<[&Tensor; 4]> = views.iter().collect();
            let (body, last) = scratch.split_at_mut(self.instrs.len() - 1);
            self.run_into(&refs, body, &mut last[0])?;
            let done = last[0]
                .as_slice::<T>()
                .ok_or_else(|| Error::Value("fused scratch is not contiguous".into()))?;
            part.copy_from_slice(done);
        }
        Ok(())
    }

    /// Every instruction: instruction `j < n - 1` writes `scratch[j]`, the
    /// last writes `out`.
    fn run_into(&self, leaves: &[&Tensor], scratch: &mut [Tensor], out: &mut Tensor) -> Result<()> {
        for (j, ins) in self.instrs.iter().enumerate() {
            let (done, rest) = scratch.split_at_mut(j.min(scratch.len()));
            let args: SmallVec<[&Tensor; 4]> = ins
                .args
                .iter()
                .map(|&a| match a {
                    Operand::Leaf(i) => leaves[i],
                    Operand::Tmp(t) => &done[t],
                })
                .collect();
            let dst = match rest.first_mut() {
                Some(d) if j < self.instrs.len() - 1 => d,
                _ => &mut *out,
            };
            run_kind(ins.kind, self.dtype, &args, dst)?;
        }
        Ok(())
    }

    /// The whole output, in parallel chunks of blocks when it is large.
    fn run_blocks<T: Element>(&self, leaves: &[&Tensor], out: &mut Tensor) -> Result<()> {
        let total = out.len();
        let ys = out
            .as_mut_slice::<T>()
            .ok_or_else(|| Error::Value("a fresh output is not writable".into()))?;
        if total < PARALLEL_MIN {
            return self.run_range(leaves, ys, 0);
        }
        let chunk = BLOCK * 8;
        ys.par_chunks_mut(chunk)
            .enumerate()
            .try_for_each(|(c, part)| self.run_range(leaves, part, c * chunk))
    }
}

/// Elements `[at, at + len)` of a C-contiguous tensor as a vector, or the
/// single element of a broadcast one.
fn block_view(t: &Tensor, at: usize, len: usize) -> Result<Tensor> {
    let size = t.dtype().itemsize();
    if t.len() == 1 {
        return t.view(&[1], &[size as isize], t.offset());
    }
    t.view(&[len], &[size as isize], t.offset() + at * size)
}

impl FusedThunk {
    /// The group element by element when its output has at most
    /// [`TINY_MAX`] elements and every leaf is of the group's dtype (after
    /// the link-time conversions) and laid out as [`Self::blocked_shape`]
    /// requires; `None` when that does not apply (a call on large arrays
    /// is turned away at the first leaf).
    fn run_tiny(&self, inputs: &[&Value], pool: &mut Pool) -> Option<Value> {
        let tiny = self.tiny.as_ref()?;
        let mut leaves: SmallVec<[&Tensor; 4]> = SmallVec::new();
        for (v, converted) in inputs.iter().zip(&self.converted) {
            let t = match converted {
                Some(c) => c,
                None => v.tensor().ok()?,
            };
            if t.dtype() != self.dtype || t.len() > TINY_MAX {
                return None;
            }
            leaves.push(t);
        }
        let shape = self.blocked_shape(&leaves)?;
        let mut out = output(Some(&mut *pool), self.dtype, &shape);
        match tiny.run(&leaves, &mut out) {
            Some(()) => Some(out.into()),
            None => {
                pool.recycle(out);
                None
            }
        }
    }
}

impl Thunk for FusedThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        if let Some(v) = self.run_tiny(inputs, pool) {
            // A few elements: no scratch tensors, no kernel per node.
            outputs[0] = Some(v);
            return Ok(());
        }
        let tensors: Option<SmallVec<[&Tensor; 4]>> =
            inputs.iter().map(|v| v.tensor().ok()).collect();
        let shape = tensors.as_ref().and_then(|t| self.blocked_shape(t));
        let (Some(tensors), Some(shape)) = (tensors, shape) else {
            outputs[0] = Some(self.run_unfused(inputs, pool)?);
            return Ok(());
        };
        // Leaves of another dtype, converted as each node would convert
        // them (constants once, at link time).
        let mut per_call: SmallVec<[Option<Tensor>; 4]> = SmallVec::new();
        if self.cast_at_run {
            per_call.extend(tensors.iter().zip(&self.converted).map(|(t, c)| {
                (c.is_none() && t.dtype() != self.dtype).then(|| cast(t, self.dtype))
            }));
        }
        let tensors: SmallVec<[&Tensor; 4]> = tensors
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let per = per_call.get(i).and_then(Option::as_ref);
                self.converted[i].as_ref().or(per).unwrap_or(t)
            })
            .collect();
        let mut out = output(Some(&mut *pool), self.dtype, &shape);
        if out.len() <= BLOCK {
            // One block: the leaves as they are, scratch at the output's shape.
            // Scratch from the pool and back: small calls allocate nothing.
            let mut scratch: SmallVec<[Tensor; 4]> = (1..self.instrs.len())
                .map(|_| pool.take(self.dtype, &shape))
                .collect();
            let done = self.run_into(&tensors, &mut scratch, &mut out);
            scratch.into_iter().for_each(|t| pool.recycle(t));
            done?;
        } else if self.dtype == DType::Float32 {
            self.run_blocks::<f32>(&tensors, &mut out)?;
        } else {
            self.run_blocks::<f64>(&tensors, &mut out)?;
        }
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn names_its_nodes(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::program::{LinkOptions, Program};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph, VarId};
    use crate::tensor::{Scalar, Tensor};
    use crate::types::TensorType;
    use crate::value::Value;
    use std::collections::HashMap;

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
        let opts = LinkOptions {
            fuse,
            ..LinkOptions::default()
        };
        Program::link(fg, HashMap::new(), &opts).unwrap()
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
        crate::kernels::cast::cast(&t, dtype).into()
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
    fn strided_and_broadcast_inputs_run_unfused() {
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
