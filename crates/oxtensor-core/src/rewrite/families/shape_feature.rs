//! `ShapeFeature` (PyTensor's, `tensor/rewriting/shape.py`): answers
//! `x.shape` of any expression from the ops' `infer_shape`, without
//! computing the expression. It is lazy, as PyTensor 3's is: attaching
//! costs nothing; a shape is inferred when a rewrite asks for it, from its
//! inputs' shapes (asked in turn), and kept per variable. A kept shape
//! that reads a variable which has since left the graph is inferred again,
//! so a shape never brings a removed computation back.

use crate::error::{Error, Result};
use crate::graph::{Client, Feature, FunctionGraph, InputChange, NodeId, VarId};
use crate::ops::infer_shape::{dim_constant, output_shapes};
use crate::ops::shape::ShapeI;
use crate::rewrite::rewriter::{NodeRewriter, Rewrite, Tracks};
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One int64 scalar per axis.
type Dims = SmallVec<[VarId; 4]>;

/// The shapes inferred so far, and what makes them stale.
#[derive(Default)]
pub struct ShapeFeature {
    /// Inferred shapes, by variable.
    shapes: HashMap<VarId, Dims>,
    /// `Shape_i{i}(v)` made for variables whose shape is not inferred (free
    /// variables, outputs of ops without `infer_shape`): one node each, so
    /// equal questions get identical answers.
    shape_i: HashMap<(VarId, usize), VarId>,
    /// int64 constants for static lengths, one per value.
    lengths: HashMap<i64, VarId>,
    /// Outputs of nodes pruned from the graph (and not imported again).
    dead: HashSet<VarId>,
}

impl ShapeFeature {
    /// The shape of `v`, one int64 scalar per axis (empty for 0-d and
    /// non-tensors); new expressions go into `fg`'s arena, unimported.
    pub fn shape_of(&mut self, fg: &mut FunctionGraph, v: VarId) -> Result<Vec<VarId>> {
        // Post-order over the owners whose outputs have no usable shape
        // yet, on an explicit stack: a chain of 100k nodes must not
        // overflow the call stack.
        let mut stack = vec![(v, false)];
        while let Some((w, ready)) = stack.pop() {
            if self.fresh(fg, w) {
                continue;
            }
            let owner = fg.graph().var(w).owner().filter(|_| !is_leaf(fg, w));
            match (owner, ready) {
                (None, _) => self.set_leaf(fg, w)?,
                (Some(_), true) => self.infer(fg, w)?,
                (Some(node), false) => {
                    stack.push((w, true));
                    for &inp in &fg.graph().node(node).inputs {
                        if !self.fresh(fg, inp) {
                            stack.push((inp, false));
                        }
                    }
                }
            }
        }
        self.shapes
            .get(&v)
            .map(|d| d.to_vec())
            .ok_or_else(|| Error::Value(format!("no shape inferred for {v:?}")))
    }

    /// A shape from the type alone: static lengths and `Shape_i`.
    fn set_leaf(&mut self, fg: &mut FunctionGraph, v: VarId) -> Result<()> {
        let static_shape: Vec<Option<u64>> = match fg.graph().var(v).ty.as_tensor() {
            Some(t) => t.shape.iter().copied().collect(),
            None => Vec::new(),
        };
        let dims = static_shape
            .into_iter()
            .enumerate()
            .map(|(i, d)| self.dim(fg, v, i, d))
            .collect::<Result<Dims>>()?;
        self.shapes.insert(v, dims);
        Ok(())
    }

    /// Axis `i` of `v` from the type: the static length, else `Shape_i`.
    fn dim(&mut self, fg: &mut FunctionGraph, v: VarId, i: usize, d: Option<u64>) -> Result<VarId> {
        if let Some(n) = d {
            return Ok(self.length(fg, n as i64));
        }
        // A `Shape_i` node made earlier may have left the graph (its reader
        // was folded away): a new one then, as a removed one reads as stale.
        if let Some(&s) = self.shape_i.get(&(v, i)).filter(|s| !self.dead.contains(s)) {
            return Ok(s);
        }
        let s = fg.graph_mut().apply_out(Arc::new(ShapeI { i }), &[v])?;
        self.shape_i.insert((v, i), s);
        Ok(s)
    }

    /// The int64 constant `n`.
    fn length(&mut self, fg: &mut FunctionGraph, n: i64) -> VarId {
        *self
            .lengths
            .entry(n)
            .or_insert_with(|| dim_constant(fg.graph_mut(), n))
    }

