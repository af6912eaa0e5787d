//! `argmin` at link time. PyTensor builds `argmin(x)` as `Argmax(Neg(x))`
//! for floats and `Argmax(Invert(x))` for integers and bools, and the graph
//! keeps that form (`dprint` reads as PyTensor's). When nothing else reads
//! the reversed copy, the linker runs the pair as one step, the `argmin`
//! kernel on `x`, so the copy is never written: on 4000x4000 float64 rows
//! that copy cost as much as the argmax itself.
//!
//! Only exact reversals qualify: negating a float reverses its order
//! (NaN stays NaN, the first of which both kernels pick; -0 and +0 stay
//! equal), and so does `~` on integers and bools. Negating an integer does
//! not (the most negative value overflows), so `Argmax(Neg(int))` stays.

use super::program::{Src, Step};
use super::thunk::Thunk;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::kernels::alloc::Pool;
use crate::kernels::argmax::argmin;
use crate::ops::argmax::Argmax;
use crate::ops::elemwise::Elemwise;
use crate::ops::scalar::{ScalarKind, ScalarOp};
use crate::value::Value;
use std::collections::{HashMap, HashSet};

/// `Argmax(reverse(x))` run as the `argmin` kernel on `x`.
struct ArgminThunk {
    op: Argmax,
}

impl Thunk for ArgminThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axes = self.op.axes(x.ndim());
        outputs[0] = Some(argmin(x, &axes, Some(pool))?.into());
        Ok(())
    }
}

/// Runs each `Argmax` of an order-reversing `Elemwise` that only it reads
/// as one `argmin` step; `order[k]` is the node of `steps[k]`, and both
/// lose the reversing steps.
pub(super) fn link_argmins(fg: &FunctionGraph, order: &mut Vec<NodeId>, steps: &mut Vec<Step>) {
    let at: HashMap<NodeId, usize> = order.iter().enumerate().map(|(k, &n)| (n, k)).collect();
    let mut dropped = HashSet::new();
    for (k, &n) in order.iter().enumerate() {
        let node = fg.graph().node(n);
        let Some(argmax) = node.op.as_any().downcast_ref::<Argmax>() else {
            continue;
        };
        let Some(j) = reversal(fg, node.inputs[0]).and_then(|m| at.get(&m).copied()) else {
            continue;
        };
        if steps[k].thunk.is_host() || steps[j].thunk.is_host() {
            continue;
        }
        let inputs: Vec<Src> = steps[j].inputs.clone();
        steps[k].rewire(Box::new(ArgminThunk { op: argmax.clone() }), inputs);
        dropped.insert(j);
    }
    let mut k = 0;
    order.retain(|_| (!dropped.contains(&k), k += 1).0);
    let mut k = 0;
    steps.retain(|_| (!dropped.contains(&k), k += 1).0);
}

/// The node computing `v` when it reverses the order of its input exactly
/// (`Neg` of a float, `Invert` of an integer or bool) and `v` has no other
/// reader and is not an output.
fn reversal(fg: &FunctionGraph, v: VarId) -> Option<NodeId> {
    let g = fg.graph();
    let m = g.var(v).owner()?;
    let e = g.node(m).op.as_any().downcast_ref::<Elemwise>()?;
    let dtype = g.var(v).ty.as_tensor()?.dtype;
    let exact = match e.scalar_op {
        ScalarOp::Kind(ScalarKind::Neg) => dtype.is_float(),
        ScalarOp::Kind(ScalarKind::Invert) => dtype.is_discrete(),
        _ => false,
    };
    let only_reader = fg.clients(v).len() == 1 && !fg.outputs().contains(&v);
    (exact && e.inplace_pattern.is_empty() && only_reader).then_some(m)
}

