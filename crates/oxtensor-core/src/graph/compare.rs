//! Structural equality of graphs (`equal_computations` in
//! `pytensor/graph/basic.py`): same ops, same constants, and inputs that
//! correspond as declared.

use super::arena::{Graph, VarKind};
use super::ids::VarId;
use crate::error::{Error, Result};
use crate::ops::ops_equal;
use std::collections::HashSet;

/// Whether each `xs[k]` computes the same thing as `ys[k]`, given that
/// `in_xs[k]` stands for `in_ys[k]`. Everything lives in one arena.
pub fn equal_computations(
    g: &Graph,
    xs: &[VarId],
    ys: &[VarId],
    in_xs: &[VarId],
    in_ys: &[VarId],
) -> Result<bool> {
    if xs.len() != ys.len() || in_xs.len() != in_ys.len() {
        return Err(Error::Value(
            "The number of graphs/inputs doesn't match.".into(),
        ));
    }
    let common: HashSet<(VarId, VarId)> =
        in_xs.iter().copied().zip(in_ys.iter().copied()).collect();
    let mut seen = HashSet::new();
    let mut todo: Vec<(VarId, VarId)> = xs.iter().copied().zip(ys.iter().copied()).collect();
    while let Some((x, y)) = todo.pop() {
        if !seen.insert((x, y)) || common.contains(&(x, y)) {
            continue;
        }
        if in_xs.contains(&x) || in_ys.contains(&y) || g.var(x).ty != g.var(y).ty {
            return Ok(false);
        }
        match (&g.var(x).kind, &g.var(y).kind) {
            (VarKind::Constant(a), VarKind::Constant(b)) if a.same_value(b) => {}
            (VarKind::Root, VarKind::Root) if x == y => {}
            (
                VarKind::Output {
                    node: nx,
                    index: ix,
                },
                VarKind::Output {
                    node: ny,
                    index: iy,
                },
            ) if ix == iy => {
                let (a, b) = (g.node(*nx), g.node(*ny));
                let same_shape =
                    a.inputs.len() == b.inputs.len() && a.outputs.len() == b.outputs.len();
                if !same_shape || !ops_equal(&a.op, &b.op) {
                    return Ok(false);
                }
                todo.extend(a.inputs.iter().copied().zip(b.inputs.iter().copied()));
            }
            _ => return Ok(false),
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::tensor::Tensor;
    use crate::types::TensorType;

    #[test]
    fn same_structure_different_objects() {
        let mut g = Graph::new();
        let ty = TensorType::with_ndim(DType::Float64, 1);
        let (x, y) = (g.input(ty.clone(), Some("x")), g.input(ty, Some("y")));
        let c1 = g.tensor_constant(Tensor::scalar(2.0f32));
        let c2 = g.tensor_constant(Tensor::scalar(2.0f32));
        let a = build::mul(&mut g, x, c1).unwrap();
        let b = build::mul(&mut g, x, c2).unwrap();
        let c = build::mul(&mut g, y, c2).unwrap();
        assert!(equal_computations(&g, &[a], &[b], &[], &[]).unwrap());
        assert!(!equal_computations(&g, &[a], &[c], &[], &[]).unwrap());
        assert!(equal_computations(&g, &[a], &[c], &[x], &[y]).unwrap());
        assert!(equal_computations(&g, &[a], &[b, c], &[], &[]).is_err());
    }
}
