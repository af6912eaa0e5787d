//! A driver's own failure callback (PyTensor's `failure_callback` of a
//! `NodeProcessingGraphRewriter`): when a node rewriter raises, or the
//! graph refuses its proposal (an `InconsistencyError` from the destroy
//! handler, say), a walk or an equilibrium given a callback hands it the
//! error instead of applying the run's `on_opt_error` policy. The graph is
//! already back as it was; the callback may return the error to stop the run.

use super::rewriter::NodeRewriter;
use crate::error::{Error, Result};
use crate::graph::{FunctionGraph, NodeId, VarId};
use std::sync::Arc;

/// Where a failure happened.
pub struct FailureSite<'a> {
    /// The node the rewriter was asked about.
    pub node: NodeId,
    /// The rewriter that failed.
    pub rewriter: &'a dyn NodeRewriter,
    /// What it proposed, `(old, new)`; `(output, None)` for every output of
    /// `node` when it raised before proposing anything (as PyTensor passes).
    pub pairs: Vec<(VarId, Option<VarId>)>,
}

/// What a driver calls on a failure, in place of the run's policy.
pub trait FailureCallback: Send + Sync {
    /// Handles `error` (the rewriter's own, without context added); `Err`
    /// stops the run with that error.
    fn on_failure(
        &self,
        fg: &mut FunctionGraph,
        error: Error,
        site: &FailureSite<'_>,
    ) -> Result<()>;
}

/// A driver's callback, if it has one.
pub type OnFailure = Option<Arc<dyn FailureCallback>>;

