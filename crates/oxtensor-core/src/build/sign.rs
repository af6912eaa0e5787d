//! What a graph proves about the sign of a variable (PyTensor's
//! `_is_provably_positive` / `_is_provably_non_negative`, which indexing
//! code uses to skip wrapping negative indices): constants by their
//! values, unsigned dtypes and shapes as non-negative, and `minimum`,
//! `maximum`, `add`, `mul`, `exp`, `abs`, `sqr`, casts, dimshuffles and
//! indexing (`shape(x)[0]`) by their inputs. Anything else proves nothing.

use std::collections::HashMap;

use crate::dtype::DType;
use crate::graph::{Graph, VarId, VarKind};
use crate::ops::advanced_subtensor::{AdvancedSubtensor, AdvancedSubtensor1};
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::elemwise::Elemwise;
use crate::ops::shape::{Shape, ShapeI};
use crate::ops::subtensor::Subtensor;
use crate::scalar::{ScalarKind, ScalarOp};
use crate::tensor::{Scalar, Tensor};

/// What is proven of every element, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sign {
    /// Nothing.
    Unknown,
    /// `>= 0`.
    NonNegative,
    /// `> 0`.
    Positive,
}

/// The sign proven of `v`. Walks `v`'s ancestors with an explicit stack,
/// each once.
pub fn proven_sign(g: &Graph, v: VarId) -> Sign {
    let mut known: HashMap<VarId, Sign> = HashMap::new();
    let mut todo = vec![(v, false)];
    while let Some((var, expanded)) = todo.pop() {
        if known.contains_key(&var) {
            continue;
        }
        let inputs = sign_inputs(g, var);
        if expanded || inputs.is_empty() {
            let sign = local_sign(g, var, &known);
            known.insert(var, sign);
            continue;
        }
        todo.push((var, true));
        todo.extend(inputs.into_iter().map(|i| (i, false)));
    }
    known.get(&v).copied().unwrap_or(Sign::Unknown)
}

/// The inputs whose signs `var`'s owner passes on (none for other ops).
fn sign_inputs(g: &Graph, var: VarId) -> Vec<VarId> {
    let Some(node) = g.var(var).owner() else {
        return Vec::new();
    };
    let node = g.node(node);
    let op = node.op.as_any();
    if op.is::<Elemwise>() || op.is::<DimShuffle>() || selects(op) {
        node.inputs.clone()
    } else {
        Vec::new()
    }
}

/// `var`'s sign from its dtype, its value or its owner, the owner's inputs known.
fn local_sign(g: &Graph, var: VarId, known: &HashMap<VarId, Sign>) -> Sign {
    let from_dtype = match g.var(var).ty.as_tensor().map(|t| t.dtype) {
        Some(d)
            if d.is_discrete()
                && !matches!(d, DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64) =>
        {
            Sign::NonNegative
        }
        _ => Sign::Unknown,
    };
    let from_graph = match &g.var(var).kind {
        VarKind::Constant(c) => c.value.tensor().map_or(Sign::Unknown, constant_sign),
        VarKind::Output { node, .. } => {
            let node = g.node(*node);
            let ins: Vec<Sign> = node
                .inputs
                .iter()
                .map(|i| known.get(i).copied().unwrap_or(Sign::Unknown))
                .collect();
            op_sign(node.op.as_any(), &ins)
        }
        VarKind::Root => Sign::Unknown,
    };
    from_dtype.max(from_graph)
}

/// The sign of every element of a constant (an empty one proves nothing).
fn constant_sign(t: &Tensor) -> Sign {
    if t.is_empty() {
        return Sign::Unknown;
    }
    (0..t.len())
        .map(|i| match t.get(i) {
            Scalar::Bool(true) => Sign::Positive,
            Scalar::Bool(false) => Sign::NonNegative,
            Scalar::Int(x) => sign_of(x as f64),
            Scalar::UInt(x) => sign_of(x as f64),
            Scalar::Float(x, _) => sign_of(x),
            Scalar::Complex(..) => Sign::Unknown,
        })
        .min()
        .unwrap_or(Sign::Unknown)
}

fn sign_of(x: f64) -> Sign {
    if x > 0.0 {
        Sign::Positive
    } else if x == 0.0 {
        Sign::NonNegative
    } else {
        Sign::Unknown
    }
}

