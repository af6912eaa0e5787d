//! Running a fused program (`plan.rs`): small outputs in one pass over
//! the whole arrays, larger ones block by block along the plan of
//! `walk.rs`, in parallel chunks of blocks when large. Each block runs the
//! same elementwise kernels the separate nodes would, so results are the
//! unfused nodes' to the bit.

use super::plan::{Arg, FusedKernel, Instr};
use super::tiny::TINY_MAX;
use super::walk::{compact, resized, Block, Walk, BLOCK};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::order::cast_in_order;
use crate::kernels::alloc::{output, Pool};
use crate::kernels::elemwise::{output_shape, run_kind};
use crate::kernels::PARALLEL_MIN;
use crate::tensor::{Dims, Element, Tensor};
use rayon::prelude::*;
use smallvec::SmallVec;
use std::ops::Range;

/// Blocks per parallel task.
const TASK_BLOCKS: usize = 8;

/// The fused program's outputs (one per composite output, or the sum).
pub(super) type Outputs = SmallVec<[Tensor; 2]>;

impl FusedKernel {
    /// Runs the program on the node's inputs.
    pub fn run(&self, inputs: &[&Tensor], pool: &mut Pool) -> Result<Outputs> {
        if let Some(t) = self.run_tiny(inputs, pool) {
            // A few elements: no scratch tensors, no kernel per node.
            return Ok(smallvec::smallvec![t]);
        }
        let shape = self
            .out_shape(inputs)
            .ok_or_else(|| self.shape_error(inputs))?;
        self.with_leaves(inputs, pool, |leaves, pool| {
            self.run_leaves(leaves, &shape, pool)
        })?
    }

    /// Runs `f` over the program's leaves for these inputs: the inputs in
    /// the computation dtype, the constants, then the values hoisted out of
    /// the block loop, which go back to the pool afterwards.
    pub(super) fn with_leaves<R>(
        &self,
        inputs: &[&Tensor],
        pool: &mut Pool,
        f: impl FnOnce(&[&Tensor], &mut Pool) -> R,
    ) -> Result<R> {
        let mut per_call = SmallVec::new();
        let converted = self.in_dtype(inputs, &mut per_call)?;
        let hoisted = self.hoist(&converted, pool)?;
        let leaves: SmallVec<[&Tensor; 6]> = converted
            .iter()
            .copied()
            .chain(&self.consts)
            .chain(&hoisted)
            .collect();
        let out = f(&leaves, pool);
        drop(leaves);
        hoisted.into_iter().for_each(|t| pool.recycle(t));
        Ok(out)
    }

    /// The outputs (or the sum) from every leaf, at `shape`.
    fn run_leaves(&self, leaves: &[&Tensor], shape: &[usize], pool: &mut Pool) -> Result<Outputs> {
        let total = shape.iter().product::<usize>();
        Ok(match &self.sum {
            Some(sum) if total > BLOCK => {
                let mut copies = SmallVec::new();
                let leaves = compact(leaves, shape, &mut copies)?;
                smallvec::smallvec![self.run_sum(sum, &leaves, shape, pool)?]
            }
            Some(sum) => smallvec::smallvec![self.run_sum(sum, leaves, shape, pool)?],
            None => self.run_ordered(leaves, shape, pool)?,
        })
    }

