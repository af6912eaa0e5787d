//! Constant folding: a node whose inputs are all constants, and whose op
//! allows it (`do_constant_folding`), is computed once at compile time and
//! its outputs replaced by constants. Mirrors PyTensor's
//! `topo_constant_folding`.

use crate::error::Result;
use crate::graph::{Constant, FunctionGraph, NodeId, Value, VarId, VarKind};
use crate::kernels::alloc::Pool;
use crate::types::{TensorType, Type};
use crate::vm::{OpThunk, Thunk};

/// Folds every foldable node, in dependency order; returns how many.
/// Ops that cannot run natively (host ops) and nodes that fail are left for
/// run time, where their errors carry the node's context.
pub fn constant_fold(fg: &mut FunctionGraph) -> Result<usize> {
    crate::vm::fork::enter();
    let mut pool = Pool::default();
    let mut folded = 0;
    for n in fg.toposort()? {
        if !fg.has_node(n) || !foldable(fg, n) {
            continue;
        }
        let Some(values) = evaluate(fg, n, &mut pool) else {
            continue;
        };
        let pairs = replacements(fg, n, values);
        if fg.replace_all_validate(&pairs, "constant_folding").is_ok() {
            folded += 1;
        }
    }
    Ok(folded)
}

fn foldable(fg: &FunctionGraph, n: NodeId) -> bool {
    let node = fg.graph().node(n);
    node.op.do_constant_folding().unwrap_or(false)
        && !node.inputs.is_empty()
        && node.inputs.iter().all(|&i| fg.graph().var(i).is_constant())
}

/// The node's outputs, or `None` if it cannot run now.
fn evaluate(fg: &FunctionGraph, n: NodeId, pool: &mut Pool) -> Option<Vec<Value>> {
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
        .filter_map(|&i| {
            if let VarKind::Constant(c) = &g.var(i).kind {
                Some(&c.value)
            } else {
                None
            }
        })
        .collect();
    let thunk = OpThunk::new(node.op.clone(), types(&node.inputs), types(&node.outputs));
    let mut outs = vec![None; node.outputs.len()];
    thunk.run(&inputs, &mut outs, pool).ok()?;
    outs.into_iter().collect()
}

/// New constants for the node's outputs, typed with the values' full shapes.
fn replacements(fg: &mut FunctionGraph, n: NodeId, values: Vec<Value>) -> Vec<(VarId, VarId)> {
    let outputs = fg.graph().node(n).outputs.clone();
    outputs
        .into_iter()
        .zip(values)
        .map(|(out, value)| {
            let ty = match &value {
                Value::Tensor(t) => {
                    TensorType::new(t.dtype(), t.shape().iter().map(|&d| Some(d as u64)))
                        .map(Type::Tensor)
                        .unwrap_or_else(|_| fg.graph().var(out).ty.clone())
                }
                Value::Host(_) => fg.graph().var(out).ty.clone(),
            };
            let constant = match value {
                Value::Tensor(t) => Constant::tensor(t),
                host => Constant {
                    value: host,
                    display: String::new(),
                },
            };
            (out, fg.graph_mut().constant(ty, constant, None))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::Graph;
    use crate::tensor::Tensor;

    #[test]
    fn folds_constant_subgraphs_only() {
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
        let two = g.tensor_constant(Tensor::scalar(2.0f64));
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
