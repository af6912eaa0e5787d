//! `Blockwise.pullback`: the core op's pullback built on core-shaped
//! stand-ins, then vectorized (`build::vectorize`) onto the node's batched
//! inputs, outputs and output gradients; each input's term is summed over
//! the batch axes that input was broadcast along.

use super::Blockwise;
use crate::build;
use crate::build::vectorize::vectorize_graph;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::types::{TensorType, Type};

/// One term per input of `node`.
pub(super) fn pullback(
    op: &Blockwise,
    g: &mut Graph,
    node: NodeId,
    output_grads: &[VarId],
) -> Result<Vec<VarId>> {
    let n = g.node(node).clone();
    let types: Vec<Type> = n.inputs.iter().map(|&v| g.var(v).ty.clone()).collect();
    let refs: Vec<&Type> = types.iter().collect();
    let stand_ins: Vec<VarId> = op
        .core_input_types(&refs)?
        .into_iter()
        .map(|t| g.input(t, None))
        .collect();
    let core_node = g.apply(op.core_op.clone(), &stand_ins)?;
    let core_outs = g.node(core_node).outputs.clone();
    let mut replace: Vec<(VarId, VarId)> =
        stand_ins.iter().copied().zip(n.inputs.clone()).collect();
    replace.extend(core_outs.iter().copied().zip(n.outputs.clone()));
    let mut core_grads = Vec::with_capacity(output_grads.len());
    for (&gz, &out) in output_grads.iter().zip(&core_outs) {
        if g.var(gz).ty.as_tensor().is_none() {
            core_grads.push(gz);
            continue;
        }
        let d = g.input(g.var(out).ty.clone(), None);
        replace.push((d, gz));
        core_grads.push(d);
    }
    let terms = op.core_op.pullback(g, core_node, &core_grads)?;
    let tensors: Vec<VarId> = terms.iter().copied().filter(|&t| is_tensor(g, t)).collect();
    let mut batched = vectorize_graph(g, &tensors, &replace, None)?.into_iter();
    let mut out = Vec::with_capacity(terms.len());
    for ((term, ty), &input) in terms.into_iter().zip(&types).zip(&n.inputs) {
        match (is_tensor(g, term), ty.as_tensor()) {
            (true, Some(target)) => {
                let b = batched.next().unwrap_or(term);
                out.push(fit(g, b, input, target)?);
            }
            _ => out.push(term),
        }
    }
    Ok(out)
}

fn is_tensor(g: &Graph, v: VarId) -> bool {
    g.var(v).ty.as_tensor().is_some()
}

/// `term` in the shape of `input` (of type `target`): broadcast up where
/// it has fewer axes (a term that does not depend on the batch), summed
/// over extra leading axes and over axes the input broadcast along.
fn fit(g: &mut Graph, term: VarId, input: VarId, target: &TensorType) -> Result<VarId> {
    let ty = g
        .var(term)
        .ty
        .expect_tensor("A Blockwise gradient term")?
        .clone();
    let mut term = term;
    if ty.ndim() < target.ndim() {
        let zeros = build::zeros_like(g, input, ty.dtype)?;
        term = build::add(g, zeros, term)?;
    }
    if ty.ndim() > target.ndim() {
        let extra: Vec<i64> = (0..(ty.ndim() - target.ndim()) as i64).collect();
        term = build::sum(g, term, Some(&extra))?;
    }
    build::sum_to(g, term, target)
}
