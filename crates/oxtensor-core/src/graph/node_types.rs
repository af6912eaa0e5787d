//! A node's output types re-checked against what its op infers from its
//! inputs' types, before a graph is compiled. A Python user can edit a
//! node in place (`node.inputs[0] = v`, `node.inputs = []`), and the
//! kernels trust the types they were linked with (an input of another
//! rank would be indexed by axes the op was built for), so a graph whose
//! nodes no longer agree with their ops is refused with a `TypeError`.

use crate::error::{Error, Result};
use crate::graph::{FunctionGraph, Graph, NodeId};
use crate::ops::Op;
use crate::types::Type;

/// Checks every node of `fg` ([`check_node_types`]).
pub fn check_graph_types(fg: &FunctionGraph) -> Result<()> {
    fg.apply_nodes()
        .try_for_each(|n| check_node_types(fg.graph(), n))
}

/// Refuses a node whose op, given its inputs' types, would not produce
/// outputs of the node's recorded types ([`check_op_types`]). Ops defined
/// by the host are its to check (their inference is host code).
pub fn check_node_types(g: &Graph, n: NodeId) -> Result<()> {
    let node = g.node(n);
    if node.op.is_host() {
        return Ok(());
    }
    let types = |vs: &[crate::graph::VarId]| vs.iter().map(|&v| &g.var(v).ty).collect::<Vec<_>>();
    check_op_types(
        node.op.as_ref(),
        &types(&node.inputs),
        &types(&node.outputs),
    )
    .map_err(|e| {
        Error::Type(format!(
            "{}: the node no longer fits its op (were its inputs or outputs changed after it \
             was built?): {e}",
            g.describe_node(n)
        ))
    })
}

/// Whether `op` applied to inputs of types `inputs` gives outputs of the
/// types `outputs` (same count; tensors of the same dtype and rank, static
/// lengths agreeing where both are known), else a `TypeError` saying how
/// they differ.
pub fn check_op_types(op: &dyn Op, inputs: &[&Type], outputs: &[&Type]) -> Result<()> {
    let inferred = op
        .output_types(inputs)
        .map_err(|e| Error::Type(e.to_string()))?;
    if inferred.len() != outputs.len() {
        return Err(Error::Type(format!(
            "{} gives {} outputs, the node has {}",
            op.describe(),
            inferred.len(),
            outputs.len()
        )));
    }
    // An `Elemwise` built under `cast_policy="numpy+floatX"` with floatX
    // float32 may record float32 where floatX float64 now infers float64
    // (or the reverse): `upcast` reads the config in force when a node is
    // built, as PyTensor's does. Its kernel writes the recorded dtype.
    let floatx_built = op.as_any().is::<crate::ops::elemwise::Elemwise>();
    for (i, (want, got)) in inferred.iter().zip(outputs).enumerate() {
        let fits = agrees(want, got) || (floatx_built && agrees(&floatx_swapped(want), got));
        if !fits {
            return Err(Error::Type(format!(
                "output {i} has type {got}, but {} gives {want} for inputs of types ({})",
                op.describe(),
                inputs
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    Ok(())
}

/// `ty` with float32 and float64 exchanged (other types as they are).
fn floatx_swapped(ty: &Type) -> Type {
    use crate::dtype::DType;
    match ty {
        Type::Tensor(t) if matches!(t.dtype, DType::Float32 | DType::Float64) => {
            let other = if t.dtype == DType::Float32 {
                DType::Float64
            } else {
                DType::Float32
            };
            Type::Tensor(t.with_dtype(other))
        }
        _ => ty.clone(),
    }
}

/// Whether a recorded output type can stand for the inferred one: the
/// same kind, and for tensors the same dtype and rank with no two known
/// lengths differing (a node's recorded type may know more than the op's
/// inference, e.g. lengths read from constant inputs).
fn agrees(inferred: &Type, recorded: &Type) -> bool {
    match (inferred, recorded) {
        (Type::Tensor(a), Type::Tensor(b)) => {
            a.dtype == b.dtype
                && a.ndim() == b.ndim()
                && a.shape
                    .iter()
                    .zip(&b.shape)
                    .all(|(x, y)| x.is_none() || y.is_none() || x == y)
        }
        (Type::Tensor(_), _) | (_, Type::Tensor(_)) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::ops::elemwise::Elemwise;
    use crate::ops::OpRef;
    use crate::scalar::ScalarKind;
    use crate::types::TensorType;
    use std::sync::Arc;

    fn vector(g: &mut Graph, name: &str) -> crate::graph::VarId {
        g.input(TensorType::with_ndim(DType::Float64, 1), Some(name))
    }

    #[test]
    fn built_nodes_pass_and_edited_ones_are_refused() {
        let mut g = Graph::new();
        let (x, y) = (vector(&mut g, "x"), vector(&mut g, "y"));
        let add: OpRef = Arc::new(Elemwise::new(ScalarKind::Add));
        let ok = g.apply(add.clone(), &[x, y]).unwrap();
        assert!(check_node_types(&g, ok).is_ok());
        // Outputs recorded for other inputs than the node has.
        let matrix = Type::Tensor(TensorType::with_ndim(DType::Float64, 2));
        let wrong_rank = g.add_node(add.clone(), vec![x, y], vec![matrix]).unwrap();
        let err = check_node_types(&g, wrong_rank).unwrap_err();
        assert!(matches!(err, Error::Type(_)), "{err}");
        assert!(
            err.to_string().contains("output 0 has type Matrix(float64"),
            "{err}"
        );
        let ty = g.var(x).ty.clone();
        let no_inputs = g.add_node(add, vec![], vec![ty]).unwrap();
        assert!(matches!(
            check_node_types(&g, no_inputs),
            Err(Error::Type(_))
        ));
    }

    #[test]
    fn recorded_types_may_know_more() {
        let known = Type::Tensor(TensorType::new(DType::Float64, [Some(3)]).unwrap());
        let unknown = Type::Tensor(TensorType::with_ndim(DType::Float64, 1));
        let other = Type::Tensor(TensorType::new(DType::Float64, [Some(4)]).unwrap());
        assert!(agrees(&unknown, &known) && agrees(&known, &unknown));
        assert!(!agrees(&known, &other));
        assert!(!agrees(&unknown, &Type::Disconnected));
    }
}
