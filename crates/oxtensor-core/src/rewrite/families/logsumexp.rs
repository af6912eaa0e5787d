//! Logarithms of sums of exponentials, made stable (stabilize, tags
//! `symbolic_op_recognition` and `fast_compile` as in PyTensor's
//! `tensor/rewriting/special.py`). `local_log_sum_exp`:
//! `log(sum(exp(x), axis))` (a keepdims `ExpandDims` between them kept) ->
//! the native `LogSumExp` op, which subtracts the maximum first.
//! `local_log_add_exp`: `log(exp(x) + exp(y) + ...)` -> `m + log(Σ e^(x_i - m))`
//! with `m = maximum(x, y, ...)` (and no offset where `m` is infinite, which
//! would give NaN). Both change results where the plain form overflows or
//! underflows: that is their purpose.

use super::stabilize_log::log_of_sum;
use super::util::{cast_to, dtype_of, elemwise, inputs, like, output, owner_as, produced_by};
use crate::build;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::logsumexp::LogSumExp;
use crate::ops::reduce::CAReduce;
use crate::reduction::ReduceKind;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::*;
use std::sync::Arc;

const TAGS: [&str; 2] = ["symbolic_op_recognition", "fast_compile"];

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let lse = scalar_rw!("local_log_sum_exp", [Log], local_log_sum_exp);
    register_in(db, phase::STABILIZE, lse, &TAGS)?;
    let lae = scalar_rw!("local_log_add_exp", [Log], local_log_add_exp);
    register_in(db, phase::STABILIZE, lae, &TAGS)
}