/// Indexing: the output's elements are some of the first input's.
fn selects(op: &dyn std::any::Any) -> bool {
    op.is::<Subtensor>() || op.is::<AdvancedSubtensor1>() || op.is::<AdvancedSubtensor>()
}

/// The sign an op's output has given its inputs' signs.
fn op_sign(op: &dyn std::any::Any, ins: &[Sign]) -> Sign {
    let weakest = ins.iter().copied().min().unwrap_or(Sign::Unknown);
    if op.is::<Shape>() || op.is::<ShapeI>() {
        return Sign::NonNegative;
    }
    if op.is::<DimShuffle>() {
        return weakest;
    }
    if selects(op) {
        return ins.first().copied().unwrap_or(Sign::Unknown);
    }
    let Some(e) = op.downcast_ref::<Elemwise>() else {
        return Sign::Unknown;
    };
    let strongest = ins.iter().copied().max().unwrap_or(Sign::Unknown);
    match &e.scalar_op {
        // A positive float cast to an integer may round to zero.
        ScalarOp::Cast(d) if !d.is_float() => weakest.min(Sign::NonNegative),
        ScalarOp::Cast(_) => weakest,
        ScalarOp::Kind(ScalarKind::Minimum) => weakest,
        ScalarOp::Kind(ScalarKind::Maximum) => strongest,
        ScalarOp::Kind(ScalarKind::Add) if weakest >= Sign::NonNegative => strongest,
        ScalarOp::Kind(ScalarKind::Mul) => weakest,
        ScalarOp::Kind(ScalarKind::Exp) => Sign::Positive,
        ScalarOp::Kind(ScalarKind::Abs | ScalarKind::Sqr) => Sign::NonNegative,
        _ => Sign::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::graph::testing::graph_with;
    use crate::types::TensorType;

    fn constant(g: &mut Graph, values: Vec<f64>) -> VarId {
        g.tensor_constant(Tensor::from_vec(vec![values.len()], values).unwrap())
    }

    #[test]
    fn constants_by_their_values() {
        let mut g = Graph::new();
        let cases = [
            (vec![1.0, 2.0], Sign::Positive),
            (vec![0.0, 2.0], Sign::NonNegative),
            (vec![-1.0, 2.0], Sign::Unknown),
        ];
        for (values, want) in cases {
            let c = constant(&mut g, values);
            assert_eq!(proven_sign(&g, c), want);
        }
    }

    #[test]
    fn dtypes_shapes_and_casts_are_non_negative() {
        let (mut g, [u]) = graph_with([("u", DType::UInt8, 1)]);
        assert_eq!(proven_sign(&g, u), Sign::NonNegative);
        let m = g.input(TensorType::with_ndim(DType::Float64, 2), Some("m"));
        let shape = build::shape(&mut g, m).unwrap();
        assert_eq!(proven_sign(&g, shape), Sign::NonNegative);
        let zero = g.tensor_constant(Tensor::scalar(0i64));
        let op = Subtensor::new(vec![crate::tensor::index::IdxEntry::Index(0)]).unwrap();
        let first = g
            .apply_out(std::sync::Arc::new(op), &[shape, zero])
            .unwrap();
        assert_eq!(proven_sign(&g, first), Sign::NonNegative);
        let half = constant(&mut g, vec![0.5]);
        let cast = build::cast(&mut g, half, DType::Int64).unwrap();
        assert_eq!(proven_sign(&g, cast), Sign::NonNegative);
        assert_eq!(proven_sign(&g, m), Sign::Unknown);
    }

    #[test]
    fn minimum_needs_all_maximum_any() {
        let mut g = Graph::new();
        let (two, zero, neg) = (
            constant(&mut g, vec![2.0]),
            constant(&mut g, vec![0.0]),
            constant(&mut g, vec![-1.0]),
        );
        let min = build::elemwise(&mut g, ScalarKind::Minimum, &[two, zero]).unwrap();
        assert_eq!(proven_sign(&g, min), Sign::NonNegative);
        let max = build::elemwise(&mut g, ScalarKind::Maximum, &[two, neg]).unwrap();
        assert_eq!(proven_sign(&g, max), Sign::Positive);
        let max = build::elemwise(&mut g, ScalarKind::Maximum, &[neg, neg]).unwrap();
        assert_eq!(proven_sign(&g, max), Sign::Unknown);
        let e = build::exp(&mut g, neg).unwrap();
        assert_eq!(proven_sign(&g, e), Sign::Positive);
    }
}
