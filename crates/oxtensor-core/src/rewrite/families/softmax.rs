//! Softmax recognised and made stable (stabilize), as PyTensor's
//! `tensor/rewriting/special.py`. `local_softmax_stabilize` (tags
//! `symbolic_op_recognition`, `fast_compile`): `exp(x) / sum(exp(x), axis,
//! keepdims=True)` -> `Softmax{axis}(x)`, over one axis or all of them.
//! `local_logsoftmax`: `log(Softmax(x))` -> `LogSoftmax(x)`, through any
//! `DimShuffle` or subtensor between them (re-applied after). Both give
//! finite values where the plain forms overflow (`inf / inf`) or underflow
//! (`log(0)`): that is their purpose.

use super::util::{cast_to, dtype_of, inputs, like, op_as, output, owner_as, produced_by};
use crate::build;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::kernels::softmax::SoftmaxKind;
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::reduce::CAReduce;
use crate::ops::softmax::Softmax;
use crate::ops::OpRef;
use crate::reduction::ReduceKind;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::*;
use std::sync::Arc;

/// Ops `local_logsoftmax` looks through: they only pick or move elements.
const LIFTABLE: [&str; 4] = [
    "DimShuffle",
    "Subtensor",
    "AdvancedSubtensor1",
    "AdvancedSubtensor",
];

/// How many of those `local_logsoftmax` looks through.
const MAX_LIFTED: usize = 8;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let stab = scalar_rw!(
        "local_softmax_stabilize",
        [TrueDiv],
        local_softmax_stabilize
    );
    let tags = ["symbolic_op_recognition", "fast_compile"];
    register_in(db, phase::STABILIZE, stab, &tags)?;
    let log = scalar_rw!("local_logsoftmax", [Log], local_logsoftmax);
    register_in(db, phase::STABILIZE, log, &[])
}

fn local_softmax_stabilize(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [num, den] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some(dtype) = dtype_of(fg, num).filter(|d| d.is_float()) else {
        return Ok(None);
    };
    let Some(e) = produced_by(fg, num, Exp) else {
        return Ok(None);
    };
    let Some(axis) = summed_axis(fg, den, num) else {
        return Ok(None);
    };
    let x = cast_to(fg, inputs(fg, e)[0], dtype)?;
    let op = Softmax {
        kind: SoftmaxKind::Softmax,
        axis,
    };
    let new = fg.graph_mut().apply_out(Arc::new(op), &[x])?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[num, den])?)))
}

/// The softmax axis (`None`: all) when `den` is `sum(num, axis)` with the
/// summed axes put back in place (keepdims), in `num`'s dtype.
fn summed_axis(fg: &FunctionGraph, den: VarId, num: VarId) -> Option<Option<Vec<usize>>> {
    let (ds_node, ds) = owner_as::<DimShuffle>(fg, den)?;
    let s = inputs(fg, ds_node)[0];
    let (sum_node, sum) = owner_as::<CAReduce>(fg, s)?;
    let ndim = tensor_ndim(fg, num)?;
    let axes = sum.axes(ndim);
    let plain = sum.kind == ReduceKind::Sum && dtype_of(fg, s) == dtype_of(fg, num);
    let keepdims = ds.new_order == build::reinsert_axes(ndim, &axes);
    if !(plain && keepdims && inputs(fg, sum_node)[0] == num) {
        return None;
    }
    match axes.as_slice() {
        [a] if ndim > 1 => Some(Some(vec![*a])),
        _ if axes.len() == ndim => Some(None),
        _ => None,
    }
}

fn tensor_ndim(fg: &FunctionGraph, v: VarId) -> Option<usize> {
    super::util::tensor_type(fg, v).map(|t| t.ndim())
}

