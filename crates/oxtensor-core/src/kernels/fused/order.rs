//! The memory order of a fused node's outputs: the order its nodes, run
//! one by one, would have given them (each node's output ordered from its
//! own operands, `kernels/alloc/order.rs`), worked out from the layouts alone. A
//! group order from all its leaves at once could differ where leaves
//! disagree (NumPy's `a * b + c` orders `a * b` first, then that with `c`).
//! Several outputs are computed in one pass, so in one order: the first
//! output's.

use super::plan::{Arg, FusedKernel};
use super::run::Outputs;
use super::walk::BLOCK;
use crate::error::Result;
use crate::kernels::alloc::order::{order_of, permuted, restored, strides_in, Axes, Layout};
use crate::kernels::alloc::Pool;
use crate::tensor::{Dims, Strides, Tensor};
use smallvec::SmallVec;

impl FusedKernel {
    /// The outputs at `shape`, laid out as the nodes run one by one would
    /// lay them out: a `Sum` ending the program then reduces them in the
    /// unfused run's memory order, and so to the same bits. At most a block
    /// in one pass, more block by block (in that order too, so a transposed
    /// input is read straight, not gathered).
    pub(super) fn run_ordered(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        pool: &mut Pool,
    ) -> Result<Outputs> {
        let whole = shape.iter().product::<usize>() <= BLOCK;
        self.in_out_order(leaves, shape, |leaves, shape| match whole {
            true => self.run_whole_c(leaves, shape, pool),
            false => self.run_blocks_c(leaves, shape, pool),
        })
    }

    /// `run_c` (a C-order runner) over the leaves seen in the outputs'
    /// order, so its C-ordered results come out in that order.
    fn in_out_order(
        &self,
        leaves: &[&Tensor],
        shape: &[usize],
        run_c: impl FnOnce(&[&Tensor], &[usize]) -> Result<Outputs>,
    ) -> Result<Outputs> {
        let Some(axes) = self.out_order(leaves, shape) else {
            return run_c(leaves, shape);
        };
        let views: SmallVec<[Tensor; 6]> = leaves.iter().map(|t| permuted(t, &axes)).collect();
        let refs: SmallVec<[&Tensor; 6]> = views.iter().collect();
        let shape: Dims = axes.iter().map(|&a| shape[a]).collect();
        let outs = run_c(&refs, &shape)?;
        Ok(outs.into_iter().map(|t| restored(t, &axes)).collect())
    }

    /// The axes order (slowest first) of the first output at `shape`, or
    /// `None` for C order (at once when every leaf is C-contiguous).
    pub(super) fn out_order(&self, leaves: &[&Tensor], shape: &[usize]) -> Option<Axes> {
        if leaves.iter().all(|t| t.is_c_contiguous()) || shape.len() < 2 {
            return None;
        }
        let itemsize = self.dtype.itemsize();
        let mut done: SmallVec<[(Dims, Strides); 4]> = SmallVec::new();
        let mut orders: SmallVec<[Option<Axes>; 4]> = SmallVec::new();
        for ins in &self.instrs {
            let args: SmallVec<[Layout; 4]> = ins
                .args
                .iter()
                .map(|&a| match a {
                    Arg::Leaf(i) => leaves[i].into(),
                    Arg::Tmp(t) => Layout {
                        shape: &done[t].0,
                        strides: &done[t].1,
                        itemsize,
                    },
                })
                .collect();
            let at = broadcast(&args);
            let axes = order_of(&at, &args);
            let strides = strides_in(&at, axes.as_deref(), itemsize);
            drop(args);
            done.push((at, strides));
            orders.push(axes);
        }
        orders.swap_remove(*self.outputs.first()?)
    }
}

