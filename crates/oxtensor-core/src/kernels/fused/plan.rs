//! The fused kernel's program for one node, made once at link time from
//! its `Composite` and the node's static types: which instructions run at
//! the output's shape, block by block, and which are *hoisted*: those
//! whose operands all broadcast along some dimension the output does not
//! (a row's `m / n` against a matrix) run first at their own, smaller
//! shape, and their results are read as leaves. That is fusion through
//! broadcasts at no extra arithmetic.
//!
//! Leaves are numbered: the node's inputs, then the composite's constants
//! (as 1-element tensors of the output's rank, in the group's dtype), then
//! the hoisted results.

use super::sum::SumSpec;
use super::support;
use super::tiny::{TinyArg, TinyProgram};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::elemwise::cast::cast;
use crate::scalar::composite::{Composite, Operand};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use smallvec::SmallVec;

/// An operand of a fused instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// The leaf at this position.
    Leaf(usize),
    /// The result of the instruction at this position (of the same list).
    Tmp(usize),
}

/// One elementwise kernel call per block.
#[derive(Clone, Debug)]
pub struct Instr {
    /// The kind the kernel computes.
    pub kind: crate::scalar::ScalarKind,
    /// Its operands.
    pub args: SmallVec<[Arg; 3]>,
}

/// A fused node's program (see the module docs).
pub struct FusedKernel {
    /// The dtype every instruction computes in.
    pub(super) dtype: DType,
    /// The output's rank.
    pub(super) ndim: usize,
    /// Per input of the node, its static type (which dimensions may
    /// broadcast); constants and hoisted results follow in `leaf_ones`.
    pub(super) input_types: Vec<TensorType>,
    /// The constants, 1-element tensors of the output's rank.
    pub(super) consts: Vec<Tensor>,
    /// Hoisted instructions (`Tmp` reads another hoisted result).
    pub(super) pre: Vec<Instr>,
    /// The instructions run at the output's shape.
    pub(super) instrs: Vec<Instr>,
    /// The instruction computing each output.
    pub(super) outputs: Vec<usize>,
    /// Whether an input may arrive in another dtype (converted per call).
    pub(super) cast_at_run: bool,
    /// The program element by element, for outputs of a few elements.
    pub(super) tiny: Option<TinyProgram>,
    /// A `Sum` consuming the single output block by block.
    pub(super) sum: Option<SumSpec>,
}

/// Which dimensions of a rank-`ndim` value are statically 1.
type Ones = SmallVec<[bool; 4]>;

impl FusedKernel {
    /// The program for `c` over inputs of `input_types` whose outputs are
    /// `output_types` (an `Elemwise(c)` node's), or `None` when the kernel
    /// does not run it (see `support.rs`).
    pub fn new(c: &Composite, input_types: &[Type], output_types: &[Type]) -> Option<FusedKernel> {
        let out = output_types.first()?.as_tensor()?;
        let ins: Vec<TensorType> = input_types
            .iter()
            .map(|t| t.as_tensor().cloned())
            .collect::<Option<_>>()?;
        let dtype = out.dtype;
        let fits = c.nodes().iter().all(|n| {
            let dtypes: SmallVec<[DType; 4]> = n.args.iter().map(|&a| c.dtype_of(a)).collect();
            n.dtype == dtype && support::runs_node(&n.op, &dtypes, n.dtype)
        });
        let same_rank = ins.iter().all(|t| t.ndim() == out.ndim());
        if !(fits && same_rank && ins.len() == c.nin()) {
            return None;
        }
        let consts = c
            .consts()
            .iter()
            .map(|t| full_rank(&cast(t, dtype).ok()?, out.ndim()))
            .collect::<Option<Vec<_>>>()?;
        let mut k = FusedKernel {
            dtype,
            ndim: out.ndim(),
            cast_at_run: ins.iter().any(|t| t.dtype != dtype),
            input_types: ins,
            consts,
            pre: Vec::new(),
            instrs: Vec::new(),
            outputs: Vec::new(),
            tiny: None,
            sum: None,
        };
        k.lay_out(c, &out.broadcastable())?;
        k.tiny = k.tiny_program();
        Some(k)
    }

