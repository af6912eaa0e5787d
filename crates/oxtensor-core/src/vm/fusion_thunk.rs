//! Running a fused elementwise group (formed in `fusion.rs`): small outputs
//! in one pass over the whole arrays, larger ones block by block along the
//! plan of `fusion_walk.rs`, in parallel chunks of blocks when large.

use super::fusion::{Instr, Operand};
use super::fusion_sum::SumPart;
use super::fusion_walk::{compact, resized, Block, Walk, BLOCK};
use super::program::{check_outputs, node_context};
use super::thunk::Thunk;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::{output, Pool};
use crate::kernels::elemwise::run_kind;
use crate::kernels::order::cast_in_order;
use crate::kernels::tiny::{TinyProgram, TINY_MAX};
use crate::kernels::PARALLEL_MIN;
use crate::tensor::{Dims, Element, Tensor};
use crate::types::TensorType;
use crate::value::Value;
use rayon::prelude::*;
use smallvec::SmallVec;
use std::ops::Range;

/// Blocks per parallel task.
const TASK_BLOCKS: usize = 8;

#[cfg(test)]
thread_local! {
    /// Calls that ran their nodes one by one on this thread, so tests can
    /// tell the fused path ran.
    pub(super) static UNFUSED_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The fused step's thunk.
pub(super) struct FusedThunk {
    pub(super) dtype: DType,
    pub(super) instrs: Vec<Instr>,
    /// Per leaf, its static type (which dimensions may broadcast).
    pub(super) leaf_types: Vec<TensorType>,
    /// Per leaf, a constant of another dtype converted once, at link time.
    pub(super) converted: Vec<Option<Tensor>>,
    /// Whether a leaf that is not a constant may have another dtype (and
    /// so be converted on every call).
    pub(super) cast_at_run: bool,
    /// A `Sum` ending the group: it consumes the values block by block.
    pub(super) sum: Option<SumPart>,
    /// The group element by element, for outputs of a few elements (never
    /// with a `sum`).
    pub(super) tiny: Option<TinyProgram>,
}

impl FusedThunk {
    /// The output's shape when every leaf broadcasts to it as the nodes
    /// allow (length 1 only where its static type says 1); `None` sends the
    /// call to the unfused path, whose errors name the node that fails.
    pub(super) fn out_shape(&self, leaves: &[&Tensor]) -> Option<Dims> {
        let (first, rest) = leaves.split_first()?;
        let mut shape = Dims::from_slice(first.shape());
        for t in rest {
            if t.ndim() != shape.len() {
                return None;
            }
            for (o, &n) in shape.iter_mut().zip(t.shape()) {
                if *o == 1 {
                    *o = n;
                } else if n != 1 && n != *o {
                    return None;
                }
            }
        }
        // A length 1 against a longer output must be a static 1.
        let fits = |t: &Tensor, ty: &TensorType| {
            let mut dims = t.shape().iter().zip(&shape).enumerate();
            dims.all(|(d, (&n, &o))| n == o || (n == 1 && ty.shape.get(d) == Some(&Some(1))))
        };
        let ok = leaves
            .iter()
            .zip(&self.leaf_types)
            .all(|(t, ty)| fits(t, ty));
        // A size too big for any array also goes to the unfused path,
        // which reports it (`kernels::elemwise::output_shape`).
        (ok && crate::tensor::layout::size(&shape).is_ok()).then_some(shape)
    }

    /// The group element by element (`kernels/tiny.rs`) when its output has
    /// at most [`TINY_MAX`] elements and every leaf is of the group's dtype
    /// (after the link-time conversions), C-contiguous at the output's shape
    /// or a single element; `None` when that does not apply (a call on large
    /// arrays is turned away at its first leaf).
    fn run_tiny(&self, inputs: &[&Value], pool: &mut Pool) -> Option<Value> {
        let tiny = self.tiny.as_ref()?;
        let mut leaves: SmallVec<[&Tensor; 4]> = SmallVec::new();
        for (v, converted) in inputs.iter().zip(&self.converted) {
            let t = match (converted, v) {
                (Some(c), _) => c,
                (None, Value::Tensor(t)) => t,
                (None, Value::Host(_)) => return None,
            };
            if t.dtype() != self.dtype || t.len() > TINY_MAX {
                return None;
            }
            leaves.push(t);
        }
        let shape = self.out_shape(&leaves)?;
        if shape.iter().product::<usize>() > TINY_MAX {
            return None;
        }
        let mut out = output(Some(&mut *pool), self.dtype, &shape).ok()?;
        match tiny.run(&leaves, &mut out) {
            Some(()) => Some(out.into()),
            None => {
                pool.recycle(out);
                None
            }
        }
    }

    /// The group's nodes one by one (the path for shapes that do not
    /// broadcast); errors name the node that failed.
    fn run_unfused(&self, leaves: &[&Value], pool: &mut Pool) -> Result<Value> {
        #[cfg(test)]
        UNFUSED_RUNS.with(|c| c.set(c.get() + 1));
        let mut tmps: Vec<Option<Value>> = Vec::with_capacity(self.instrs.len() + 1);
        for ins in self
            .instrs
            .iter()
            .chain(self.sum.as_ref().map(|s| &s.instr))
        {
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

    /// Runs blocks `range` of `walk`, handing each block's result (the
    /// root's values at the block's positions) to `sink`.
    pub(super) fn run_range<T: Element>(
        &self,
        walk: &Walk,
        leaves: &[&Tensor],
        range: Range<usize>,
        mut sink: impl FnMut(Block, &[T]) -> Result<()>,
    ) -> Result<()> {
        let cap = walk.max_block();
        let fresh = || Tensor::uninit(self.dtype, &[cap]);
        let mut gathered: SmallVec<[Option<Tensor>; 4]> = (0..leaves.len())
            .map(|i| walk.gathers(i).then(fresh).transpose())
            .collect::<Result<_>>()?;
        let mut scratch: Vec<Tensor> =
            self.instrs.iter().map(|_| fresh()).collect::<Result<_>>()?;
        for b in range {
            let block = walk.block(b);
            if scratch[0].len() != block.len {
                scratch = scratch
                    .into_iter()
                    .map(|t| resized(t, block.len))
                    .collect::<Result<_>>()?;
            }
            let operands = walk.operands::<T>(leaves, block, &mut gathered)?;
            let refs: SmallVec<[&Tensor; 4]> = operands.iter().collect();
            let (body, last) = scratch.split_at_mut(self.instrs.len() - 1);
            self.run_into(&refs, body, &mut last[0])?;
            let done = last[0]
                .as_slice::<T>()
                .ok_or_else(|| Error::Value("fused scratch is not contiguous".into()))?;
            sink(block, done)?;
        }
        Ok(())
    }

    /// Every instruction: instruction `j < n - 1` writes `scratch[j]`, the
    /// last writes `out`.
    pub(super) fn run_into(
        &self,
        leaves: &[&Tensor],
        scratch: &mut [Tensor],
        out: &mut Tensor,
    ) -> Result<()> {
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

    /// The whole output, in parallel tasks of consecutive blocks when it
    /// is large (each task writes its own stretch of the output).
    fn run_blocks<T: Element>(&self, leaves: &[&Tensor], out: &mut Tensor) -> Result<()> {
        let walk = Walk::new(out.shape(), leaves);
        let total = out.len();
        let ys = out
            .as_mut_slice::<T>()
            .ok_or_else(|| Error::Value("a fresh output is not writable".into()))?;
        let n = walk.len();
        if total < PARALLEL_MIN {
            return self.run_range(&walk, leaves, 0..n, |b, v: &[T]| {
                ys[b.at..b.at + b.len].copy_from_slice(v);
                Ok(())
            });
        }
        let mut tasks = Vec::with_capacity(n.div_ceil(TASK_BLOCKS));
        let (mut rest, mut start) = (ys, 0);
        for first in (0..n).step_by(TASK_BLOCKS) {
            let blocks = first..(first + TASK_BLOCKS).min(n);
            let last = walk.block(blocks.end - 1);
            let (part, tail) = rest.split_at_mut(last.at + last.len - start);
            tasks.push((blocks, part, start));
            (rest, start) = (tail, last.at + last.len);
        }
        tasks
            .into_par_iter()
            .try_for_each(|(blocks, part, origin)| {
                self.run_range(&walk, leaves, blocks, |b, v: &[T]| {
                    part[b.at - origin..b.at - origin + b.len].copy_from_slice(v);
                    Ok(())
                })
            })
    }

    /// The group's values in one pass over the whole arrays (the leaves as
    /// they are: the kernels broadcast and stride), for outputs of at most
    /// a block, in C order: scratch at the output's shape, from the pool and
    /// back, so small calls allocate nothing.
    pub(super) fn run_whole_c(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
    ) -> Result<Tensor> {
        let mut out = output(Some(&mut *pool), self.dtype, shape)?;
        let mut scratch: SmallVec<[Tensor; 4]> = (1..self.instrs.len())
            .map(|_| pool.take(self.dtype, shape))
            .collect::<Result<_>>()?;
        let done = self.run_into(leaves, &mut scratch, &mut out);
        scratch.into_iter().for_each(|t| pool.recycle(t));
        done.map(|()| out)
    }

    /// The group's values block by block, in C order (far-strided leaves
    /// copied first, see [`compact`]), for outputs of more than a block.
    pub(super) fn run_blocks_c(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
    ) -> Result<Tensor> {
        let mut copies = SmallVec::new();
        let leaves = compact(leaves, shape, &mut copies)?;
        let mut out = output(Some(&mut *pool), self.dtype, shape)?;
        if self.dtype == DType::Float32 {
            self.run_blocks::<f32>(&leaves, &mut out)?;
        } else {
            self.run_blocks::<f64>(&leaves, &mut out)?;
        }
        Ok(out)
    }

    /// The leaves in the group's dtype: those of another dtype converted as
    /// each node would convert them (constants once, at link time, into
    /// `self.converted`; others now, into `per_call`, keeping their memory
    /// order, from which the output's is worked out).
    pub(super) fn in_dtype<'a>(
        &'a self,
        tensors: &[&'a Tensor],
        per_call: &'a mut SmallVec<[Option<Tensor>; 4]>,
    ) -> Result<SmallVec<[&'a Tensor; 4]>> {
        if self.cast_at_run {
            for (t, c) in tensors.iter().zip(&self.converted) {
                let convert = c.is_none() && t.dtype() != self.dtype;
                per_call.push(convert.then(|| cast_in_order(t, self.dtype)).transpose()?);
            }
        }
        let per_call: &'a SmallVec<[Option<Tensor>; 4]> = per_call;
        Ok(tensors
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let per = per_call.get(i).and_then(Option::as_ref);
                self.converted[i].as_ref().or(per).unwrap_or(t)
            })
            .collect())
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
        let shape = tensors.as_ref().and_then(|t| self.out_shape(t));
        let (Some(tensors), Some(shape)) = (tensors, shape) else {
            outputs[0] = Some(self.run_unfused(inputs, pool)?);
            return Ok(());
        };
        let mut per_call = SmallVec::new();
        let tensors = self.in_dtype(&tensors, &mut per_call)?;
        let total = shape.iter().product::<usize>();
        let out = match &self.sum {
            Some(sum) if total > BLOCK => {
                let mut copies = SmallVec::new();
                let tensors = compact(&tensors, &shape, &mut copies)?;
                self.run_sum(sum, &tensors, &shape, pool)?
            }
            Some(sum) => self.run_sum(sum, &tensors, &shape, pool)?,
            None if total <= BLOCK => self.run_whole(&tensors, &shape, pool)?,
            None => self.run_large(&tensors, &shape, pool)?,
        };
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn names_its_nodes(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::program::Program;
    use super::UNFUSED_RUNS;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph};
    use crate::kernels::cast::cast;
    use crate::tensor::Tensor;
    use crate::types::TensorType;
    use crate::value::Value;

    /// `(tanh(x * r + c) - x) * c`: `x` a matrix, `r` a row, `c` a column.
    fn graph(dtype: DType) -> FunctionGraph {
        let mut g = Graph::new();
        let ty = |s: [Option<u64>; 2]| TensorType::new(dtype, s).unwrap();
        let x = g.input(ty([None, None]), Some("x"));
        let r = g.input(ty([Some(1), None]), Some("r"));
        let c = g.input(ty([None, Some(1)]), Some("c"));
        let xr = build::mul(&mut g, x, r).unwrap();
        let s = build::add(&mut g, xr, c).unwrap();
        let t = build::elemwise(&mut g, crate::ops::scalar::ScalarKind::Tanh, &[s]).unwrap();
        let d = build::sub(&mut g, t, x).unwrap();
        let out = build::mul(&mut g, d, c).unwrap();
        FunctionGraph::new(g, vec![x, r, c], vec![out]).unwrap()
    }

    fn link(fg: &FunctionGraph, fuse: bool) -> Program {
        super::super::program::link_native(fg, fuse)
    }

    /// `rows * cols` values in `dtype`, a NaN first when there is room.
    fn values(dtype: DType, rows: usize, cols: usize, seed: f64) -> Tensor {
        let mut xs: Vec<f64> = (0..rows * cols)
            .map(|i| ((i as f64 + seed) * 0.37).sin() * 3.0)
            .collect();
        if let Some(first) = xs.first_mut().filter(|_| rows * cols > 4) {
            *first = f64::NAN;
        }
        cast(&Tensor::from_vec(vec![rows, cols], xs).unwrap(), dtype).unwrap()
    }

    /// `x` C-ordered or as the transpose of a `cols x rows` array; `r`
    /// contiguous or every other element of a longer row.
    fn args(dtype: DType, rows: usize, cols: usize, transposed: bool) -> Vec<Value> {
        let size = dtype.itemsize() as isize;
        let x = if transposed {
            let t = values(dtype, cols, rows, 0.0);
            let strides = [size, size * rows as isize];
            t.view(&[rows, cols], &strides, 0).unwrap()
        } else {
            values(dtype, rows, cols, 0.0)
        };
        let r = if transposed {
            let wide = values(dtype, 1, 2 * cols, 1.0);
            wide.view(&[1, cols], &[0, 2 * size], 0).unwrap()
        } else {
            values(dtype, 1, cols, 1.0)
        };
        vec![x.into(), r.into(), values(dtype, rows, 1, 2.0).into()]
    }

    fn fused_runs(prog: &Program, args: &[Value]) -> (Tensor, usize) {
        let before = UNFUSED_RUNS.with(|c| c.get());
        let out = prog.run(args).unwrap();
        let after = UNFUSED_RUNS.with(|c| c.get());
        (out[0].tensor().unwrap().clone(), after - before)
    }

    #[test]
    fn partial_broadcasts_and_strides_fuse_bit_for_bit() {
        // Short and long rows, empty, one element, around the block size
        // and the parallel threshold (256 * 256 = PARALLEL_MIN).
        let shapes = [
            (3, 5000),
            (700, 10),
            (0, 5),
            (5, 0),
            (1, 1),
            (2, 2049),
            (1, 4097),
            (300, 300),
            (256, 256),
            (257, 301),
        ];
        for dtype in [DType::Float64, DType::Float32] {
            let fg = graph(dtype);
            let (fused, plain) = (link(&fg, true), link(&fg, false));
            assert!(fused.steps.len() < plain.steps.len(), "the group was fused");
            for (rows, cols) in shapes {
                for transposed in [false, true] {
                    let args = args(dtype, rows, cols, transposed);
                    let (a, unfused) = fused_runs(&fused, &args);
                    let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
                    let case = format!("{dtype} {rows}x{cols} transposed {transposed}");
                    assert_eq!(unfused, 0, "{case} ran unfused");
                    assert_eq!((a.dtype(), a.shape()), (dtype, &[rows, cols][..]), "{case}");
                    assert!(a.same_values(&b), "{case}");
                }
            }
        }
    }

    #[test]
    fn zero_d_groups_fuse() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 0), Some("x"));
        let y = g.input(TensorType::with_ndim(DType::Float64, 0), Some("y"));
        let xy = build::mul(&mut g, x, y).unwrap();
        let e = build::exp(&mut g, xy).unwrap();
        let out = build::add(&mut g, e, x).unwrap();
        let fg = FunctionGraph::new(g, vec![x, y], vec![out]).unwrap();
        let args: Vec<Value> = vec![Tensor::scalar(0.5f64).into(), Tensor::scalar(3.0f64).into()];
        let (a, unfused) = fused_runs(&link(&fg, true), &args);
        assert_eq!(unfused, 0);
        assert!(a.same_values(&Tensor::scalar(1.5f64.exp() + 0.5)));
    }

    #[test]
    fn shapes_that_do_not_broadcast_report_the_node() {
        let fg = graph(DType::Float64);
        let (fused, plain) = (link(&fg, true), link(&fg, false));
        let mut bad = args(DType::Float64, 40, 300, false);
        bad[1] = values(DType::Float64, 1, 299, 0.0).into();
        let err = fused.run(&bad).unwrap_err().to_string();
        assert_eq!(err, plain.run(&bad).unwrap_err().to_string());
        assert_eq!(err.matches("Apply node").count().max(1), 1, "{err}");
    }
}