    /// The output's shape when every input broadcasts to it as the node
    /// allows (length 1 only where its static type says 1); `None` when
    /// they do not ([`FusedKernel::shape_error`] says why).
    pub(super) fn out_shape(&self, inputs: &[&Tensor]) -> Option<Dims> {
        let mut shape: Dims = SmallVec::from_elem(1, self.ndim);
        for t in inputs {
            if t.ndim() != self.ndim {
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
        let fits = |t: &Tensor, ones: &[bool]| {
            let mut dims = t.shape().iter().zip(&shape).zip(ones);
            dims.all(|((&n, &o), &one)| n == o || (n == 1 && one))
        };
        let ok = inputs
            .iter()
            .zip(&self.input_types)
            .all(|(t, ty)| fits(t, &ty.broadcastable()));
        // A size too big for any array also goes to the unfused path,
        // which reports it (`kernels::elemwise::output_shape`).
        (ok && crate::tensor::layout::size(&shape).is_ok()).then_some(shape)
    }

    /// The elementwise kernel's error for inputs that do not broadcast.
    fn shape_error(&self, inputs: &[&Tensor]) -> Error {
        let bcast: Vec<Vec<bool>> = self.input_types.iter().map(|t| t.broadcastable()).collect();
        match output_shape(inputs, &bcast) {
            Err(e) => e,
            Ok(_) => Error::Shape(format!(
                "the inputs of a {}-d fused node have ranks {:?}",
                self.ndim,
                inputs.iter().map(|t| t.ndim()).collect::<Vec<_>>()
            )),
        }
    }

    /// The program element by element (`kernels/fused/tiny.rs`) when its output
    /// has at most [`TINY_MAX`] elements and every input is of the
    /// program's dtype, C-contiguous at the output's shape or a single
    /// element; `None` when that does not apply (a call on large arrays is
    /// turned away at its first input).
    fn run_tiny(&self, inputs: &[&Tensor], pool: &mut Pool) -> Option<Tensor> {
        let tiny = self.tiny.as_ref()?;
        let mut leaves: SmallVec<[&Tensor; 6]> = SmallVec::new();
        for &t in inputs {
            if t.dtype() != self.dtype || t.len() > TINY_MAX {
                return None;
            }
            leaves.push(t);
        }
        let shape = self.out_shape(&leaves)?;
        if shape.iter().product::<usize>() > TINY_MAX {
            return None;
        }
        leaves.extend(&self.consts);
        let mut out = output(Some(&mut *pool), self.dtype, &shape).ok()?;
        match tiny.run(&leaves, &mut out) {
            Some(()) => Some(out),
            None => {
                pool.recycle(out);
                None
            }
        }
    }

    /// The hoisted instructions' results, each at the shape its operands
    /// broadcast to (smaller than the output's), computed whole.
    pub(super) fn hoist(&self, inputs: &[&Tensor], pool: &mut Pool) -> Result<Vec<Tensor>> {
        let mut done: Vec<Tensor> = Vec::with_capacity(self.pre.len());
        for ins in &self.pre {
            let args: SmallVec<[&Tensor; 4]> = ins
                .args
                .iter()
                .map(|&a| match a {
                    Arg::Leaf(i) if i < inputs.len() => inputs[i],
                    Arg::Leaf(i) => &self.consts[i - inputs.len()],
                    Arg::Tmp(t) => &done[t],
                })
                .collect();
            let shape: Dims = (0..self.ndim)
                // Broadcasting (checked by `out_shape`): the length that
                // is not 1, which may be 0 (`max` would take the 1).
                .map(|d| args.iter().map(|t| t.shape()[d]).find(|&n| n != 1).unwrap_or(1))
                .collect();
            let mut out = output(Some(&mut *pool), self.dtype, &shape)?;
            run_kind(ins.kind, self.dtype, &args, &mut out)?;
            drop(args);
            done.push(out);
        }
        Ok(done)
    }

    /// Runs blocks `range` of `walk`, handing each block's output values
    /// (one slice per output, at the block's positions) to `sink`.
    pub(super) fn run_range<T: Element>(
        &self,
        walk: &Walk,
        leaves: &[&Tensor],
        range: Range<usize>,
        mut sink: impl FnMut(Block, &[&[T]]) -> Result<()>,
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
            let refs: SmallVec<[&Tensor; 6]> = operands.iter().collect();
            self.run_into(&refs, &mut scratch)?;
            let done = self
                .outputs
                .iter()
                .map(|&o| scratch[o].as_slice::<T>())
                .collect::<Option<SmallVec<[&[T]; 2]>>>()
                .ok_or_else(|| Error::Value("fused scratch is not contiguous".into()))?;
            sink(block, &done)?;
        }
        Ok(())
    }

    /// Every instruction: instruction `j` writes `scratch[j]` (a block, or
    /// the whole output for [`FusedKernel::run_whole_c`]).
    pub(super) fn run_into(&self, leaves: &[&Tensor], scratch: &mut [Tensor]) -> Result<()> {
        for (j, ins) in self.instrs.iter().enumerate() {
            let (done, rest) = scratch.split_at_mut(j);
            let args = operands(ins, leaves, done);
            let dst = rest
                .first_mut()
                .ok_or_else(|| Error::Value("fused scratch is missing".into()))?;
            run_kind(ins.kind, self.dtype, &args, dst)?;
        }
        Ok(())
    }

    /// The whole outputs, in parallel tasks of consecutive blocks when
    /// large (each task writes its own stretch of every output).
    pub(super) fn run_blocks<T: Element>(
        &self,
        leaves: &[&Tensor],
        outs: &mut [Tensor],
    ) -> Result<()> {
        let shape: Dims = outs[0].shape().into();
        let walk = Walk::new(&shape, leaves);
        let total = outs[0].len();
        let mut ys = outs
            .iter_mut()
            .map(|o| o.as_mut_slice::<T>())
            .collect::<Option<SmallVec<[&mut [T]; 2]>>>()
            .ok_or_else(|| Error::Value("a fresh output is not writable".into()))?;
        let n = walk.len();
        let copy = |parts: &mut [&mut [T]], origin: usize, b: Block, vs: &[&[T]]| {
            for (y, v) in parts.iter_mut().zip(vs) {
                y[b.at - origin..b.at - origin + b.len].copy_from_slice(v);
            }
            Ok(())
        };
        if total < PARALLEL_MIN {
            return self.run_range(&walk, leaves, 0..n, |b, vs: &[&[T]]| {
                copy(&mut ys, 0, b, vs)
            });
        }
        let mut tasks = Vec::with_capacity(n.div_ceil(TASK_BLOCKS));
        let mut start = 0;
        for first in (0..n).step_by(TASK_BLOCKS) {
            let blocks = first..(first + TASK_BLOCKS).min(n);
            let last = walk.block(blocks.end - 1);
            let cut = last.at + last.len - start;
            let parts: SmallVec<[&mut [T]; 2]> = ys
                .iter_mut()
                .map(|y| {
                    let (part, tail) = std::mem::take(y).split_at_mut(cut);
                    *y = tail;
                    part
                })
                .collect();
            tasks.push((blocks, parts, start));
            start = last.at + last.len;
        }
        tasks
            .into_par_iter()
            .try_for_each(|(blocks, mut parts, origin)| {
                self.run_range(&walk, leaves, blocks, |b, vs: &[&[T]]| {
                    copy(&mut parts, origin, b, vs)
                })
            })
    }

    /// The outputs in one pass over the whole arrays (the leaves as they
    /// are: the kernels broadcast and stride), for outputs of at most a
    /// block, in C order: scratch at the output's shape, from the pool
    /// and back, so small calls allocate nothing.
    pub(super) fn run_whole_c(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
    ) -> Result<Outputs> {
        let mut scratch: Vec<Tensor> = (0..self.instrs.len())
            .map(|j| match self.outputs.contains(&j) {
                true => output(Some(&mut *pool), self.dtype, shape),
                false => pool.take(self.dtype, shape),
            })
            .collect::<Result<_>>()?;
        let done = self.run_into(leaves, &mut scratch);
        let mut taken: Vec<Option<Tensor>> = scratch.into_iter().map(Some).collect();
        let outs = self
            .outputs
            .iter()
            .filter_map(|&o| taken[o].take())
            .collect();
        taken.into_iter().flatten().for_each(|t| pool.recycle(t));
        done.map(|()| outs)
    }

    /// The outputs block by block, in C order (far-strided leaves copied
    /// first, see [`compact`]), for outputs of more than a block.
    pub(super) fn run_blocks_c(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
    ) -> Result<Outputs> {
        let mut copies = SmallVec::new();
        let leaves = compact(leaves, shape, &mut copies)?;
        let mut outs: Outputs = self
            .outputs
            .iter()
            .map(|_| output(Some(&mut *pool), self.dtype, shape))
            .collect::<Result<_>>()?;
        if self.dtype == DType::Float32 {
            self.run_blocks::<f32>(&leaves, &mut outs)?;
        } else {
            self.run_blocks::<f64>(&leaves, &mut outs)?;
        }
        Ok(outs)
    }

    /// The inputs in the program's dtype: those of another dtype converted
    /// as each node would convert them (constant inputs once, at link
    /// time, see `thunk.rs`; others now, into `per_call`, keeping their
    /// memory order, from which the outputs' is worked out).
    pub(super) fn in_dtype<'a>(
        &self,
        tensors: &[&'a Tensor],
        per_call: &'a mut SmallVec<[Option<Tensor>; 4]>,
    ) -> Result<SmallVec<[&'a Tensor; 4]>> {
        if self.cast_at_run {
            for t in tensors {
                let convert = t.dtype() != self.dtype;
                per_call.push(convert.then(|| cast_in_order(t, self.dtype)).transpose()?);
            }
        }
        let per_call: &'a SmallVec<[Option<Tensor>; 4]> = per_call;
        Ok(tensors
            .iter()
            .enumerate()
            .map(|(i, &t)| per_call.get(i).and_then(Option::as_ref).unwrap_or(t))
            .collect())
    }
}

/// `ins`'s operands: leaves, or earlier results in `done`.
pub(super) fn operands<'a>(
    ins: &Instr,
    leaves: &[&'a Tensor],
    done: &'a [Tensor],
) -> SmallVec<[&'a Tensor; 4]> {
    ins.args
        .iter()
        .map(|&a| match a {
            Arg::Leaf(i) => leaves[i],
            Arg::Tmp(t) => &done[t],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{interpreted, programs};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph};
    use crate::kernels::elemwise::cast::cast;
    use crate::tensor::Tensor;
    use crate::types::TensorType;
    use crate::value::Value;
    use crate::vm::Program;

    /// `(tanh(x * r + c) - x) * c`: `x` a matrix, `r` a row, `c` a column.
    fn graph(dtype: DType) -> FunctionGraph {
        let mut g = Graph::new();
        let ty = |s: [Option<u64>; 2]| TensorType::new(dtype, s).unwrap();
        let x = g.input(ty([None, None]), Some("x"));
        let r = g.input(ty([Some(1), None]), Some("r"));
        let c = g.input(ty([None, Some(1)]), Some("c"));
        let xr = build::mul(&mut g, x, r).unwrap();
        let s = build::add(&mut g, xr, c).unwrap();
        let t = build::elemwise(&mut g, crate::scalar::ScalarKind::Tanh, &[s]).unwrap();
        let d = build::sub(&mut g, t, x).unwrap();
        let out = build::mul(&mut g, d, c).unwrap();
        FunctionGraph::new(g, vec![x, r, c], vec![out]).unwrap()
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

    /// The first output, and whether the call was interpreted.
    fn fused_run(prog: &Program, args: &[Value]) -> (Tensor, usize) {
        let before = interpreted();
        let out = prog.run(args).unwrap();
        (out[0].tensor().unwrap().clone(), interpreted() - before)
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
            let (fused, plain, nodes) = programs(&graph(dtype));
            assert_eq!(nodes, 1, "one composite");
            for (rows, cols) in shapes {
                for transposed in [false, true] {
                    let args = args(dtype, rows, cols, transposed);
                    let (a, slow) = fused_run(&fused, &args);
                    let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
                    let case = format!("{dtype} {rows}x{cols} transposed {transposed}");
                    assert_eq!(slow, 0, "{case} ran node by node");
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
        let (fused, _, _) = programs(&fg);
        let (a, slow) = fused_run(&fused, &args);
        assert_eq!(slow, 0);
        assert!(a.same_values(&Tensor::scalar(1.5f64.exp() + 0.5)));
    }

    #[test]
    fn shapes_that_do_not_broadcast_name_the_composite() {
        let (fused, plain, _) = programs(&graph(DType::Float64));
        let mut bad = args(DType::Float64, 40, 300, false);
        bad[1] = values(DType::Float64, 1, 299, 0.0).into();
        let err = fused.run(&bad).unwrap_err().to_string();
        let plain_err = plain.run(&bad).unwrap_err().to_string();
        assert!(
            plain_err.contains("Input dimension mismatch"),
            "{plain_err}"
        );
        assert!(
            err.contains("Input dimension mismatch: shapes [40, 300], [1, 299], [40, 1]"),
            "{err}"
        );
        assert!(
            err.contains("Apply node that caused the error: Composite{"),
            "{err}"
        );
        assert_eq!(err.matches("Apply node").count(), 1, "{err}");
    }

    #[test]
    fn hoisted_rows_compute_the_same() {
        // `exp(x - r * 2)`: `r * 2` runs once, at the row's shape.
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 2), Some("x"));
        let ty = TensorType::new(DType::Float64, [Some(1), None]).unwrap();
        let r = g.input(ty, Some("r"));
        let two = g.tensor_constant(Tensor::from_vec(vec![1, 1], vec![2.0f64]).unwrap());
        let r2 = build::mul(&mut g, r, two).unwrap();
        let d = build::sub(&mut g, x, r2).unwrap();
        let e = build::exp(&mut g, d).unwrap();
        let fg = FunctionGraph::new(g, vec![x, r], vec![e]).unwrap();
        let (fused, plain, nodes) = programs(&fg);
        assert_eq!(nodes, 1);
        for (rows, cols) in [(3, 4), (50, 3000), (300, 300)] {
            let args: Vec<Value> = vec![
                values(DType::Float64, rows, cols, 0.0).into(),
                values(DType::Float64, 1, cols, 1.0).into(),
            ];
            let (a, slow) = fused_run(&fused, &args);
            let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
            assert_eq!(slow, 0);
            assert!(a.same_values(&b), "{rows}x{cols}");
        }
    }
}
