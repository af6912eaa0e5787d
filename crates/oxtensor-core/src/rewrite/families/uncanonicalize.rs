//! The uncanonicalize phase (PyTensor's `tensor/rewriting/uncanonicalize.py`):
//! `local_max_to_min`, `-max(-x) -> min(x)`, one reduction and no negated
//! copies. Floats only: negating an integer overflows at its most negative
//! value (`-max(-[i8::MIN, 5])` is 5, `min` is -128), so integer graphs
//! keep the form they were written in. The maximum must have no other
//! reader, or both reductions would run.

use super::util::{dtype_of, inputs, like, negated, output, owner_as, read_once};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::ops::reduce::CAReduce;
use crate::reduction::ReduceKind;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::*;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let rw = scalar_rw!("local_max_to_min", [Neg], local_max_to_min);
    register_in(db, phase::UNCANONICALIZE, rw, &[])
}

fn local_max_to_min(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [m] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some((max_node, max)) = owner_as::<CAReduce>(fg, m) else {
        return Ok(None);
    };
    let max = max.clone();
    let Some(x) = negated(fg, inputs(fg, max_node)[0]) else {
        return Ok(None);
    };
    let float = dtype_of(fg, x).is_some_and(|d| d.is_float());
    if max.kind != ReduceKind::Max || !float || !read_once(fg, m) {
        return Ok(None);
    }
    let min = CAReduce {
        kind: ReduceKind::Min,
        ..max
    };
    let new = fg.graph_mut().apply_out(Arc::new(min), &[x])?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, check_prints, printed, Case};
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::reduction::ReduceKind;
    use crate::tensor::Tensor;

    /// `-max(-x, axis)` of a 2-d `x`, the maximum also an output when `expose`.
    fn case(dtype: DType, axis: Option<&[i64]>, expose: bool) -> Case {
        let (mut g, [x]) = graph_with([("x", dtype, 2)]);
        let n = build::neg(&mut g, x).unwrap();
        let m = build::reduce(&mut g, ReduceKind::Max, n, axis).unwrap();
        let out = build::neg(&mut g, m).unwrap();
        let outputs = if expose { vec![out, m] } else { vec![out] };
        Case::new(g, vec![x], outputs)
    }

    fn matrix(dtype: DType) -> Tensor {
        let v = vec![3.0f64, f64::NAN, -1.0, 2.0, -5.0, f64::NEG_INFINITY];
        crate::kernels::elemwise::cast::cast(&Tensor::from_vec(vec![2, 3], v).unwrap(), dtype)
            .unwrap()
    }

    #[test]
    fn minus_max_of_minus_x_is_min() {
        for dtype in [DType::Float64, DType::Float32] {
            let fg = check(
                &case(dtype, Some(&[0]), false),
                &["fast_run"],
                &[matrix(dtype)],
                0.0,
            );
            assert_eq!(printed(&fg), "Min{axis=0} [id A]\n └─ x [id B]\n");
            check_prints(
                &case(dtype, None, false),
                &["fast_run"],
                &[matrix(dtype)],
                0.0,
                "Min{axes=None} [id A]\n └─ x [id B]\n",
            );
        }
    }

    #[test]
    fn integers_and_maxima_read_elsewhere_stay() {
        let v = Tensor::from_vec(vec![2, 2], vec![i8::MIN, 5, 3, -2]).unwrap();
        let fg = check(
            &case(DType::Int8, Some(&[1]), false),
            &["fast_run"],
            &[v],
            0.0,
        );
        assert!(printed(&fg).contains("Max"));
        let fg = check(
            &case(DType::Float64, Some(&[1]), true),
            &["fast_run"],
            &[matrix(DType::Float64)],
            0.0,
        );
        assert!(!printed(&fg).contains("Min"));
    }
}