    /// Infers the shapes of `v`'s owner's outputs from its inputs' (which
    /// are fresh): the op's `infer_shape`, else `Shape_i` of the outputs.
    fn infer(&mut self, fg: &mut FunctionGraph, v: VarId) -> Result<()> {
        let node = fg
            .graph()
            .var(v)
            .owner()
            .expect("an inferred variable has an owner");
        let inputs = fg.graph().node(node).inputs.clone();
        let input_shapes: Vec<Vec<VarId>> = inputs
            .iter()
            .map(|i| self.shapes.get(i).map(|d| d.to_vec()).unwrap_or_default())
            .collect();
        let inferred = match output_shapes(fg.graph_mut(), node, &input_shapes) {
            Ok(shapes) => Some(shapes),
            // A Python op's malformed answer is its author's to see: the
            // asking rewriter fails with it, naming the op (`on_opt_error`).
            Err(e) if fg.graph().node(node).op.is_host() => return Err(e),
            Err(_) => None,
        };
        let outputs = fg.graph().node(node).outputs.clone();
        for (k, &out) in outputs.iter().enumerate() {
            let shape = inferred.as_ref().and_then(|s| s.get(k)).cloned();
            let dims = self.checked(fg, out, shape)?;
            self.shapes.insert(out, dims);
        }
        Ok(())
    }

    /// An inferred shape made fit for `out`: static lengths as constants,
    /// int64 scalars elsewhere; a wrong answer from the op is replaced by
    /// `Shape_i` of the output (PyTensor warns and does the same).
    fn checked(
        &mut self,
        fg: &mut FunctionGraph,
        out: VarId,
        shape: Option<Vec<VarId>>,
    ) -> Result<Dims> {
        let Some(ty) = fg.graph().var(out).ty.as_tensor().cloned() else {
            return Ok(Dims::new());
        };
        let shape = shape.filter(|s| s.len() == ty.ndim());
        let mut dims = Dims::new();
        for (i, &d) in ty.shape.iter().enumerate() {
            let got = shape.as_ref().map(|s| s[i]);
            dims.push(match (d, got) {
                (None, Some(s)) => match int64_scalar(fg, s)? {
                    Some(s) => s,
                    None => self.dim(fg, out, i, None)?,
                },
                _ => self.dim(fg, out, i, d)?,
            });
        }
        Ok(dims)
    }

    /// Whether `v` has a kept shape all of whose scalars are still sound.
    fn fresh(&self, fg: &FunctionGraph, v: VarId) -> bool {
        self.shapes
            .get(&v)
            .is_some_and(|dims| dims.iter().all(|&s| self.live(fg, s)))
    }

    /// Whether `s` can be computed without a variable that left the graph:
    /// the walk stops at what is in the graph, so it costs the size of the
    /// expression that is not imported yet.
    fn live(&self, fg: &FunctionGraph, s: VarId) -> bool {
        let g = fg.graph();
        let mut stack: SmallVec<[VarId; 8]> = smallvec::smallvec![s];
        // Most walks are `Shape_i(x)` of an `x` in the graph: a few steps,
        // so the visited list is a small vector searched linearly.
        let mut seen: SmallVec<[VarId; 8]> = SmallVec::new();
        while let Some(v) = stack.pop() {
            if fg.has_var(v) || seen.contains(&v) {
                continue;
            }
            if self.dead.contains(&v) {
                return false;
            }
            let data = g.var(v);
            match data.owner() {
                Some(n) => {
                    seen.push(v);
                    stack.extend(g.node(n).inputs.iter().copied());
                }
                None if data.is_constant() || fg.is_input(v) => {}
                None => return false,
            }
        }
        true
    }

    fn forget_outputs(&mut self, fg: &FunctionGraph, node: NodeId) {
        for out in &fg.graph().node(node).outputs {
            self.shapes.remove(out);
        }
    }

    /// Forgets what was made for `node`'s outputs, which left the graph.
    fn forget_pruned(&mut self, fg: &FunctionGraph, node: NodeId) {
        self.forget_outputs(fg, node);
        for &out in &fg.graph().node(node).outputs {
            let ndim = fg.graph().var(out).ty.as_tensor().map_or(0, |t| t.ndim());
            (0..ndim).for_each(|i| {
                self.shape_i.remove(&(out, i));
            });
            self.dead.insert(out);
        }
    }
}

/// Whether `v`'s shape needs no inference: a non-tensor, a fully
/// static shape, or no owner.
fn is_leaf(fg: &FunctionGraph, v: VarId) -> bool {
    match fg.graph().var(v).ty.as_tensor() {
        None => true,
        Some(t) => t.shape.iter().all(Option::is_some),
    }
}

/// `s` as an int64 scalar (cast from another integer dtype), or `None`
/// when it is not an integer scalar.
fn int64_scalar(fg: &mut FunctionGraph, s: VarId) -> Result<Option<VarId>> {
    let Some(t) = fg.graph().var(s).ty.as_tensor() else {
        return Ok(None);
    };
    if t.ndim() != 0 || !t.dtype.is_integer() {
        return Ok(None);
    }
    super::util::cast_to(fg, s, crate::dtype::DType::Int64).map(Some)
}

