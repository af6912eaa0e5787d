//! `SubstitutionNodeRewriter`: `op1(*inputs) -> op2(*inputs)`, every output
//! of the node replaced by the same output of the new node. Unlike a
//! pattern, which rewrites single-output nodes, it takes nodes with any
//! number of outputs (an op and its inplace version with two outputs).

use super::rewriter::{NodeRewriter, Rewrite, Track, Tracks};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::ops::OpRef;

/// Replaces nodes of one op by nodes of another on the same inputs.
pub struct Substitution {
    name: String,
    from: OpRef,
    to: OpRef,
}

impl Substitution {
    /// `from(*inputs) -> to(*inputs)`, called `name`.
    pub fn new(name: impl Into<String>, from: OpRef, to: OpRef) -> Self {
        Substitution {
            name: name.into(),
            from,
            to,
        }
    }
}

impl NodeRewriter for Substitution {
    fn name(&self) -> &str {
        &self.name
    }

    fn tracks(&self) -> Tracks {
        Tracks::Some(vec![Track::Op(self.from.clone())])
    }

    fn transform(&self, fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
        let n = fg.graph().node(node);
        if !n.op.op_eq(self.from.as_ref()) {
            return Ok(None);
        }
        let inputs = n.inputs.clone();
        let m = fg.graph_mut().apply(self.to.clone(), &inputs)?;
        let outs = fg
            .graph()
            .node(m)
            .outputs
            .iter()
            .map(|&o| Some(o))
            .collect();
        Ok(Some(Rewrite::Outputs(outs)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;

    use crate::ops::{props_eq, props_hash, Op};
    use crate::types::Type;
    use std::sync::Arc;

    /// An op with two outputs of its input's type.
    #[derive(Debug, PartialEq, Eq, Hash)]
    struct Pair(&'static str);

    impl Op for Pair {
        fn name(&self) -> &str {
            "Pair"
        }
        fn describe(&self) -> String {
            self.0.to_owned()
        }
        fn op_eq(&self, other: &dyn Op) -> bool {
            props_eq(self, other)
        }
        fn op_hash(&self) -> u64 {
            props_hash(self)
        }
        fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
            Ok(vec![inputs[0].clone(), inputs[0].clone()])
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    }

    #[test]
    fn both_outputs_of_a_two_output_node_are_replaced() -> Result<()> {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
        let n = g.apply(Arc::new(Pair("a")), &[x])?;
        let outs = g.node(n).outputs.clone();
        let mut fg = FunctionGraph::new(g, vec![x], outs.clone())?;
        let sub = Substitution::new("a -> b", Arc::new(Pair("a")), Arc::new(Pair("b")));
        let Some(Rewrite::Outputs(news)) = sub.transform(&mut fg, n)? else {
            panic!("a replacement for each output")
        };
        assert_eq!(news.len(), 2);
        let m = news[0].and_then(|v| fg.graph().var(v).owner());
        assert!(m.is_some_and(|m| fg.graph().node(m).op.describe() == "b"));
        assert_eq!(m, news[1].and_then(|v| fg.graph().var(v).owner()));
        // A node of another op is left alone.
        let other = Substitution::new("b -> a", Arc::new(Pair("b")), Arc::new(Pair("a")));
        assert!(other.transform(&mut fg, n)?.is_none());
        Ok(())
    }
}
