//! Lending a dying input to the op that reads it last. `set_subtensor`,
//! `inc_subtensor` and their advanced forms return a modified copy of `x`;
//! when `x` is an intermediate nobody reads afterwards, the copy is wasted
//! work (for `diag(v)`, a pass over a whole `n²` matrix of zeros to write
//! `n` elements). PyTensor avoids it with inplace rewrites checked by its
//! DestroyHandler. Here the program offers the value to the op instead
//! ([`Pool::lend`](crate::kernels::alloc::Pool::lend)), and the op writes into it only when, at that moment,
//! nothing else holds its buffer (see [`Pool::take_loan`](crate::kernels::alloc::Pool::take_loan)): an alias the
//! graph does not show (a view in another slot, an array a Python op kept,
//! the caller's argument) holds a reference too and makes the op copy.

use super::program::{Src, Step, Workspace};
use crate::value::Value;

/// Marks each step whose thunk can write its output into one of its inputs
/// (`Thunk::overwritable_input`) when that input is a slot the step is the
/// last to read and reads only once (reading it twice, as `x` and `y`,
/// would let the op read what it has already overwritten).
pub(super) fn mark_donors(steps: &mut [Step]) {
    for step in steps.iter_mut() {
        // A destroying step gets its input granted (`destroy_grant.rs`).
        if !step.destroys.is_empty() {
            continue;
        }
        let Some(i) = step.thunk.overwritable_input() else {
            continue;
        };
        let Some(&Src::Slot(slot)) = step.run_inputs.get(i) else {
            continue;
        };
        let read_once = step
            .run_inputs
            .iter()
            .filter(|&&s| s == Src::Slot(slot))
            .count()
            == 1;
        if read_once && step.frees.contains(&slot) {
            step.donor = Some((i, slot));
        }
    }
}

/// Offers the tensor in `slot` to the next op run with `ws.pool`.
pub(super) fn lend(ws: &mut Workspace, slot: usize) {
    if let Some(Value::Tensor(t)) = &ws.storage[slot] {
        ws.pool.lend(t.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::super::program::{link_native, Program};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{FunctionGraph, Graph, VarId};
    use crate::ops::advanced_inc_subtensor::AdvancedIncSubtensor1;
    use crate::tensor::Tensor;
    use crate::value::Value;
    use std::sync::Arc;

    /// `inc_subtensor(x[[0, 0, 2]], y)` in a graph over vectors `x`, `y`.
    fn increment(g: &mut Graph, x: VarId, y: VarId) -> VarId {
        let idx = g.tensor_constant(Tensor::from_vec(vec![3], vec![0i64, 0, 2]).unwrap());
        let op = Arc::new(AdvancedIncSubtensor1 {
            set_instead_of_inc: false,
            inplace: false,
        });
        g.apply_out(op, &[x, y, idx]).unwrap()
    }

    /// A fresh graph with the float64 vectors `x` and `y`.
    fn vectors() -> (Graph, [VarId; 2]) {
        graph_with([("x", DType::Float64, 1), ("y", DType::Float64, 1)])
    }

    fn run(prog: &Program, x: &Tensor) -> Vec<Value> {
        let y = Tensor::from_vec(vec![3], vec![10.0f64, 20.0, 30.0]).unwrap();
        prog.run(vec![x.clone().into(), y.into()]).unwrap()
    }

    fn values(v: &Value) -> Vec<f64> {
        v.tensor().unwrap().as_slice::<f64>().unwrap().to_vec()
    }

    fn x_value() -> Tensor {
        Tensor::from_vec(vec![3], vec![1.0f64, 2.0, 3.0]).unwrap()
    }

    /// `2 * x` incremented by `y` at `[0, 0, 2]`: the graph, `x`, `y`
    /// and the increment.
    fn doubled_then_incremented() -> (Graph, [VarId; 2], VarId) {
        let (mut g, [x, y]) = vectors();
        let two = g.tensor_constant(Tensor::scalar(2.0f64));
        let a = build::mul(&mut g, x, two).unwrap();
        let out = increment(&mut g, a, y);
        (g, [x, y], out)
    }

    /// `prog` (of [`doubled_then_incremented`]) gives its values and leaves
    /// no buffer in the pool: `2 * x`'s was written in place, not recycled.
    fn assert_runs_in_place(prog: &Program) {
        let got = run(prog, &x_value());
        assert_eq!(values(&got[0]), vec![32.0, 4.0, 36.0]);
        assert!(prog.workspace.lock().unwrap().pool.is_empty());
    }

    #[test]
    fn a_dying_intermediate_becomes_the_output() {
        let (g, [x, y], out) = doubled_then_incremented();
        let fg = FunctionGraph::new(g, vec![x, y], vec![out]).unwrap();
        let prog = link_native(&fg, false);
        let last = prog.steps.last().unwrap();
        assert_eq!(last.donor.map(|(i, _)| i), Some(0));
        for _ in 0..2 {
            assert_runs_in_place(&prog);
        }
    }

    #[test]
    fn a_value_another_slot_still_sees_is_copied() {
        let (mut g, [x, y]) = vectors();
        let two = g.tensor_constant(Tensor::scalar(2.0f64));
        let a = build::mul(&mut g, x, two).unwrap();
        let view = build::dimshuffle(&mut g, a, vec![None, Some(0)]).unwrap();
        let out = increment(&mut g, a, y);
        let fg = FunctionGraph::new(g, vec![x, y], vec![view, out]).unwrap();
        let prog = link_native(&fg, false);
        let got = run(&prog, &x_value());
        assert_eq!(values(&got[0]), vec![2.0, 4.0, 6.0]);
        assert_eq!(values(&got[1]), vec![32.0, 4.0, 36.0]);
    }

    /// In `FAST_RUN` the inplace phase makes the increment inplace, so the
    /// program grants `2 * x` to it and lends nothing: donation has work
    /// only in modes without the phase.
    #[test]
    fn fast_run_leaves_nothing_to_donate() {
        use crate::compile::{compile, FunctionInput, FunctionSpec, Mode};
        for (mode, donors) in [(Mode::fast_run(), 0), (Mode::fast_compile(), 1)] {
            let (g, [x, y], out) = doubled_then_incremented();
            let spec = FunctionSpec {
                inputs: vec![FunctionInput::new(x), FunctionInput::new(y)],
                outputs: vec![(out, false)],
                ..FunctionSpec::default()
            };
            let prog = compile(g, spec, &mode).unwrap().program;
            let lent = prog.steps.iter().filter(|s| s.donor.is_some()).count();
            assert_eq!(lent, donors, "{}", mode.name);
            assert_runs_in_place(&prog);
        }
    }

    #[test]
    fn inputs_are_never_lent() {
        let (mut g, [x, y]) = vectors();
        let out = increment(&mut g, x, y);
        let fg = FunctionGraph::new(g, vec![x, y], vec![out]).unwrap();
        let prog = link_native(&fg, false);
        assert!(prog.steps.iter().all(|s| s.donor.is_none()));
        let xv = x_value();
        let got = run(&prog, &xv);
        assert_eq!(values(&got[0]), vec![31.0, 2.0, 33.0]);
        assert_eq!(xv.as_slice::<f64>().unwrap(), &[1.0, 2.0, 3.0]);
    }
}
