//! `local_sum_sqr_deviations` (specialize): the sum of squared deviations
//! that `var` and `std` divide, which PyTensor builds as
//! `Sum{axes}(Sqr(Sub(x, ExpandDims(Sum{axes}(x) / d1 / d2 ...))))` (two
//! passes over `x`), as one `CentredSquares{axes}(x, d1, d2, ...)`
//! (`ops/centred_squares.rs`): one pass when the divisors are the number
//! of reduced elements, the chain's own kernels otherwise. For float32 and
//! float64 `x`, sums in `x`'s dtype, single-valued divisors, and
//! intermediates read nowhere else (a mean that is also an output keeps
//! its nodes).

use super::util::{dtype_of, inputs, op_as, output, owner_as, produced_by, read_once, tensor_type};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::centred_squares::CentredSquares;
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::reduce::CAReduce;
use crate::reduction::ReduceKind;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::node_rw;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::scalar::ScalarKind::{self, *};
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let rw = node_rw(
        "local_sum_sqr_deviations",
        || Tracks::classes(&["Sum"]),
        local_sum_sqr_deviations,
    );
    register_in(db, phase::SPECIALIZE, rw, &[])
}

/// The op and axes of a `Sum` node whose output has its input's dtype.
fn plain_sum(fg: &FunctionGraph, node: NodeId) -> Option<(CAReduce, Vec<usize>)> {
    let op = op_as::<CAReduce>(fg, node)?;
    let input = tensor_type(fg, inputs(fg, node)[0])?;
    let plain = op.kind == ReduceKind::Sum && op.dtype == input.dtype;
    plain.then(|| (op.clone(), op.axes(input.ndim())))
}

/// The inputs of the `kind` node computing `v`, when only one node reads `v`.
fn single_use(fg: &FunctionGraph, v: VarId, kind: ScalarKind) -> Option<Vec<VarId>> {
    let n = produced_by(fg, v, kind).filter(|_| read_once(fg, v))?;
    Some(inputs(fg, n))
}

/// Whether `ds` puts back exactly `axes` (as length-1 axes) into a tensor
/// of `ndim` axes from which they were summed away.
fn reinserts(ds: &DimShuffle, axes: &[usize], ndim: usize) -> bool {
    ds.input_ndim + axes.len() == ndim && ds.new_order == crate::build::reinsert_axes(ndim, axes)
}

/// A divisor as the op takes it: one value (every static length 1), with
/// an `ExpandDims` of a 0-d value seen through.
fn divisor(fg: &FunctionGraph, d: VarId) -> Option<VarId> {
    let single =
        |v: VarId| tensor_type(fg, v).is_some_and(|t| t.shape.iter().all(|&n| n == Some(1)));
    if let Some((n, ds)) = owner_as::<DimShuffle>(fg, d) {
        if ds.input_ndim == 0 {
            return Some(inputs(fg, n)[0]);
        }
    }
    single(d).then_some(d)
}

/// `(x, mean's divisors in the order they divide, mean's Sum accumulator)`
/// when `centre` is `ExpandDims(Sum{axes}(x) / d1 / ...)` of `x`'s dtype,
/// or the form canonicalize's `local_dimshuffle_lift` leaves of it, the
/// `ExpandDims` moved onto the sum and the divisors.
fn mean_of(
    fg: &FunctionGraph,
    centre: VarId,
    x: VarId,
    axes: &[usize],
) -> Option<(Vec<VarId>, DType)> {
    let ndim = tensor_type(fg, x)?.ndim();
    let expanded = |v: VarId| {
        let (n, ds) = owner_as::<DimShuffle>(fg, v)?;
        (read_once(fg, v) && reinserts(ds, axes, ndim)).then(|| inputs(fg, n)[0])
    };
    let outer = expanded(centre);
    let mut mean = outer.unwrap_or(centre);
    let mut divisors = Vec::new();
    while let Some([num, den]) =
        single_use(fg, mean, TrueDiv).and_then(|i| <[VarId; 2]>::try_from(i).ok())
    {
        if dtype_of(fg, mean) != dtype_of(fg, x) {
            return None;
        }
        divisors.push(divisor(fg, den)?);
        mean = num;
    }
    if outer.is_none() {
        mean = expanded(mean)?;
    }
    let sum = fg
        .graph()
        .var(mean)
        .owner()
        .filter(|_| read_once(fg, mean))?;
    let (op, sum_axes) = plain_sum(fg, sum)?;
    let ok = !divisors.is_empty() && sum_axes == axes && inputs(fg, sum)[0] == x;
    divisors.reverse();
    ok.then_some((divisors, op.acc_dtype))
}

fn local_sum_sqr_deviations(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((sum, axes)) = plain_sum(fg, node) else {
        return Ok(None);
    };
    let q = inputs(fg, node)[0];
    let Some([d]) = single_use(fg, q, Sqr).and_then(|i| <[VarId; 1]>::try_from(i).ok()) else {
        return Ok(None);
    };
    let Some([x, centre]) = single_use(fg, d, Sub).and_then(|i| <[VarId; 2]>::try_from(i).ok())
    else {
        return Ok(None);
    };
    let dtype = dtype_of(fg, x);
    let typed = [q, d, centre].iter().all(|&v| dtype_of(fg, v) == dtype);
    if !typed || !matches!(dtype, Some(DType::Float32 | DType::Float64)) {
        return Ok(None);
    }
    let Some((divisors, mean_acc)) = mean_of(fg, centre, x, &axes) else {
        return Ok(None);
    };
    let op = CentredSquares {
        axis: sum.axis,
        mean_acc,
        sum_acc: sum.acc_dtype,
    };
    let ins: Vec<VarId> = std::iter::once(x).chain(divisors).collect();
    let new = fg.graph_mut().apply_out(Arc::new(op), &ins)?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(super::util::like(fg, new, out, &[])?)))
}

#[cfg(test)]
#[path = "variance_tests.rs"]
mod tests;
