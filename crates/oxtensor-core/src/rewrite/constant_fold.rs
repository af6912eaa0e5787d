//! Constant folding (PyTensor's `constant_folding` and
//! `topo_constant_folding`): a node whose inputs are all constants, and
//! whose op allows it (`do_constant_folding`), is computed once at compile
//! time and its outputs replaced by constants typed with the values' full
//! shapes. Ops that cannot run here (host ops without a thunk) and nodes
//! that fail are left for run time, where their errors carry the node.

use super::rewriter::{NodeRewriter, Rewrite, Tracks};
use super::run::RunContext;
use super::walk::{WalkOrder, Walking};
use super::GraphRewriter;
use crate::error::Result;
use crate::graph::{Constant, FunctionGraph, NodeId, Value, VarId, VarKind};
use crate::kernels::alloc::Pool;
use crate::types::{TensorType, Type};
use crate::vm::{OpThunk, Thunk};
use std::sync::Arc;

/// How constant folding runs a node of a host op (a Python op's
/// `perform`, as PyTensor does): the host attaches a [`HostFolding`] to
/// the graph it compiles.
pub trait HostFolder: Send + Sync {
    /// The node's outputs on these input values; `None` when the op says
    /// not to fold it (`do_constant_folding`) or cannot run now.
    fn fold(
        &self,
        fg: &mut FunctionGraph,
        node: NodeId,
        inputs: &[Value],
    ) -> Result<Option<Vec<Value>>>;
}

/// The feature that carries a graph's [`HostFolder`].
pub struct HostFolding(pub Box<dyn HostFolder>);

impl crate::graph::Feature for HostFolding {
    crate::graph::feature_identity!("HostFolding");
}

/// The node rewriter: folds one node.
pub struct ConstantFolding;

impl NodeRewriter for ConstantFolding {
    fn name(&self) -> &str {
        "constant_folding"
    }

    fn tracks(&self) -> Tracks {
        Tracks::All
    }

    fn transform(&self, fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
        if !foldable(fg, node) {
            return Ok(None);
        }
        let values = if fg.graph().node(node).op.is_host() {
            fold_host(fg, node)?
        } else {
            evaluate(fg, node)
        };
        let Some(values) = values else {
            return Ok(None);
        };
        let news = new_constants(fg, node, values);
        Ok(Some(Rewrite::Outputs(news.into_iter().map(Some).collect())))
    }
}

/// `topo_constant_folding`: one walk, inputs first, folding what it can.
pub fn topo_constant_folding() -> Walking {
    Walking::new(
        "topo_constant_folding",
        vec![Arc::new(ConstantFolding) as Arc<dyn NodeRewriter>],
        WalkOrder::InToOut,
    )
    .ignore_newtrees(true)
}

/// Folds every foldable node of `fg`; returns how many were folded.
pub fn constant_fold(fg: &mut FunctionGraph) -> Result<usize> {
    let mut run = RunContext::default();
    topo_constant_folding().apply(fg, &mut run)?;
    Ok(run
        .profile
        .rewriters
        .get("constant_folding")
        .map_or(0, |s| s.applied as usize))
}

/// A host op's node run by the graph's host, if it has one; a host op
/// that raises is left for run time, where its error names the node.
fn fold_host(fg: &mut FunctionGraph, n: NodeId) -> Result<Option<Vec<Value>>> {
    let inputs: Vec<Value> = fg
        .graph()
        .node(n)
        .inputs
        .iter()
        .filter_map(|&i| fg.graph().var(i).constant().map(|c| c.value.clone()))
        .collect();
    let folded = fg.with_feature::<HostFolding, _>(|f, fg| f.0.fold(fg, n, &inputs));
    Ok(folded.and_then(|r| r.ok()).flatten())
}

fn foldable(fg: &FunctionGraph, n: NodeId) -> bool {
    let node = fg.graph().node(n);
    node.op.do_constant_folding().unwrap_or(false)
        && !node.inputs.is_empty()
        && node.inputs.iter().all(|&i| fg.graph().var(i).is_constant())
}

/// The node's outputs, or `None` if it cannot run now.
fn evaluate(fg: &FunctionGraph, n: NodeId) -> Option<Vec<Value>> {
    // Folding runs kernels, which may use the thread pool (see `vm::fork`).
    crate::vm::fork::enter();
    let g = fg.graph();
    let node = g.node(n);
    let types = |vs: &[VarId]| {
        vs.iter()
            .map(|&v| g.var(v).ty.clone())
            .collect::<Vec<Type>>()
    };
    let inputs: Vec<&Value> = node
        .inputs
        .iter()
        .filter_map(|&i| match &g.var(i).kind {
            VarKind::Constant(c) => Some(&c.value),
            _ => None,
        })
        .collect();
    let thunk = OpThunk::new(node.op.clone(), types(&node.inputs), types(&node.outputs));
    let mut outs = vec![None; node.outputs.len()];
    thunk.run(&inputs, &mut outs, &mut Pool::default()).ok()?;
    outs.into_iter().collect()
}

/// New constants for the node's outputs, typed with the values' full shapes.
fn new_constants(fg: &mut FunctionGraph, n: NodeId, values: Vec<Value>) -> Vec<VarId> {
    let outputs = fg.graph().node(n).outputs.clone();
    outputs
        .into_iter()
        .zip(values)
        .map(|(out, value)| {
            let declared = fg.graph().var(out).ty.clone();
            let ty = match &value {
                // A scalar's value is a 0-d tensor; the constant stays a scalar.
                Value::Tensor(_) if matches!(declared, Type::Scalar(_)) => declared,
                Value::Tensor(t) => {
                    TensorType::new(t.dtype(), t.shape().iter().map(|&d| Some(d as u64)))
                        .map(Type::Tensor)
                        .unwrap_or(declared)
                }
                Value::Host(_) => declared,
            };
            let constant = match value {
                Value::Tensor(t) => Constant::tensor(t),
                host => Constant {
                    value: host,
                    display: String::new(),
                },
            };
            fg.graph_mut().constant(ty, constant, None)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;

    use crate::graph::testing::x_and_constant;
    use crate::tensor::Tensor;

    #[test]
    fn folds_constant_subgraphs_only() {
        let (mut g, x, two) = x_and_constant(2.0);
        let three = g.tensor_constant(Tensor::scalar(3.0f64));
        let c = build::mul(&mut g, two, three).unwrap();
        let y = build::add(&mut g, x, c).unwrap();
        let mut fg = FunctionGraph::new(g, vec![x], vec![y]).unwrap();
        assert_eq!(fg.apply_nodes().count(), 3, "Mul, ExpandDims, Add");
        assert_eq!(constant_fold(&mut fg).unwrap(), 2);
        let names: Vec<String> = fg
            .apply_nodes()
            .map(|n| fg.graph().describe_node(n))
            .collect();
        assert_eq!(names, ["Add(x, [6.])"]);
        fg.check_integrity().unwrap();
    }
}