/// `site.pairs` for a rewriter that proposed nothing: each output of `node`.
pub(super) fn unproposed(fg: &FunctionGraph, node: NodeId) -> Vec<(VarId, Option<VarId>)> {
    fg.graph()
        .node(node)
        .outputs
        .iter()
        .map(|&o| (o, None))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::graph::{DestroyHandler, Graph};
    use crate::ops::{IoMap, Op, OpRef};
    use crate::rewrite::equilibrium::Equilibrium;
    use crate::rewrite::rewriter::{node_rw, GraphRewriter, Rewrite, Tracks};
    use crate::rewrite::run::RunContext;
    use crate::rewrite::walk::{WalkOrder, Walking};
    use crate::types::{TensorType, Type};
    use std::sync::Mutex;

    /// An op known by its label, destroying what the test says.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    struct Labelled {
        label: &'static str,
        destroy: IoMap,
    }

    impl Op for Labelled {
        crate::op_identity!("Labelled");
        fn describe(&self) -> String {
            self.label.to_owned()
        }
        fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
            Ok(vec![inputs[0].clone()])
        }
        fn destroy_map(&self) -> IoMap {
            self.destroy.clone()
        }
    }

    fn op(label: &'static str, destroy: IoMap) -> OpRef {
        Arc::new(Labelled { label, destroy })
    }

    /// Records the failures it is given, with their kind.
    #[derive(Default)]
    struct Watch(Mutex<Vec<String>>);

    impl FailureCallback for Watch {
        fn on_failure(
            &self,
            fg: &mut FunctionGraph,
            error: Error,
            site: &FailureSite<'_>,
        ) -> Result<()> {
            let kind = match error {
                Error::Inconsistency(_) => "inconsistency",
                _ => "other",
            };
            let at = fg.graph().describe_node(site.node);
            let mut seen = self.0.lock().map_err(|_| Error::Value("poisoned".into()))?;
            seen.push(format!("{kind} at {at} ({} pairs)", site.pairs.len()));
            Ok(())
        }
    }

    /// Replaces a node labelled `from` by one labelled `to` on the same inputs.
    fn substitute(from: &'static str, to: OpRef) -> Arc<dyn NodeRewriter> {
        node_rw(
            "substitute",
            || Tracks::All,
            move |fg, n| {
                if fg.graph().node(n).op.describe() != from {
                    return Ok(None);
                }
                let inputs = fg.graph().node(n).inputs.clone();
                let m = fg.graph_mut().apply(to.clone(), &inputs)?;
                let out = fg.graph().node(m).outputs[0];
                Ok(Some(Rewrite::Outputs(vec![Some(out)])))
            },
        )
    }

    fn walk(rw: Arc<dyn NodeRewriter>, watch: &Arc<Watch>) -> Walking {
        let cb: Arc<dyn FailureCallback> = watch.clone();
        Walking::new("walk", vec![rw], WalkOrder::InToOut)
            .ignore_newtrees(true)
            .on_failure(Some(cb))
    }

    fn scalars(g: &mut Graph, names: &[&str]) -> Vec<VarId> {
        names
            .iter()
            .map(|n| g.input(TensorType::scalar(DType::Float64), Some(n)))
            .collect()
    }

    fn ap(g: &mut Graph, op: OpRef, inputs: &[VarId]) -> Result<VarId> {
        let n = g.apply(op, inputs)?;
        Ok(g.node(n).outputs[0])
    }

    /// `dot(add(x, y), add(y, x))` with a destroy handler.
    fn two_adds() -> Result<FunctionGraph> {
        let mut g = Graph::new();
        let [x, y] = scalars(&mut g, &["x", "y"])[..] else {
            unreachable!()
        };
        let a = ap(&mut g, op("add", vec![]), &[x, y])?;
        let b = ap(&mut g, op("add", vec![]), &[y, x])?;
        let out = ap(&mut g, op("dot", vec![]), &[a, b])?;
        let mut fg = FunctionGraph::new(g, vec![x, y], vec![out])?;
        fg.attach_feature(Box::new(DestroyHandler::new()))?;
        Ok(fg)
    }

    /// `add(x, y)` twice: making both destroy `x` is refused the second
    /// time (two destroyers of `x`), and the walk's callback is told with
    /// the proposed pair, not the run (no warning).
    #[test]
    fn a_refused_proposal_goes_to_the_walks_callback() -> Result<()> {
        let mut fg = two_adds()?;
        let watch = Arc::new(Watch::default());
        let rw = substitute("add", op("add_inplace", vec![(0, vec![0, 1])]));
        let mut run = RunContext::default();
        walk(rw, &watch).apply(&mut fg, &mut run)?;
        let seen = watch
            .0
            .lock()
            .map_err(|_| Error::Value("poisoned".into()))?;
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(seen[0].starts_with("inconsistency at add"), "{seen:?}");
        assert!(seen[0].ends_with("(1 pairs)"), "{seen:?}");
        assert!(run.warnings.is_empty());
        fg.validate()
    }

    /// The same refusal in an equilibrium: told once per visit, and the
    /// run ends (the reverted proposal does not bring its node back).
    #[test]
    fn an_equilibrium_ends_after_a_refused_proposal() -> Result<()> {
        let mut fg = two_adds()?;
        let watch = Arc::new(Watch::default());
        let cb: Arc<dyn FailureCallback> = watch.clone();
        let rw = substitute("add", op("add_inplace", vec![(0, vec![0, 1])]));
        let eq = Equilibrium::new("eq", vec![rw]).on_failure(Some(cb));
        assert!(eq.apply(&mut fg, &mut RunContext::default())?);
        assert_eq!(watch.0.lock().map(|s| s.len()).ok(), Some(1));
        fg.validate()
    }

    /// A graph the handler refuses (`dot(add_inplace(x, z), x)` needs
    /// `dot` before and after the addition) can still be walked, in data
    /// order, and repaired.
    #[test]
    fn a_walk_repairs_a_graph_whose_orderings_have_a_cycle() -> Result<()> {
        let mut g = Graph::new();
        let [x, z] = scalars(&mut g, &["x", "z"])[..] else {
            unreachable!()
        };
        let a = ap(&mut g, op("add_inplace", vec![(0, vec![0])]), &[x, z])?;
        let out = ap(&mut g, op("dot", vec![]), &[a, x])?;
        let mut fg = FunctionGraph::new(g, vec![x, z], vec![out])?;
        fg.attach_feature(Box::new(DestroyHandler::new()))?;
        assert!(fg.validate().is_err());
        let watch = Arc::new(Watch::default());
        let rw = substitute("add_inplace", op("add", vec![]));
        walk(rw, &watch).apply(&mut fg, &mut RunContext::default())?;
        assert!(watch
            .0
            .lock()
            .map_err(|_| Error::Value("poisoned".into()))?
            .is_empty());
        fg.validate()
    }
}