    /// The same program ending in a `Sum` over `axes` (accumulated in
    /// `acc`) of its single output.
    pub fn with_sum(mut self, axes: &[usize], acc: DType) -> Result<FusedKernel> {
        if self.outputs.len() != 1 {
            return Err(Error::Value(
                "a summed fused program has exactly one output".into(),
            ));
        }
        self.sum = Some(SumSpec {
            axes: axes.into(),
            acc,
        });
        self.tiny = None;
        Ok(self)
    }

    /// Number of leaves besides the hoisted results.
    pub(super) fn n_fixed_leaves(&self) -> usize {
        self.input_types.len() + self.consts.len()
    }

    /// Splits `c`'s nodes into hoisted and main instructions (see the
    /// module docs); `out_ones` is the output's static broadcast pattern.
    fn lay_out(&mut self, c: &Composite, out_ones: &[bool]) -> Option<()> {
        let fixed = self.n_fixed_leaves();
        let n_inputs = self.input_types.len();
        let leaf_ones: Vec<Ones> = self
            .input_types
            .iter()
            .map(|t| t.broadcastable().into_iter().collect())
            .chain(self.consts.iter().map(|_| Ones::from_elem(true, self.ndim)))
            .collect();
        // Where each inner node's value is, and its static pattern.
        let mut at: Vec<Place> = Vec::with_capacity(c.nodes().len());
        let mut ones: Vec<Ones> = Vec::with_capacity(c.nodes().len());
        for n in c.nodes() {
            let kind = n.op.kind()?;
            let arg_ones = |a: &Operand| match *a {
                Operand::Input(i) => leaf_ones[i].clone(),
                Operand::Const(k) => leaf_ones[n_inputs + k].clone(),
                Operand::Node(j) => ones[j].clone(),
            };
            let all: Vec<Ones> = n.args.iter().map(arg_ones).collect();
            let mine: Ones = (0..self.ndim).map(|d| all.iter().all(|o| o[d])).collect();
            let hoisted = mine.iter().zip(out_ones).any(|(&m, &o)| m && !o);
            let args = n.args.iter().map(|&a| match a {
                Operand::Input(i) => Arg::Leaf(i),
                Operand::Const(k) => Arg::Leaf(n_inputs + k),
                Operand::Node(j) => match at[j] {
                    // A hoisted result read at the output's shape is a leaf.
                    Place::Pre(p) if !hoisted => Arg::Leaf(fixed + p),
                    Place::Pre(p) | Place::Main(p) => Arg::Tmp(p),
                },
            });
            let instr = Instr {
                kind,
                args: args.collect(),
            };
            at.push(if hoisted {
                self.pre.push(instr);
                Place::Pre(self.pre.len() - 1)
            } else {
                self.instrs.push(instr);
                Place::Main(self.instrs.len() - 1)
            });
            ones.push(mine);
        }
        for &o in c.outputs() {
            let t = match at[o] {
                Place::Main(t) => t,
                Place::Pre(p) => {
                    // An output broadcast from a smaller value: copied out.
                    self.instrs.push(Instr {
                        kind: crate::scalar::ScalarKind::Identity,
                        args: smallvec::smallvec![Arg::Leaf(fixed + p)],
                    });
                    self.instrs.len() - 1
                }
            };
            self.outputs.push(t);
        }
        Some(())
    }

    /// The tiny program, for a single output computed last with nothing
    /// hoisted.
    fn tiny_program(&self) -> Option<TinyProgram> {
        let last = self.instrs.len().checked_sub(1)?;
        if self.outputs != [last] || !self.pre.is_empty() {
            return None;
        }
        let arg = |a: &Arg| match *a {
            Arg::Leaf(i) => TinyArg::Leaf(i),
            Arg::Tmp(t) => TinyArg::Tmp(t),
        };
        let instrs: Vec<_> = self
            .instrs
            .iter()
            .map(|i| (i.kind, i.args.iter().map(arg).collect()))
            .collect();
        TinyProgram::new(self.dtype, &instrs)
    }
}

/// Where an inner node's value is computed.
#[derive(Clone, Copy)]
enum Place {
    /// The hoisted instruction at this position.
    Pre(usize),
    /// The main instruction at this position.
    Main(usize),
}

/// A 0-d tensor seen as a 1-element tensor of rank `ndim`.
fn full_rank(t: &Tensor, ndim: usize) -> Option<Tensor> {
    let shape = vec![1; ndim];
    let strides = vec![0; ndim];
    t.view(&shape, &strides, t.offset()).ok()
}