impl Feature for ShapeFeature {
    crate::graph::feature_identity!("ShapeFeature");

    fn on_attach(&mut self, fg: &FunctionGraph) -> Result<()> {
        crate::graph::attach_once::<ShapeFeature>(
            fg,
            "This FunctionGraph already has a ShapeFeature",
        )
    }

    fn on_import(&mut self, fg: &FunctionGraph, node: NodeId, _reason: &str) -> Result<()> {
        for out in &fg.graph().node(node).outputs {
            self.dead.remove(out);
        }
        Ok(())
    }

    fn on_prune(&mut self, fg: &FunctionGraph, node: NodeId, _reason: &str) -> Result<()> {
        self.forget_pruned(fg, node);
        Ok(())
    }

    /// The node's outputs are inferred again from its new input (the old
    /// shape is not wrong, but the new input may say more).
    fn on_change_input(&mut self, fg: &FunctionGraph, change: &InputChange) -> Result<()> {
        let InputChange { client, .. } = *change;
        if let Client::Node(node, _) = client {
            self.forget_outputs(fg, node);
        }
        Ok(())
    }
}

/// Attaches a [`ShapeFeature`] unless the graph has one.
pub fn require(fg: &mut FunctionGraph) -> Result<()> {
    if fg.feature::<ShapeFeature>().is_some() {
        return Ok(());
    }
    fg.attach_feature(Box::<ShapeFeature>::default())
}

/// `v`'s symbolic shape: inferred by the graph's [`ShapeFeature`] when it
/// has one, else from `v`'s type (static lengths and `Shape_i`).
pub fn shape_of(fg: &mut FunctionGraph, v: VarId) -> Result<Vec<VarId>> {
    match fg.with_feature::<ShapeFeature, _>(|sf, fg| sf.shape_of(fg, v)) {
        Some(shape) => shape,
        None => crate::ops::infer_shape::shape_vars(fg.graph_mut(), v),
    }
}

/// Whether the int scalar `len` is known to be the length of axis `i` of
/// `x`: a constant equal to its static or inferred length, the inferred
/// length itself, or `Shape_i{i}(x)`.
pub fn is_length_of(fg: &mut FunctionGraph, len: VarId, x: VarId, i: usize) -> Result<bool> {
    if let Some((n, op)) = super::util::owner_as::<ShapeI>(fg, len) {
        if op.i == i && fg.graph().node(n).inputs[0] == x {
            return Ok(true);
        }
    }
    let inferred = shape_of(fg, x)?[i];
    let value = super::util::constant_int(fg, len);
    Ok(inferred == len || value.is_some() && value == super::util::constant_int(fg, inferred))
}

pub(super) type TransformFn = fn(&mut FunctionGraph, NodeId) -> Result<Option<Rewrite>>;

