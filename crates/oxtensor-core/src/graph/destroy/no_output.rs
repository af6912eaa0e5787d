//! `NoOutputFromInplace` (`pytensor/graph/features.py`): a feature that
//! refuses any graph where one of the protected outputs is computed by
//! overwriting an input in place (its node's `destroy_map` names it).
//! Inner graphs use it so that what they return is fresh memory; a mode
//! can add it before the inplace phase (`AddFeatureOptimizer`), which then
//! leaves those outputs out-of-place.

use crate::error::{Error, Result};
use crate::graph::{Feature, FunctionGraph};

/// Protects outputs, by position (all when `None`), from inplace ops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoOutputFromInplace {
    protected: Option<Vec<usize>>,
}

impl NoOutputFromInplace {
    /// Protects the outputs at these positions; `None` protects them all.
    pub fn new(protected: Option<Vec<usize>>) -> Self {
        NoOutputFromInplace { protected }
    }

    /// The protected positions, as given.
    pub fn protected(&self) -> Option<&[usize]> {
        self.protected.as_deref()
    }

    fn check(&self, fg: &FunctionGraph, idx: usize) -> Result<()> {
        let Some(&out) = fg.outputs().get(idx) else {
            return Err(Error::Index(format!(
                "NoOutputFromInplace protects output {idx}, but the graph has {} outputs",
                fg.outputs().len()
            )));
        };
        let g = fg.graph();
        let Some(n) = g.var(out).owner() else {
            return Ok(());
        };
        let node = g.node(n);
        let pos = node.outputs.iter().position(|&o| o == out);
        if !node.op.destroy_map().iter().any(|(o, _)| Some(*o) == pos) {
            return Ok(());
        }
        Err(Error::Inconsistency(format!(
            "A function graph Feature has requested that outputs of the graph be prevented \
             from being the result of in-place operations. This has prevented the output {} \
             (output {idx}, computed by {}) from being computed by modifying another variable \
             in-place.",
            g.describe_var(out),
            g.describe_node(n)
        )))
    }
}

impl Feature for NoOutputFromInplace {
    crate::graph::feature_identity!("NoOutputFromInplace");

    /// One owner lookup per protected output.
    fn on_validate(&mut self, fg: &FunctionGraph) -> Result<()> {
        match &self.protected {
            Some(ids) => ids.iter().try_for_each(|&i| self.check(fg, i)),
            None => (0..fg.outputs().len()).try_for_each(|i| self.check(fg, i)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::graph::destroy::tests::{inplace, pure};
    use crate::graph::testing::graph_with;
    use crate::graph::{DestroyHandler, Graph, VarId};

    fn ap(g: &mut Graph, op: crate::ops::OpRef, inputs: &[VarId]) -> Result<VarId> {
        let n = g.apply(op, inputs)?;
        Ok(g.node(n).outputs[0])
    }

    /// Outputs `[tanh_inplace(dot(x)), tanh(dot(x))]`: protecting output 1
    /// refuses making the second inplace, not the first; protecting all
    /// refuses the graph that has the first.
    #[test]
    fn protected_outputs_may_not_come_from_inplace_ops() -> Result<()> {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
        let d0 = ap(&mut g, pure("dot"), &[x])?;
        let d1 = ap(&mut g, pure("dot"), &[x])?;
        let b = ap(&mut g, inplace("tanh_inplace", vec![(0, vec![0])]), &[d0])?;
        let c = ap(&mut g, pure("tanh"), &[d1])?;
        let mut fg = FunctionGraph::new(g, vec![x], vec![b, c])?;
        fg.attach_feature(Box::new(DestroyHandler::new()))?;
        fg.attach_feature(Box::new(NoOutputFromInplace::new(Some(vec![1]))))?;
        fg.validate()?;
        let c_inplace = ap(
            fg.graph_mut(),
            inplace("tanh_inplace", vec![(0, vec![0])]),
            &[d1],
        )?;
        let err = fg
            .replace_all_validate(&[(c, c_inplace)], "test")
            .unwrap_err()
            .to_string();
        assert!(err.contains("(output 1, computed by tanh_inplace"), "{err}");
        assert_eq!(fg.outputs()[1], c, "the refused change is reverted");
        fg.attach_feature(Box::new(NoOutputFromInplace::new(None)))?;
        let err = fg.validate().unwrap_err().to_string();
        assert!(err.contains("(output 0, computed by tanh_inplace"), "{err}");
        Ok(())
    }

    #[test]
    fn a_position_past_the_outputs_is_named() -> Result<()> {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 0)]);
        let y = ap(&mut g, pure("log"), &[x])?;
        let mut fg = FunctionGraph::new(g, vec![x], vec![y])?;
        fg.attach_feature(Box::new(NoOutputFromInplace::new(Some(vec![3]))))?;
        let err = fg.validate().unwrap_err().to_string();
        assert!(
            err.contains("protects output 3, but the graph has 1 outputs"),
            "{err}"
        );
        Ok(())
    }
}