fn local_log_sum_exp(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [mut arg] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let keepdims = owner_as::<DimShuffle>(fg, arg).map(|(n, ds)| (n, ds.clone()));
    if let Some((ds_node, _)) = keepdims {
        arg = inputs(fg, ds_node)[0];
    }
    let Some((sum_node, sum)) = owner_as::<CAReduce>(fg, arg) else {
        return Ok(None);
    };
    let (sum_input, sum) = (inputs(fg, sum_node)[0], sum.clone());
    // A sum upcasting its terms (`dtype=float64` on float32) is more
    // precise than a `LogSumExp` in the terms' dtype would be.
    if sum.kind != ReduceKind::Sum || dtype_of(fg, sum_input) != Some(sum.dtype) {
        return Ok(None);
    }
    let Some(e) = produced_by(fg, sum_input, Exp) else {
        return Ok(None);
    };
    // `exp` of integers computes in a float dtype: `LogSumExp` reads that.
    let x = cast_to(fg, inputs(fg, e)[0], sum.dtype)?;
    let lse = LogSumExp { axis: sum.axis };
    let mut new = fg.graph_mut().apply_out(Arc::new(lse), &[x])?;
    if let Some((_, ds)) = keepdims {
        new = fg.graph_mut().apply_out(Arc::new(ds), &[new])?;
    }
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

fn local_log_add_exp(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((arg, terms)) = log_of_sum(fg, node) else {
        return Ok(None);
    };
    let exps: Option<Vec<NodeId>> = terms.iter().map(|&t| produced_by(fg, t, Exp)).collect();
    let Some(exps) = exps.filter(|e| e.len() >= 2) else {
        return Ok(None);
    };
    let Some(dtype) = dtype_of(fg, arg) else {
        return Ok(None);
    };
    let pre: Vec<VarId> = exps
        .iter()
        .map(|&e| cast_to(fg, inputs(fg, e)[0], dtype))
        .collect::<Result<_>>()?;
    let m = pre[1..]
        .iter()
        .try_fold(pre[0], |acc, &p| elemwise(fg, Maximum, &[acc, p]))?;
    let inf = elemwise(fg, IsInf, &[m])?;
    let exp_m = elemwise(fg, Exp, &[m])?;
    let mut shifted = Vec::with_capacity(pre.len());
    for &p in &pre {
        let d = elemwise(fg, Sub, &[p, m])?;
        let e = elemwise(fg, Exp, &[d])?;
        shifted.push(build::switch(fg.graph_mut(), inf, exp_m, e)?);
    }
    let total = elemwise(fg, Add, &shifted)?;
    let log = elemwise(fg, Log, &[total])?;
    let new = elemwise(fg, Add, &[m, log])?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &terms)?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, check_prints, printed, rewrite, Case, TO_STABILIZE};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::VarId;
    use crate::ops::reduce::CAReduce;
    use crate::reduction::ReduceKind;
    use crate::tensor::Tensor;
    use crate::types::TensorType;

    use std::sync::Arc;

    /// `log(sum(exp(x), axis))` of a 2-d `x`, with the axis kept when `keep`.
    fn lse_case(dtype: DType, axis: Option<&[i64]>, keep: bool) -> Case {
        let (mut g, [x, _, s]) = super::super::testing::sum_exp_2d(dtype, axis, keep);
        let l = build::log(&mut g, s).unwrap();
        Case::new(g, vec![x], vec![l])
    }

    fn run(fg: &crate::graph::FunctionGraph, args: &[Tensor]) -> Vec<f64> {
        super::super::testing::output_f64(fg, args).1
    }

    #[test]
    fn log_sum_exp_becomes_the_native_op() {
        let x = Tensor::from_vec(vec![2, 3], vec![0.5f64, -1.0, 2.0, 3.0, 0.0, -4.0]).unwrap();
        let case = lse_case(DType::Float64, Some(&[1]), false);
        let fg = check(&case, &TO_STABILIZE, std::slice::from_ref(&x), 1e-14);
        assert_eq!(printed(&fg), "LogSumExp{axis=1} [id A]\n └─ x [id B]\n");
        let case = lse_case(DType::Float64, None, true);
        check_prints(
            &case,
            &TO_STABILIZE,
            std::slice::from_ref(&x),
            1e-14,
            "ExpandDims{axes=(0, 1)} [id A]\n └─ LogSumExp{axes=None} [id B]\n    └─ x [id C]\n",
        );
        // float32 stays float32.
        let x32 = crate::kernels::elemwise::cast::cast(&x, DType::Float32).unwrap();
        check(
            &lse_case(DType::Float32, Some(&[0]), true),
            &TO_STABILIZE,
            &[x32],
            1e-6,
        );
    }

    #[test]
    fn log_sum_exp_is_finite_where_the_plain_form_overflows() {
        let mut fg = lse_case(DType::Float64, Some(&[1]), false).fgraph();
        let x = Tensor::from_vec(vec![2, 2], vec![1000.0f64, 999.0, -1000.0, -1001.0]).unwrap();
        assert!(
            run(&fg, std::slice::from_ref(&x))[0].is_infinite(),
            "the plain form overflows"
        );
        rewrite(&mut fg, &TO_STABILIZE);
        let want = [
            1000.0 + (-1.0f64).exp().ln_1p(),
            -1000.0 + (-1.0f64).exp().ln_1p(),
        ];
        assert_eq!(run(&fg, &[x]), want);
    }

    #[test]
    fn a_sum_in_a_wider_dtype_or_of_something_else_stays() {
        // log(sum(sqr(x))), and log(sum(exp(x), dtype=float64)) of float32.
        let (mut g, [x]) = graph_with([("x", DType::Float32, 1)]);
        let sq = build::sqr(&mut g, x).unwrap();
        let s = build::sum(&mut g, sq, None).unwrap();
        let l = build::log(&mut g, s).unwrap();
        let e = build::exp(&mut g, x).unwrap();
        let wide = CAReduce {
            dtype: DType::Float64,
            acc_dtype: DType::Float64,
            ..CAReduce::new(
                ReduceKind::Sum,
                None,
                &TensorType::with_ndim(DType::Float32, 1),
            )
            .unwrap()
        };
        let s = g.apply_out(Arc::new(wide), &[e]).unwrap();
        let l2 = build::log(&mut g, s).unwrap();
        let case = Case::new(g, vec![x], vec![l, l2]);
        let args = [Tensor::from_vec(vec![2], vec![0.5f32, 2.0]).unwrap()];
        assert!(!printed(&check(&case, &TO_STABILIZE, &args, 0.0)).contains("LogSumExp"));
    }

    #[test]
    fn an_empty_sum_is_minus_infinity_as_before() {
        let case = lse_case(DType::Float64, Some(&[1]), false);
        check(
            &case,
            &TO_STABILIZE,
            &[Tensor::zeros(DType::Float64, &[2, 0]).unwrap()],
            0.0,
        );
    }

    fn lae_case(dtype: DType) -> (Case, VarId) {
        let (mut g, [x, y]) = graph_with([("x", dtype, 1), ("y", dtype, 1)]);
        let (ex, ey) = (
            build::exp(&mut g, x).unwrap(),
            build::exp(&mut g, y).unwrap(),
        );
        let s = build::add(&mut g, ex, ey).unwrap();
        let l = build::log(&mut g, s).unwrap();
        (Case::new(g, vec![x, y], vec![l]), l)
    }

    #[test]
    fn log_add_exp_offsets_by_the_maximum() {
        let (case, _) = lae_case(DType::Float64);
        let x = Tensor::from_vec(vec![3], vec![0.5f64, -2.0, 3.0]).unwrap();
        let y = Tensor::from_vec(vec![3], vec![1.5f64, -2.0, -1.0]).unwrap();
        let fg = check(&case, &TO_STABILIZE, &[x, y], 1e-14);
        let p = printed(&fg);
        assert!(p.starts_with("Add [id A]\n ├─ Maximum [id B]\n"), "{p}");
        assert!(p.contains("Switch") && p.contains("Isinf"), "{p}");
        // Extreme values: finite where the plain form is not, and the
        // infinities kept (no NaN from inf - inf).
        let mut fg = case.fgraph();
        rewrite(&mut fg, &TO_STABILIZE);
        let inf = f64::INFINITY;
        let x = Tensor::from_vec(vec![4], vec![800.0f64, -800.0, -inf, inf]).unwrap();
        let y = Tensor::from_vec(vec![4], vec![800.0f64, -801.0, -inf, 1.0]).unwrap();
        let got = run(&fg, &[x, y]);
        let want = [
            800.0 + 2.0f64.ln(),
            -800.0 + (-1.0f64).exp().ln_1p(),
            -inf,
            inf,
        ];
        assert_eq!(got, want);
        let (case32, _) = lae_case(DType::Float32);
        let x = Tensor::from_vec(vec![2], vec![100.0f32, 1.0]).unwrap();
        let y = Tensor::from_vec(vec![2], vec![99.0f32, 2.0]).unwrap();
        let mut fg = case32.fgraph();
        rewrite(&mut fg, &TO_STABILIZE);
        let got = run(&fg, &[x, y]);
        assert!(
            (got[0] - (100.0 + (-1.0f64).exp().ln_1p())).abs() < 1e-4,
            "{got:?}"
        );
    }

    #[test]
    fn a_sum_with_a_term_that_is_not_an_exp_stays() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let ex = build::exp(&mut g, x).unwrap();
        let s = build::add(&mut g, ex, x).unwrap();
        let l = build::log(&mut g, s).unwrap();
        let case = Case::new(g, vec![x], vec![l]);
        let fg = check(
            &case,
            &TO_STABILIZE,
            &[Tensor::from_vec(vec![1], vec![0.5f64]).unwrap()],
            0.0,
        );
        assert!(!printed(&fg).contains("Maximum"));
    }
}