fn local_logsoftmax(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [mut arg] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    // (op, its other inputs), outermost first; a few at most, so a long
    // chain costs each `log` a bounded look.
    let mut lifted: Vec<(OpRef, Vec<VarId>)> = Vec::new();
    let softmax = loop {
        if lifted.len() > MAX_LIFTED {
            return Ok(None);
        }
        let Some(n) = fg.graph().var(arg).owner() else {
            return Ok(None);
        };
        if let Some(s) = op_as::<Softmax>(fg, n) {
            break s.clone();
        }
        let op = fg.graph().node(n).op.clone();
        if !LIFTABLE.contains(&op.name()) {
            return Ok(None);
        }
        let ins = inputs(fg, n);
        lifted.push((op, ins[1..].to_vec()));
        arg = ins[0];
    };
    if softmax.kind != SoftmaxKind::Softmax {
        return Ok(None);
    }
    let x = inputs(fg, fg.graph().var(arg).owner().expect("a softmax output"))[0];
    let log_softmax = Softmax {
        kind: SoftmaxKind::LogSoftmax,
        axis: softmax.axis.clone(),
    };
    let mut new = fg.graph_mut().apply_out(Arc::new(log_softmax), &[x])?;
    for (op, rest) in lifted.into_iter().rev() {
        let ins: Vec<VarId> = std::iter::once(new).chain(rest).collect();
        new = crate::ops::known::apply_out(fg.graph_mut(), op, &ins)?;
    }
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, printed, rewrite, Case, TO_STABILIZE};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::FunctionGraph;
    use crate::kernels::softmax::SoftmaxKind;
    use crate::ops::softmax::Softmax;
    use crate::tensor::Tensor;

    use std::sync::Arc;

    /// `exp(x) / sum(exp(x), axis, keepdims)` of a 2-d `x`.
    fn softmax_case(dtype: DType, axis: Option<&[i64]>, keep: bool) -> Case {
        let (mut g, [x, e, s]) = super::super::testing::sum_exp_2d(dtype, axis, keep);
        let y = build::true_div(&mut g, e, s).unwrap();
        Case::new(g, vec![x], vec![y])
    }

    fn run(fg: &FunctionGraph, x: &Tensor) -> Vec<f64> {
        super::super::testing::output_f64(fg, std::slice::from_ref(x)).1
    }

    fn matrix() -> Tensor {
        Tensor::from_vec(vec![2, 3], vec![0.5f64, -1.0, 2.0, 3.0, 0.0, -4.0]).unwrap()
    }

    #[test]
    fn exp_over_its_sum_is_softmax() {
        let fg = check(
            &softmax_case(DType::Float64, Some(&[1]), true),
            &TO_STABILIZE,
            &[matrix()],
            1e-15,
        );
        assert_eq!(printed(&fg), "Softmax{axis=(1,)} [id A]\n └─ x [id B]\n");
        let fg = check(
            &softmax_case(DType::Float64, None, false),
            &TO_STABILIZE,
            &[matrix()],
            1e-15,
        );
        assert_eq!(printed(&fg), "Softmax{axis=None} [id A]\n └─ x [id B]\n");
        let x32 = crate::kernels::elemwise::cast::cast(&matrix(), DType::Float32).unwrap();
        let fg = check(
            &softmax_case(DType::Float32, Some(&[0]), true),
            &TO_STABILIZE,
            &[x32],
            1e-6,
        );
        assert!(printed(&fg).starts_with("Softmax{axis=(0,)}"));
        // Large logits: the plain form is inf / inf.
        let mut fg = softmax_case(DType::Float64, Some(&[1]), true).fgraph();
        let big = Tensor::from_vec(vec![1, 2], vec![1000.0f64, 999.0]).unwrap();
        assert!(run(&fg, &big)[0].is_nan());
        rewrite(&mut fg, &TO_STABILIZE);
        let p = 1.0 / (1.0 + (-1.0f64).exp());
        let got = run(&fg, &big);
        assert!(
            (got[0] - p).abs() < 1e-15 && (got[1] - (1.0 - p)).abs() < 1e-15,
            "{got:?}"
        );
    }

    #[test]
    fn a_sum_without_keepdims_is_not_a_softmax() {
        // `sum(e, axis=1)` broadcast from the left divides columns by rows'
        // sums (a square input keeps the shapes valid): not a softmax.
        let case = softmax_case(DType::Float64, Some(&[1]), false);
        let x = Tensor::from_vec(vec![2, 2], vec![0.5f64, -1.0, 2.0, 3.0]).unwrap();
        let fg = check(&case, &TO_STABILIZE, &[x], 0.0);
        assert!(!printed(&fg).contains("Softmax"));
    }

    /// `log(softmax(x).T)` of a 2-d `x` (a `DimShuffle` between them).
    fn log_softmax_case(dtype: DType) -> Case {
        let (mut g, [x]) = graph_with([("x", dtype, 2)]);
        let op = Softmax::new(SoftmaxKind::Softmax, Some(1), 2).unwrap();
        let s = g.apply_out(Arc::new(op), &[x]).unwrap();
        let t = build::dimshuffle(&mut g, s, vec![Some(1), Some(0)]).unwrap();
        let l = build::log(&mut g, t).unwrap();
        Case::new(g, vec![x], vec![l])
    }

    #[test]
    fn log_of_softmax_is_log_softmax() {
        let fg = check(
            &log_softmax_case(DType::Float64),
            &TO_STABILIZE,
            &[matrix()],
            1e-14,
        );
        assert_eq!(
            printed(&fg),
            "MatrixTranspose [id A]\n └─ LogSoftmax{axis=(1,)} [id B]\n    └─ x [id C]\n"
        );
        let x32 = crate::kernels::elemwise::cast::cast(&matrix(), DType::Float32).unwrap();
        check(
            &log_softmax_case(DType::Float32),
            &TO_STABILIZE,
            &[x32],
            1e-6,
        );
        // Large logits: log(0) = -inf before, the exact values after.
        let mut fg = log_softmax_case(DType::Float64).fgraph();
        let big = Tensor::from_vec(vec![1, 3], vec![1000.0f64, 0.0, -1000.0]).unwrap();
        assert_eq!(run(&fg, &big)[1], f64::NEG_INFINITY);
        rewrite(&mut fg, &TO_STABILIZE);
        assert_eq!(run(&fg, &big), vec![0.0, -1000.0, -2000.0]);
    }

    #[test]
    fn log_of_something_else_stays() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 2)]);
        let e = build::exp(&mut g, x).unwrap();
        let l = build::log(&mut g, e).unwrap();
        let case = Case::new(g, vec![x], vec![l]);
        let fg = check(&case, &["stabilize"], &[matrix()], 0.0);
        assert!(!printed(&fg).contains("Softmax"));
    }
}