#[cfg(test)]
mod tests {
    use super::super::program::Program;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph};
    use crate::ops::argmax::Argmax;
    use crate::ops::scalar::ScalarKind;
    use crate::tensor::Tensor;
    use crate::types::TensorType;
    use crate::value::Value;
    use std::sync::Arc;

    /// `Argmax{axis}(reverse(x))` of a 2-d `x`, with `reverse(x)` also an
    /// output when `expose`.
    fn graph(dtype: DType, kind: ScalarKind, axis: Option<&[i64]>, expose: bool) -> FunctionGraph {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(dtype, 2), Some("x"));
        let r = build::elemwise(&mut g, kind, &[x]).unwrap();
        let op = Argmax::new(axis, 2).unwrap();
        let out = g.apply_out(Arc::new(op), &[r]).unwrap();
        let outs = if expose { vec![out, r] } else { vec![out] };
        FunctionGraph::new(g, vec![x], outs).unwrap()
    }

    fn link(fg: &FunctionGraph, fuse: bool) -> Program {
        super::super::program::link_native(fg, fuse)
    }

    fn ints(v: &Value) -> Vec<i64> {
        v.tensor().unwrap().as_slice::<i64>().unwrap().to_vec()
    }

    /// Runs `fg` linked with and without the rewrite: same answers, and
    /// the number of steps the rewritten program has.
    fn both(fg: &FunctionGraph, x: Tensor) -> (Vec<Vec<i64>>, usize) {
        let (fast, plain) = (link(fg, true), link(fg, false));
        let args = [Value::from(x)];
        let a: Vec<Vec<i64>> = fast.run(&args).unwrap().iter().take(1).map(ints).collect();
        let b: Vec<Vec<i64>> = plain.run(&args).unwrap().iter().take(1).map(ints).collect();
        assert_eq!(a, b, "rewritten and plain runs differ");
        (a, fast.steps.len())
    }

    #[test]
    fn float_argmins_skip_the_negated_copy_and_keep_numpys_answers() {
        let mut v: Vec<f64> = (0..6 * 1100)
            .map(|i| ((i * 37) % 101) as f64 - 50.0)
            .collect();
        v[2 * 1100 + 700] = f64::NAN;
        v[4 * 1100 + 3] = -0.0;
        v[5 * 1100 + 1099] = f64::NEG_INFINITY;
        let x = Tensor::from_vec(vec![6, 1100], v.clone()).unwrap();
        let rows: Vec<&[f64]> = v.chunks(1100).collect();
        let first_min = |r: &[f64]| -> i64 {
            if let Some(i) = r.iter().position(|a| a.is_nan()) {
                return i as i64;
            }
            let m = r.iter().copied().fold(f64::INFINITY, f64::min);
            r.iter().position(|&a| a == m).unwrap() as i64
        };
        for dtype in [DType::Float64, DType::Float32] {
            let fg = graph(dtype, ScalarKind::Neg, Some(&[1]), false);
            let x = crate::kernels::cast::cast(&x, dtype).unwrap();
            let (got, steps) = both(&fg, x.clone());
            assert_eq!(steps, 1, "{dtype}: Neg and Argmax run as one step");
            assert_eq!(
                got[0],
                rows.iter().map(|r| first_min(r)).collect::<Vec<_>>()
            );
            // Columns (a transposed view) and the whole array.
            let fg = graph(dtype, ScalarKind::Neg, Some(&[0]), false);
            assert_eq!(both(&fg, x.clone()).1, 1);
            let fg = graph(dtype, ScalarKind::Neg, None, false);
            assert_eq!(both(&fg, x).0[0], vec![2 * 1100 + 700]);
        }
    }

    #[test]
    fn inverted_integers_and_bools_become_argmins() {
        let v: Vec<i32> = (0..40).map(|i| (i * 7919) % 23 - 11).collect();
        let x = Tensor::from_vec(vec![4, 10], v.clone()).unwrap();
        let fg = graph(DType::Int32, ScalarKind::Invert, Some(&[1]), false);
        let (got, steps) = both(&fg, x);
        assert_eq!(steps, 1);
        let want: Vec<i64> = v
            .chunks(10)
            .map(|r| {
                let m = *r.iter().min().unwrap();
                r.iter().position(|&a| a == m).unwrap() as i64
            })
            .collect();
        assert_eq!(got[0], want);
        let b = Tensor::from_vec(vec![2, 3], vec![true, false, false, true, true, true]).unwrap();
        let fg = graph(DType::Bool, ScalarKind::Invert, Some(&[1]), false);
        assert_eq!(both(&fg, b).0[0], vec![1, 0]);
    }

    #[test]
    fn pairs_that_are_not_exact_reversals_or_are_read_elsewhere_stay() {
        let x = Tensor::from_vec(vec![2, 3], vec![i64::MIN, 0, 5, 3, -2, 1]).unwrap();
        // -i64::MIN overflows: the plain pair runs (and argmax(-x) keeps
        // its own answer).
        let fg = graph(DType::Int64, ScalarKind::Neg, Some(&[1]), false);
        assert_eq!(both(&fg, x).1, 2);
        let f = Tensor::from_vec(vec![2, 2], vec![1.0, -1.0, 2.0, 3.0]).unwrap();
        let fg = graph(DType::Float64, ScalarKind::Neg, Some(&[1]), true);
        let fast = link(&fg, true);
        assert_eq!(fast.steps.len(), 2, "the negated copy is an output");
        let out = fast.run(&[Value::from(f)]).unwrap();
        assert_eq!(ints(&out[0]), vec![1, 0]);
        let fg = graph(DType::Float64, ScalarKind::Exp, Some(&[1]), false);
        assert_eq!(link(&fg, true).steps.len(), 2);
    }

    #[test]
    fn empty_lanes_raise_naming_argmin() {
        let fg = graph(DType::Float64, ScalarKind::Neg, Some(&[1]), false);
        let err = link(&fg, true)
            .run(&[Value::from(Tensor::zeros(DType::Float64, &[2, 0]).unwrap())])
            .unwrap_err()
            .to_string();
        assert!(err.contains("argmin of an empty sequence"), "{err}");
        assert!(err.contains("Argmax{axis=(1,)}"), "{err}");
    }
}