/// A node rewriter that asks shapes: a rewriter called `name` that tracks
/// `tracks()` and runs `f`, whose `add_requirements` attaches the
/// [`ShapeFeature`] (PyTensor attaches it with `ShapeOpt`).
pub fn shape_rewriter(
    name: &'static str,
    tracks: fn() -> Tracks,
    f: TransformFn,
) -> Arc<dyn NodeRewriter> {
    Arc::new(crate::rewrite::FnRewriter::new(name, tracks, f).with_requirement(require))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::Graph;
    use crate::ops::nonzero::Nonzero;
    use crate::types::TensorType;
    use std::any::Any;

    fn feature(fg: &FunctionGraph) -> &ShapeFeature {
        fg.feature::<ShapeFeature>().unwrap()
    }

    #[test]
    fn shapes_are_inferred_on_demand_for_the_ancestors_only() {
        let (mut g, [x]) = graph_with([("x", DType::Float32, 2)]);
        let y = g.input(TensorType::new(DType::Int8, [Some(3)]).unwrap(), Some("y"));
        let e = build::exp(&mut g, x).unwrap();
        let s = build::sum(&mut g, e, Some(&[1])).unwrap();
        let other = build::neg(&mut g, y).unwrap();
        let mut fg = FunctionGraph::new(g, vec![x, y], vec![s, other]).unwrap();
        require(&mut fg).unwrap();
        assert!(feature(&fg).shapes.is_empty(), "attaching infers nothing");
        let dims = shape_of(&mut fg, s).unwrap();
        assert_eq!(feature(&fg).shapes.len(), 3, "s, e and x, not y's branch");
        let (n, _) = super::super::util::owner_as::<ShapeI>(&fg, dims[0]).unwrap();
        assert_eq!(fg.graph().node(n).inputs[0], x, "the length of x's axis 0");
        assert_eq!(
            shape_of(&mut fg, s).unwrap(),
            dims,
            "asked again: the same scalars"
        );
        let static_len = shape_of(&mut fg, other).unwrap()[0];
        assert_eq!(super::super::util::constant_int(&fg, static_len), Some(3));
        require(&mut fg).unwrap();
        assert_eq!(
            fg.features()
                .iter()
                .filter(|f| f.name() == "ShapeFeature")
                .count(),
            1
        );
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let mut v = x;
        for _ in 0..30_000 {
            v = build::neg(&mut g, v).unwrap();
        }
        let mut fg = FunctionGraph::new(g, vec![x], vec![v]).unwrap();
        require(&mut fg).unwrap();
        let dims = shape_of(&mut fg, v).unwrap();
        let (n, _) = super::super::util::owner_as::<ShapeI>(&fg, dims[0]).unwrap();
        assert_eq!(fg.graph().node(n).inputs[0], x);
    }

    /// An op whose shape rule fails; `host` says whether it is a host op.
    #[derive(Debug)]
    struct Failing {
        host: bool,
    }

    impl crate::ops::Op for Failing {
        fn name(&self) -> &str {
            "Failing"
        }
        fn op_eq(&self, other: &dyn crate::ops::Op) -> bool {
            crate::ops::props_eq(self, other)
        }
        fn op_hash(&self) -> u64 {
            u64::from(self.host)
        }
        fn output_types(&self, inputs: &[&crate::types::Type]) -> Result<Vec<crate::types::Type>> {
            Ok(vec![inputs[0].clone()])
        }
        fn is_host(&self) -> bool {
            self.host
        }
        fn infer_shape(
            &self,
            _: &mut Graph,
            _: NodeId,
            _: &[crate::ops::Dims],
        ) -> crate::ops::InferredShapes {
            Err(Error::Value(
                "Failing.infer_shape returned a bad shape".into(),
            ))
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    impl PartialEq for Failing {
        fn eq(&self, other: &Self) -> bool {
            self.host == other.host
        }
    }

    #[test]
    fn a_host_op_rule_error_is_raised_a_native_one_falls_back() {
        for host in [false, true] {
            let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
            let y = g.apply_out(Arc::new(Failing { host }), &[x]).unwrap();
            let mut fg = FunctionGraph::new(g, vec![x], vec![y]).unwrap();
            require(&mut fg).unwrap();
            let got = shape_of(&mut fg, y);
            if host {
                let err = got.err().map(|e| e.to_string()).unwrap_or_default();
                assert!(err.contains("Failing.infer_shape"), "{err}");
            } else {
                let dims = got.unwrap();
                let (n, _) = super::super::util::owner_as::<ShapeI>(&fg, dims[0]).unwrap();
                assert_eq!(fg.graph().node(n).inputs[0], y, "read off the output");
            }
        }
    }

    #[test]
    fn a_removed_shape_i_is_made_again_and_kept() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let e = build::exp(&mut g, x).unwrap();
        let mut fg = FunctionGraph::new(g, vec![x], vec![e]).unwrap();
        require(&mut fg).unwrap();
        let first = shape_of(&mut fg, e).unwrap()[0];
        fg.add_output(first, "test").unwrap();
        fg.remove_output(1, "test").unwrap();
        let second = shape_of(&mut fg, e).unwrap()[0];
        assert_ne!(first, second, "the removed Shape_i is not brought back");
        assert_eq!(
            shape_of(&mut fg, e).unwrap()[0],
            second,
            "the new one is kept"
        );
    }

    #[test]
    fn a_shape_reading_a_removed_variable_is_inferred_again() {
        let (mut g, [m]) = graph_with([("m", DType::Bool, 1)]);
        let nz = g.apply(Arc::new(Nonzero), &[m]).unwrap();
        let idx = g.node(nz).outputs[0];
        let nz2 = g.apply(Arc::new(Nonzero), &[m]).unwrap();
        let idx2 = g.node(nz2).outputs[0];
        let y = build::neg(&mut g, idx).unwrap();
        let w = build::neg(&mut g, y).unwrap();
        let mut fg = FunctionGraph::new(g, vec![m], vec![w, idx2]).unwrap();
        require(&mut fg).unwrap();
        let reads = |fg: &FunctionGraph, s: VarId| {
            let (n, _) = super::super::util::owner_as::<ShapeI>(fg, s).unwrap();
            fg.graph().node(n).inputs[0]
        };
        // Nonzero cannot tell its length: it is `Shape_i` of its output.
        let before = shape_of(&mut fg, w).unwrap()[0];
        assert_eq!(reads(&fg, before), idx);
        fg.replace(idx, idx2, "test", false).unwrap();
        assert!(!fg.has_var(idx));
        let after = shape_of(&mut fg, w).unwrap()[0];
        assert_eq!(reads(&fg, after), idx2, "not the removed output");
    }
}
