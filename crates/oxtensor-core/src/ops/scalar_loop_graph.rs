//! A `ScalarLoop` and graphs: made from a scalar `FunctionGraph` whose
//! inputs are the states then the constants and whose outputs are the
//! updates (then `until`), and shown as one (`ScalarLoop.fgraph`, what
//! `dprint` prints under "Inner graphs": the step, inputs `i0, i1, ...`).

use crate::error::{Error, Result};
use crate::graph::FunctionGraph;
use crate::scalar::composite::Composite;
use crate::scalar::scalar_loop::ScalarLoop;

impl ScalarLoop {
    /// The loop of `fg`'s step: its first `n_update` inputs are the states,
    /// updated by its first `n_update` outputs; with `is_while` its last
    /// output is `until`. An update may not be a state itself (PyTensor's
    /// rule: an output returned as a lagged input goes through `identity`).
    pub fn from_fgraph(
        fg: &FunctionGraph,
        n_update: usize,
        is_while: bool,
        name: &str,
    ) -> Result<ScalarLoop> {
        let states = &fg.inputs()[..n_update.min(fg.inputs().len())];
        let updates = &fg.outputs()[..n_update.min(fg.outputs().len())];
        if let Some(&same) = updates.iter().find(|u| states.contains(u)) {
            return Err(Error::Value(format!(
                "Some inputs and outputs are the same variable ({}). If you want to return an \
                 output as a lagged input, wrap it in an identity Op.",
                fg.graph().describe_var(same)
            )));
        }
        let step = Composite::from_fgraph_of(fg, "ScalarLoop")?;
        ScalarLoop::new(step, n_update, is_while, name)
    }

    /// The step as a scalar function graph (inputs `i0, i1, ...`: the
    /// states, then the constants).
    pub fn fgraph(&self) -> Result<FunctionGraph> {
        self.step().fgraph()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType::*;
    use crate::graph::testing::scalar_graph_with;
    use crate::scalar::{ScalarKind as K, ScalarOp};
    use crate::tensor::{Scalar, Tensor};
    use crate::value::Value;
    use crate::vm::{LinkOptions, Program};
    use std::sync::Arc;

    /// `x_{t+1} = x_t + c`, as a graph of scalars.
    fn add_const_loop() -> ScalarLoop {
        let (mut g, [x, c]) = scalar_graph_with([("x", Float64), ("c", Float64)]);
        let s = g
            .apply_out(Arc::new(ScalarOp::Kind(K::Add)), &[x, c])
            .unwrap();
        let fg = FunctionGraph::new(g, vec![x, c], vec![s]).unwrap();
        ScalarLoop::from_fgraph(&fg, 1, false, "ScalarLoop").unwrap()
    }

    #[test]
    fn loops_are_graph_ops_that_run() {
        let l = Arc::new(add_const_loop());
        assert_eq!(l.fgraph().unwrap().inputs().len(), 2);
        let (mut g, [n, x, c]) = scalar_graph_with([("n", Int64), ("x", Float64), ("c", Float64)]);
        let out = g
            .apply_out(Arc::new(ScalarOp::Loop(l)), &[n, x, c])
            .unwrap();
        let fg = FunctionGraph::new(g, vec![n, x, c], vec![out]).unwrap();
        let prog = Program::link(&fg, Default::default(), &LinkOptions::default()).unwrap();
        let run = |n: i64, x: f64, c: f64| {
            let args = vec![
                Value::from(Tensor::scalar(n)),
                Tensor::scalar(x).into(),
                Tensor::scalar(c).into(),
            ];
            prog.run(args).map(|o| o[0].tensor().unwrap().get(0))
        };
        let float = |v: f64| Scalar::Float(v, Float64);
        assert_eq!(run(5, 0.0, 2.0).unwrap(), float(10.0));
        assert_eq!(run(0, 3.0, 2.0).unwrap(), float(3.0));
        let err = run(-1, 0.0, 1.0).unwrap_err().to_string();
        assert!(
            err.contains("does not have a termination condition"),
            "{err}"
        );
    }

    #[test]
    fn an_update_that_is_a_state_is_refused() {
        let (mut g, [a, b]) = scalar_graph_with([("a", Float64), ("b", Float64)]);
        let s = g
            .apply_out(Arc::new(ScalarOp::Kind(K::Add)), &[a, b])
            .unwrap();
        let fg = FunctionGraph::new(g, vec![a, b], vec![b, s]).unwrap();
        let err = ScalarLoop::from_fgraph(&fg, 2, false, "L").unwrap_err();
        assert!(err
            .to_string()
            .contains("Some inputs and outputs are the same variable"));
    }
}
