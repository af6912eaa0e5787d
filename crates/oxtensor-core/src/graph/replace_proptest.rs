//! Property: `FunctionGraph::replace`. Replacing any variable by any other
//! (of another type, not in the graph, making a cycle) either happens or
//! is refused, and either way the function graph's bookkeeping stays
//! consistent and its nodes stay in a valid order.

use super::random_graphs::{build, recipe};
use crate::graph::FunctionGraph;
use proptest::prelude::*;

proptest! {
    #[test]
    fn replacing_keeps_the_graph_consistent(
        r in recipe(),
        pairs in prop::collection::vec((any::<usize>(), any::<usize>()), 1..6),
        import_missing in any::<bool>(),
    ) {
        let (g, _, vars) = build(&r);
        let last = *vars.last().expect("at least one input");
        let Ok(mut fg) = FunctionGraph::from_outputs(g, vec![last]) else {
            return Ok(());
        };
        for (a, b) in pairs {
            let (old, new) = (vars[a % vars.len()], vars[b % vars.len()]);
            let _ = fg.replace(old, new, "proptest", import_missing);
            prop_assert!(fg.check_integrity().is_ok(), "{:?}", fg.check_integrity());
            prop_assert!(fg.toposort().is_ok());
        }
    }
}
