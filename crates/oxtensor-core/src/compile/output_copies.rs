//! The `DeepCopyOp`s a compiled graph ends with (PyTensor's
//! `insert_deepcopy`): an output whose memory may be an input's, a
//! constant's or a later output's gets a copy, so that what a caller does
//! to one result never reaches a value the function reads again or
//! another result. Borrowed outputs (`Out(borrow=True)`) keep the alias
//! where PyTensor would put a `ViewOp`: a variable can be an input and an
//! output of our graphs at once, so no node is needed there; and a borrowed
//! output sharing memory with a later plain one keeps it (PyTensor copies
//! both unless both are borrowed).
//!
//! The call path still copies, at run time, what only runtime values show
//! to alias (`Function` results over a caller's buffer).

use super::maker::FunctionSpec;
use crate::error::Result;
use crate::graph::{Client, FunctionGraph, Graph, Node, VarId};
use crate::ops::deep_copy::DeepCopyOp;
use std::collections::HashSet;
use std::sync::Arc;

const REASON: &str = "insert_deepcopy";

/// Inputs (positions) whose memory output `o` of `node` may be: the op's
/// `view_map` and `destroy_map` entries for it.
fn aliased_inputs(node: &Node, o: usize) -> Vec<usize> {
    let (views, destroys) = (node.op.view_map(), node.op.destroy_map());
    views
        .iter()
        .chain(destroys.iter())
        .filter(|(out, _)| *out == o)
        .flat_map(|(_, ins)| ins.iter().copied())
        .collect()
}

/// The variable whose memory `v` is, following views of exactly one input
/// back (a view of several has no single root: `v` is its own).
fn alias_root(g: &Graph, mut v: VarId) -> VarId {
    while let Some(node) = g.var(v).owner() {
        let n = g.node(node);
        let Some(o) = n.outputs.iter().position(|&x| x == v) else {
            break;
        };
        match aliased_inputs(n, o)[..] {
            [i] => v = n.inputs[i],
            _ => break,
        }
    }
    v
}

/// `root` and every variable of the graph viewing (or destroying) it,
/// directly or through other views.
fn view_tree(fg: &FunctionGraph, root: VarId) -> HashSet<VarId> {
    let g = fg.graph();
    let mut tree = HashSet::from([root]);
    let mut todo = vec![root];
    while let Some(v) = todo.pop() {
        for &client in fg.clients(v) {
            let Client::Node(node, pos) = client else {
                continue;
            };
            let n = g.node(node);
            for o in 0..n.outputs.len() {
                if aliased_inputs(n, o).contains(&pos) && tree.insert(n.outputs[o]) {
                    todo.push(n.outputs[o]);
                }
            }
        }
    }
    tree
}

/// Whether a node of the graph overwrites `v` (a variable of a view tree).
fn overwritten(fg: &FunctionGraph, v: VarId) -> bool {
    let g = fg.graph();
    fg.clients(v).iter().any(|&client| match client {
        Client::Node(node, pos) => g
            .node(node)
            .op
            .destroy_map()
            .iter()
            .any(|(_, ins)| ins.contains(&pos)),
        Client::Output(_) => false,
    })
}

/// Whether output `i` (a function output, then an update's value) needs a
/// copy; `borrow(i)` says whether it may alias memory.
fn needs_copy(fg: &FunctionGraph, spec: &FunctionSpec, i: usize, borrow: &[bool]) -> bool {
    let outs = fg.outputs();
    let root = alias_root(fg.graph(), outs[i]);
    let tree = view_tree(fg, root);
    // A later output sharing the memory: the copy goes here unless this
    // output is borrowed (PyTensor copies it unless both are; a borrowed
    // output keeping the memory is what `Out(borrow=True)` asks for, and
    // the later one is copied on its own turn or by the call path).
    if (i + 1..outs.len()).any(|j| tree.contains(&outs[j])) {
        return !borrow[i];
    }
    let g = fg.graph();
    // A root overwritten through any of its views is the function's to
    // change (a mutable argument), as PyTensor's `has_destroyers`.
    if g.var(root).owner().is_some() || tree.iter().any(|&v| overwritten(fg, v)) {
        return false;
    }
    match fg.inputs().iter().position(|&x| x == root) {
        // An updated variable's value is replaced after the call anyway.
        Some(k) if spec.updates.iter().any(|&(u, _)| u == k) => false,
        Some(k) => !(borrow[i] && spec.inputs.get(k).is_some_and(|s| s.borrow)),
        None => g.var(root).is_constant() && !borrow[i],
    }
}

/// Puts a `DeepCopyOp` on each output of `fg` that needs one (see the
/// module docs). Update values are borrowed outputs.
pub fn insert_output_copies(fg: &mut FunctionGraph, spec: &FunctionSpec) -> Result<()> {
    let n = fg.outputs().len();
    let borrow: Vec<bool> = (0..n)
        .map(|i| spec.outputs.get(i).is_none_or(|&(_, b)| b))
        .collect();
    for i in 0..n {
        if needs_copy(fg, spec, i, &borrow) {
            let out = fg.outputs()[i];
            let copy = fg.graph_mut().apply_out(Arc::new(DeepCopyOp), &[out])?;
            fg.change_node_input(Client::Output(i), copy, REASON, true, false)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{FunctionInput, FunctionMaker, Mode};
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::tensor::Tensor;

    /// The ops of the compiled graph's output owners, for a function of
    /// one input `x` (borrowed or not) returning what `outs` makes.
    fn owners(
        borrow_in: bool,
        outs: impl Fn(&mut Graph, VarId) -> Vec<(VarId, bool)>,
    ) -> Vec<String> {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let outputs = outs(&mut g, x);
        let spec = FunctionSpec {
            inputs: vec![FunctionInput {
                borrow: borrow_in,
                ..FunctionInput::new(x)
            }],
            outputs,
            on_unused_input: crate::compile::OnUnused::Ignore,
            ..FunctionSpec::default()
        };
        let built = FunctionMaker::new(g, spec, Mode::fast_run())
            .build()
            .unwrap();
        let fg = built.fgraph;
        fg.outputs()
            .iter()
            .map(|&o| match fg.graph().var(o).owner() {
                Some(n) => fg.graph().node(n).op.name().to_string(),
                None => "-".to_string(),
            })
            .collect()
    }

    #[test]
    fn inputs_and_constants_are_copied_unless_borrowed() {
        assert_eq!(owners(false, |_, x| vec![(x, false)]), ["DeepCopyOp"]);
        assert_eq!(owners(false, |_, x| vec![(x, true)]), ["DeepCopyOp"]);
        assert_eq!(owners(true, |_, x| vec![(x, true)]), ["-"]);
        let constant = |g: &mut Graph, borrow| {
            let c = g.tensor_constant(Tensor::from_vec(vec![2], vec![1.0, 2.0]).unwrap());
            vec![(c, borrow)]
        };
        assert_eq!(owners(false, |g, _| constant(g, false)), ["DeepCopyOp"]);
        assert_eq!(owners(false, |g, _| constant(g, true)), ["-"]);
    }

    #[test]
    fn computed_outputs_are_copied_only_when_repeated() {
        let copy = |g: &mut Graph, x| g.apply_out(Arc::new(DeepCopyOp), &[x]).unwrap();
        let once = owners(false, |g, x| vec![(copy(g, x), false)]);
        assert_eq!(once, ["DeepCopyOp"]);
        let twice = owners(false, |g, x| {
            let y = copy(g, x);
            vec![(y, false), (y, false)]
        });
        assert_eq!(twice, ["DeepCopyOp", "DeepCopyOp"]);
    }
}
