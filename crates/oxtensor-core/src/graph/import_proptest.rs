//! Property: importing a graph into a function graph. Any random graph,
//! with any choice of outputs and of declared inputs (some missing, some
//! repeated, some not inputs at all), becomes a function graph whose
//! bookkeeping is consistent, or is refused with an error; compiled and
//! run on arrays of its inputs' shapes, it computes or raises, never panics.

use super::random_graphs::{build, recipe};
use crate::graph::FunctionGraph;
use crate::tensor::Tensor;
use crate::value::Value;
use crate::vm::Program;
use proptest::prelude::*;

proptest! {
    #[test]
    fn imports_consistently_or_refuses(
        r in recipe(),
        outs in prop::collection::vec(any::<usize>(), 1..4),
        ins in prop::collection::vec(any::<usize>(), 0..4),
    ) {
        let (g, inputs, vars) = build(&r);
        let outputs: Vec<_> = outs.iter().map(|&i| vars[i % vars.len()]).collect();
        let declared: Vec<_> = ins.iter().map(|&i| vars[i % vars.len()]).chain(inputs.clone()).collect();
        let fg = match FunctionGraph::new(g, declared.clone(), outputs) {
            Ok(fg) => fg,
            Err(_) => return Ok(()),
        };
        prop_assert!(fg.check_integrity().is_ok(), "{:?}", fg.check_integrity());
        let order = fg.toposort().unwrap();
        prop_assert_eq!(order.len(), fg.apply_nodes().count());
        let Ok(program) = Program::link(&fg, Default::default(), &Default::default()) else {
            return Ok(());
        };
        let args: Vec<Value> = fg
            .inputs()
            .iter()
            .map(|&v| {
                let ty = fg.graph().var(v).ty.as_tensor().expect("tensor inputs").clone();
                let shape: Vec<usize> = ty.shape.iter().map(|d| d.unwrap_or(2) as usize).collect();
                let n = shape.iter().product();
                Tensor::from_vec(shape, (0..n).map(|i| i as f64 * 0.25).collect()).unwrap().into()
            })
            .collect();
        if let Ok(values) = program.run(args) {
            prop_assert_eq!(values.len(), fg.outputs().len());
        }
    }
}