/// The shape operands of one rank broadcast to (the program checks at run
/// time that they do, before their order is asked for).
fn broadcast(args: &[Layout]) -> Dims {
    let ndim = args.first().map_or(0, |l| l.shape.len());
    (0..ndim)
        .map(|d| {
            args.iter()
                .map(|l| l.shape[d])
                .find(|&n| n != 1)
                .unwrap_or(1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fused, link};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph};
    use crate::kernels::alloc::order::permuted;
    use crate::tensor::Tensor;
    use crate::types::TensorType;
    use crate::value::Value;
    use crate::vm::Program;

    /// `exp(x * 0.5) - x * y` over 3-d `x` and `y`, optionally summed.
    fn program(fuse: bool, sum: bool) -> Program {
        let mut g = Graph::new();
        let ty = TensorType::with_ndim(DType::Float64, 3);
        let x = g.input(ty.clone(), Some("x"));
        let y = g.input(ty, Some("y"));
        let half = g.tensor_constant(Tensor::scalar(0.5f64));
        let xh = build::mul(&mut g, x, half).unwrap();
        let e = build::exp(&mut g, xh).unwrap();
        let xy = build::mul(&mut g, x, y).unwrap();
        let mut out = build::sub(&mut g, e, xy).unwrap();
        if sum {
            out = build::sum(&mut g, out, Some(&[0, 2])).unwrap();
        }
        let fg = FunctionGraph::new(g, vec![x, y], vec![out]).unwrap();
        match fuse {
            true => link(&fused(&fg)),
            false => link(&fg),
        }
    }

    /// `shape`'s values with a NaN, stored with axes in `axes` order.
    fn laid_out(shape: [usize; 3], axes: [usize; 3], seed: f64) -> Tensor {
        let stored: Vec<usize> = axes.iter().map(|&a| shape[a]).collect();
        let n: usize = shape.iter().product();
        let mut xs: Vec<f64> = (0..n).map(|i| ((i as f64 + seed) * 0.61).sin()).collect();
        xs[n / 2] = f64::NAN;
        let base = Tensor::from_vec(stored, xs).unwrap();
        let mut inverse = [0; 3];
        for (k, &a) in axes.iter().enumerate() {
            inverse[a] = k;
        }
        permuted(&base, &inverse)
    }

    fn run(p: &Program, x: &Tensor, y: &Tensor) -> Tensor {
        let args: Vec<Value> = vec![x.clone().into(), y.clone().into()];
        p.run(&args).unwrap()[0].tensor().unwrap().clone()
    }

    #[test]
    fn fused_outputs_are_laid_out_as_the_nodes_lay_them_out() {
        let (fused, plain) = (program(true, false), program(false, false));
        let orders = [[0, 1, 2], [2, 1, 0], [1, 2, 0], [0, 2, 1], [2, 0, 1]];
        // Small calls, one block, blocks, past the parallel threshold.
        for shape in [[2, 3, 4], [5, 7, 9], [6, 30, 41], [20, 40, 90]] {
            for ax in orders {
                for ay in orders {
                    let (x, y) = (laid_out(shape, ax, 0.0), laid_out(shape, ay, 1.0));
                    let (a, b) = (run(&fused, &x, &y), run(&plain, &x, &y));
                    let case = format!("{shape:?} x {ax:?} y {ay:?}");
                    assert_eq!(a.strides(), b.strides(), "{case}");
                    assert!(a.same_values(&b), "{case}");
                    if ax == ay {
                        assert_eq!(a.strides(), x.strides(), "{case}: one order kept");
                    }
                }
            }
        }
    }

    #[test]
    fn small_fused_sums_reduce_as_the_nodes_do() {
        let (fused, plain) = (program(true, true), program(false, true));
        for ax in [[2, 1, 0], [1, 2, 0], [0, 1, 2]] {
            let (x, y) = (laid_out([7, 9, 11], ax, 0.0), laid_out([7, 9, 11], ax, 1.0));
            let (a, b) = (run(&fused, &x, &y), run(&plain, &x, &y));
            assert!(a.same_values(&b), "{ax:?}: bit for bit");
        }
    }
}
