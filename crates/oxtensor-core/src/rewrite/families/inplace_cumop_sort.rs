//! `inplace_cumop_sort_opt`: a `CumOp` (`cumsum`, `cumprod`) or a
//! `SortOp` becomes its `inplace` version (`destroy_map = {0: [0]}`),
//! computing the result over its input's own buffer instead of a new
//! array, where the input is a candidate ([`inplace_candidates`]) and the
//! `DestroyHandler` and `Supervisor` accept the change: one validation per
//! node. PyTensor 3.x has no inplace variant of either op; the rewrite
//! saves an array per call exactly as the elementwise one does. It runs at
//! 70.7, after the increments and before the elementwise pass, which
//! takes what is left.
//!
//! [`inplace_candidates`]: crate::graph::destroy::inplace_candidates

use super::inplace_pass::{self, inplace_copy};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::ops::cumulative::CumOp;
use crate::ops::sort::Sort;
use crate::ops::OpRef;
use crate::rewrite::RewriteDb;

/// The inplace version of `n`'s op, when it is a pure `CumOp` or `SortOp`
/// (`ArgSortOp`'s int64 indices cannot live in its input).
fn inplace_version(fg: &FunctionGraph, n: NodeId) -> Option<OpRef> {
    let any = fg.graph().node(n).op.as_any();
    let argsort = any.downcast_ref::<Sort>().is_some_and(|o| o.indices);
    inplace_copy!(any, CumOp).or_else(|| inplace_copy!(any, Sort).filter(|_| !argsort))
}

/// Registers the pass at position 70.7 (see `inplace_pass.rs`).
pub(super) fn register(db: &RewriteDb) -> Result<()> {
    inplace_pass::register_first_input(db, "inplace_cumop_sort_opt", inplace_version, 70.7)
}

#[cfg(test)]
mod tests {
    use crate::build;
    use crate::compile::{compile, Compiled, FunctionInput, FunctionSpec, Mode};
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::kernels::reduce::CumMode;
    use crate::ops::cumulative::CumOp;
    use crate::ops::sort::Sort;
    use crate::rewrite::families::testing::inplace_nodes;
    use crate::tensor::Tensor;

    use crate::value::Value;
    use std::sync::Arc;

    /// `out` over `g`'s input `x`, mutable or not, compiled in `mode`.
    fn compiled(g: Graph, x: VarId, out: VarId, mutable: bool, mode: &Mode) -> Compiled {
        let mut xin = FunctionInput::new(x);
        xin.mutable = mutable;
        let spec = FunctionSpec {
            inputs: vec![xin],
            outputs: vec![(out, false)],
            ..FunctionSpec::default()
        };
        compile(g, spec, mode).unwrap()
    }

    /// `op(a)` for `a = 2 * x` (an intermediate) or `a = x`, compiled in
    /// `mode` with `x` mutable or not, run on `[3, 1, 2]`: the number of
    /// inplace nodes, the result and whether it is `x`'s buffer.
    fn run(sort: bool, intermediate: bool, mutable: bool, mode: &Mode) -> (usize, Vec<f64>, bool) {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let a = if intermediate {
            let two = g.tensor_constant(Tensor::scalar(2.0f64));
            build::mul(&mut g, x, two).unwrap()
        } else {
            x
        };
        let out: VarId = if sort {
            let axis = g.tensor_constant(Tensor::scalar(0i64));
            let op = Sort {
                indices: false,
                kind: "quicksort".into(),
                inplace: false,
            };
            g.apply_out(Arc::new(op), &[a, axis]).unwrap()
        } else {
            let op = CumOp::new(0, CumMode::Add, 1).unwrap();
            g.apply_out(Arc::new(op), &[a]).unwrap()
        };
        let compiled = compiled(g, x, out, mutable, mode);
        let n = inplace_nodes(&compiled.built.fgraph);
        let xv = Tensor::from_vec(vec![3], vec![3.0f64, 1.0, 2.0]).unwrap();
        let ptr = xv.as_ptr();
        let res = compiled.program.run(vec![Value::from(xv)]).unwrap();
        let t = res[0].tensor().unwrap();
        (n, t.as_slice::<f64>().unwrap().to_vec(), t.as_ptr() == ptr)
    }

    #[test]
    fn an_intermediate_is_overwritten_in_fast_run_only() {
        // `cumsum(2x)` and `sort(2x)` of `[3, 1, 2]`.
        for (sort, want) in [(false, vec![6.0, 8.0, 12.0]), (true, vec![2.0, 4.0, 6.0])] {
            let (n, out, _) = run(sort, true, false, &Mode::fast_run());
            assert_eq!((n, &out), (1, &want), "sort={sort}");
            let (n, out, _) = run(sort, true, false, &Mode::fast_compile());
            assert_eq!((n, &out), (0, &want), "sort={sort}");
        }
    }

    #[test]
    fn an_input_only_when_mutable() {
        // `cumsum(x)` and `sort(x)` of `[3, 1, 2]`.
        for (sort, want) in [(false, vec![3.0, 4.0, 6.0]), (true, vec![1.0, 2.0, 3.0])] {
            let (n, out, same) = run(sort, false, false, &Mode::fast_run());
            assert_eq!((n, &out, same), (0, &want, false), "sort={sort}");
            let (n, out, same) = run(sort, false, true, &Mode::fast_run());
            assert_eq!((n, &out, same), (1, &want, true), "sort={sort}");
        }
    }

    /// `cumsum(x)` with no axis runs over `x.flatten()`, a view: with `x`
    /// mutable the running sum goes into `x`'s own buffer (held by the
    /// argument and the view's slot, both the program's), and otherwise
    /// `x` is left alone.
    #[test]
    fn a_flat_running_sum_of_a_mutable_matrix_is_written_into_it() {
        for mutable in [true, false] {
            let (mut g, [x]) = graph_with([("x", DType::Float64, 2)]);
            let flat = build::numpy_index::flatten(&mut g, x).unwrap();
            let op = CumOp::new(0, CumMode::Add, 1).unwrap();
            let out = g.apply_out(Arc::new(op), &[flat]).unwrap();
            let compiled = compiled(g, x, out, mutable, &Mode::fast_run());
            let n = 3000;
            let xs: Vec<f64> = (0..2 * n).map(|i| (i % 7) as f64).collect();
            let xv = Tensor::from_vec(vec![2, n], xs.clone()).unwrap();
            let ptr = xv.as_ptr();
            let res = compiled.program.run(vec![Value::from(xv.clone())]).unwrap();
            let t = res[0].tensor().unwrap();
            let want: Vec<f64> = xs
                .iter()
                .scan(0.0, |acc, &v| {
                    *acc += v;
                    Some(*acc)
                })
                .collect();
            assert_eq!(t.as_slice::<f64>().unwrap(), &want[..]);
            // `xv` is held here as well: a run on it never writes it.
            assert_eq!(xv.as_slice::<f64>().unwrap(), &xs[..]);
            drop(res);
            let res = compiled.program.run(vec![Value::from(xv)]).unwrap();
            let t = res[0].tensor().unwrap();
            assert_eq!(t.as_slice::<f64>().unwrap(), &want[..]);
            assert_eq!(t.as_ptr() == ptr, mutable, "mutable={mutable}");
        }
    }
}
