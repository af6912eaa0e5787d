//! A scalar op over whole arrays, a `Composite` node by node with each
//! inner op's elementwise kernel: the path of composites the blocked
//! kernel does not run (integer, comparison or cast nodes, mixed dtypes;
//! see `support.rs`) and of scalar graphs' own nodes (0-d values).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::elemwise::{elemwise, output_shape};
use crate::scalar::composite::{Composite, Operand};
use crate::scalar::ScalarOp;
use crate::tensor::Tensor;
use smallvec::SmallVec;

#[cfg(test)]
thread_local! {
    /// Composite calls interpreted on this thread, so tests can tell
    /// which path ran.
    pub(crate) static INTERPRETED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `op` over `inputs` (whose static broadcastable flags are `bcast`),
/// giving outputs of `out_dtypes`.
pub fn evaluate(
    op: &ScalarOp,
    inputs: &[&Tensor],
    bcast: &[Vec<bool>],
    out_dtypes: &[DType],
    pool: &mut Pool,
) -> Result<SmallVec<[Tensor; 2]>> {
    match op {
        ScalarOp::Composite(c) => composite(c, inputs, bcast, pool),
        ScalarOp::Loop(l) => super::scalar_loop::run(l, inputs, bcast, pool),
        _ => {
            let dtype = *out_dtypes
                .first()
                .ok_or_else(|| Error::Value(format!("{op} has no output dtype")))?;
            Ok(smallvec::smallvec![elemwise(
                op,
                inputs,
                bcast,
                dtype,
                Some(pool)
            )?])
        }
    }
}

/// `c`'s nodes one by one; the inputs' shapes are checked first, so an
/// error names the shapes the composite node was given.
pub(crate) fn composite(
    c: &Composite,
    inputs: &[&Tensor],
    bcast: &[Vec<bool>],
    pool: &mut Pool,
) -> Result<SmallVec<[Tensor; 2]>> {
    #[cfg(test)]
    INTERPRETED.with(|n| n.set(n.get() + 1));
    output_shape(inputs, bcast)?;
    let ndim = inputs.first().map_or(0, |t| t.ndim());
    let consts = c
        .consts()
        .iter()
        .map(|t| t.view(&vec![1; ndim], &vec![0; ndim], t.offset()))
        .collect::<Result<Vec<_>>>()?;
    let all_ones = vec![true; ndim];
    let mut done: Vec<(Tensor, Vec<bool>)> = Vec::with_capacity(c.nodes().len());
    for n in c.nodes() {
        let (args, flags): (SmallVec<[&Tensor; 4]>, Vec<Vec<bool>>) = n
            .args
            .iter()
            .map(|&a| match a {
                Operand::Input(i) => (inputs[i], bcast[i].clone()),
                Operand::Const(k) => (&consts[k], all_ones.clone()),
                Operand::Node(j) => (&done[j].0, done[j].1.clone()),
            })
            .unzip();
        // A value broadcasts where all it was made from does.
        let mine = (0..ndim).map(|d| flags.iter().all(|f| f[d])).collect();
        let value = match &n.op {
            // A loop inside a composite has one output (`composite_graph.rs`).
            ScalarOp::Loop(l) => {
                let mut outs = super::scalar_loop::run(l, &args, &flags, pool)?;
                outs.truncate(1);
                outs.pop()
                    .ok_or_else(|| Error::Value(format!("{l} has no output")))?
            }
            op => elemwise(op, &args, &flags, n.dtype, Some(&mut *pool))?,
        };
        drop(args);
        done.push((value, mine));
    }
    let mut taken: Vec<Option<Tensor>> = done.into_iter().map(|(t, _)| Some(t)).collect();
    let outs = c
        .outputs()
        .iter()
        .map(|&o| taken[o].take())
        .collect::<Option<SmallVec<[Tensor; 2]>>>()
        .ok_or_else(|| Error::Value(format!("{c} computes an output twice")))?;
    taken.into_iter().flatten().for_each(|t| pool.recycle(t));
    Ok(outs)
}
