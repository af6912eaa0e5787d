//! `Blockwise.infer_shape`: batch dims broadcast as `Elemwise`'s are, core
//! dims from the core op's own `infer_shape` on a node of core-shaped
//! stand-ins (the inputs themselves where they have no batch axes).

use super::Blockwise;
use crate::error::Result;
use crate::graph::traversal::ancestors;
use crate::graph::{Graph, NodeId, VarId};
use crate::ops::infer_shape::dim_constant;
use crate::ops::{Dims, InferredShapes};
use crate::types::Type;

/// Each output's shape: the batch dims, then the core op's. `None` when the
/// core op cannot tell, or tells only in terms of the stand-ins.
pub(super) fn infer_shape(
    op: &Blockwise,
    g: &mut Graph,
    node: NodeId,
    input_shapes: &[Dims],
) -> InferredShapes {
    let n = g.node(node).clone();
    let types: Vec<Type> = n.inputs.iter().map(|&v| g.var(v).ty.clone()).collect();
    let refs: Vec<&Type> = types.iter().collect();
    let batch_nd = op.batch_ndims(&refs)?;
    let batch = batch_dims(op, g, &refs, &batch_nd, input_shapes)?;
    let core_types = op.core_input_types(&refs)?;
    let mut stand_ins = Vec::with_capacity(n.inputs.len());
    let mut dummies = Vec::new();
    for ((&v, ty), &b) in n.inputs.iter().zip(core_types).zip(&batch_nd) {
        if b == 0 {
            stand_ins.push(v);
        } else {
            let d = g.input(ty, None);
            dummies.push(d);
            stand_ins.push(d);
        }
    }
    let Ok(core_node) = g.apply(op.core_op.clone(), &stand_ins) else {
        return Ok(None);
    };
    let core_shapes: Vec<Dims> = input_shapes
        .iter()
        .zip(&batch_nd)
        .map(|(s, &b)| s.get(b..).unwrap_or_default().to_vec())
        .collect();
    let Some(core) = op.core_op.infer_shape(g, core_node, &core_shapes)? else {
        return Ok(None);
    };
    let all: Vec<VarId> = core.iter().flatten().copied().collect();
    if ancestors(g, &all, &[]).iter().any(|v| dummies.contains(v)) {
        return Ok(None);
    }
    Ok(Some(
        core.into_iter()
            .map(|c| batch.iter().copied().chain(c).collect())
            .collect(),
    ))
}

/// The broadcast batch dims: a static length where the output's type has
/// one, else the first input that does not broadcast along the axis.
fn batch_dims(
    op: &Blockwise,
    g: &mut Graph,
    types: &[&Type],
    batch_nd: &[usize],
    input_shapes: &[Dims],
) -> Result<Vec<VarId>> {
    let shape = op.batch_shape(types)?;
    let nb = shape.len();
    let mut out = Vec::with_capacity(nb);
    for (axis, len) in shape.iter().enumerate() {
        if let Some(len) = len {
            out.push(dim_constant(g, *len as i64));
            continue;
        }
        let from = types
            .iter()
            .zip(batch_nd)
            .enumerate()
            .find_map(|(j, (ty, &b))| {
                let k = axis.checked_sub(nb - b)?;
                let static_len = ty.as_tensor()?.shape[k];
                (static_len != Some(1)).then(|| input_shapes[j][k])
            });
        out.push(from.unwrap_or_else(|| dim_constant(g, 1)));
    }
    Ok(out)
}
