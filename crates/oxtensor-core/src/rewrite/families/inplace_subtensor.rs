//! `inplace_subtensor_opt` (PyTensor's `local_inplace_setsubtensor`,
//! `local_inplace_AdvancedIncSubtensor1` and
//! `local_inplace_AdvancedIncSubtensor`): an `IncSubtensor`,
//! `AdvancedIncSubtensor1` or `AdvancedIncSubtensor` becomes its `inplace`
//! version, writing `y` into `x` itself instead of into a copy, where `x`
//! is a candidate ([`inplace_candidates`]: not protected, not destroyed
//! already, no alias among the other inputs) and the `DestroyHandler` and
//! `Supervisor` accept the change. One validation per node. It runs at
//! 70.6, before the elementwise pass (as PyTensor's do), so a value both
//! could overwrite goes to the increment, whose copy costs a whole pass.

use super::inplace_pass::{self, inplace_copy};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::ops::advanced_inc_subtensor::{AdvancedIncSubtensor, AdvancedIncSubtensor1};
use crate::ops::subtensor::IncSubtensor;
use crate::ops::OpRef;
use crate::rewrite::RewriteDb;

/// The inplace version of `n`'s op, when it is a pure increment.
fn inplace_version(fg: &FunctionGraph, n: NodeId) -> Option<OpRef> {
    let any = fg.graph().node(n).op.as_any();
    inplace_copy!(any, IncSubtensor)
        .or_else(|| inplace_copy!(any, AdvancedIncSubtensor1))
        .or_else(|| inplace_copy!(any, AdvancedIncSubtensor))
}

/// Registers the pass at position 70.6 (see `inplace_pass.rs`).
pub(super) fn register(db: &RewriteDb) -> Result<()> {
    inplace_pass::register_first_input(db, "inplace_subtensor_opt", inplace_version, 70.6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::compile::{compile, FunctionInput, FunctionSpec, Mode};
    use crate::dtype::DType;
    use crate::graph::Graph;
    use crate::rewrite::families::testing::inplace_nodes;
    use crate::tensor::Tensor;
    use crate::types::TensorType;
    use crate::value::Value;
    use std::sync::Arc;

    /// `inc_subtensor(a[[0, 0, 2]], y)` for `a = 2 * x` (an intermediate)
    /// or `a = x`, compiled in `FAST_RUN` with `x` mutable or not: the
    /// number of inplace nodes, the result and `x` after the call.
    fn run(intermediate: bool, mutable: bool) -> (usize, Vec<f64>, Vec<f64>) {
        let mut g = Graph::new();
        let ty = TensorType::with_ndim(DType::Float64, 1);
        let (x, y) = (g.input(ty.clone(), Some("x")), g.input(ty, Some("y")));
        let two = g.tensor_constant(Tensor::scalar(2.0f64));
        let a = if intermediate {
            build::mul(&mut g, x, two).unwrap()
        } else {
            x
        };
        let idx = g.tensor_constant(Tensor::from_vec(vec![3], vec![0i64, 0, 2]).unwrap());
        let op = Arc::new(AdvancedIncSubtensor1 {
            set_instead_of_inc: false,
            inplace: false,
        });
        let out = g.apply_out(op, &[a, y, idx]).unwrap();
        let mut xin = FunctionInput::new(x);
        xin.mutable = mutable;
        let spec = FunctionSpec {
            inputs: vec![xin, FunctionInput::new(y)],
            outputs: vec![(out, false)],
            ..FunctionSpec::default()
        };
        let compiled = compile(g, spec, &Mode::fast_run()).unwrap();
        let n = inplace_nodes(&compiled.built.fgraph);
        let xv = Tensor::from_vec(vec![3], vec![1.0f64, 2.0, 3.0]).unwrap();
        let ptr = xv.as_ptr();
        let yv = Tensor::from_vec(vec![3], vec![10.0f64, 20.0, 30.0]).unwrap();
        let res = compiled
            .program
            .run(vec![Value::from(xv), yv.into()])
            .unwrap();
        let t = res[0].tensor().unwrap();
        // SAFETY: three float64s at `ptr`, alive in `res` when written in
        // place; read only when they were (the output is x's buffer).
        let x_after = if t.as_ptr() == ptr {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(ptr as *const f64, 3) }.to_vec()
        } else {
            vec![1.0, 2.0, 3.0]
        };
        (n, t.as_slice::<f64>().unwrap().to_vec(), x_after)
    }

    #[test]
    fn an_intermediate_is_incremented_in_place() {
        let (n, out, _) = run(true, false);
        assert!(n >= 1, "{n}");
        assert_eq!(out, vec![32.0, 4.0, 36.0]);
    }

    #[test]
    fn an_input_only_when_mutable() {
        let (n, out, x) = run(false, false);
        assert_eq!((n, out, x), (0, vec![31.0, 2.0, 33.0], vec![1.0, 2.0, 3.0]));
        let (n, out, x) = run(false, true);
        assert_eq!(n, 1);
        assert_eq!(out, vec![31.0, 2.0, 33.0]);
        assert_eq!(x, vec![31.0, 2.0, 33.0], "written into the mutable input");
    }
}
