//! Which node rewriters to ask about a node (PyTensor's
//! `OpToRewriterTracker`): rewriters are indexed once by what they track,
//! so a node is offered only to the rewriters of its op's classes, of its
//! scalar kind, or of an equal op, plus those that track every node. The
//! candidates come back in PyTensor's order: those of the op's classes,
//! most specific class first (the base `Op` class last), then those of an
//! equal op or scalar kind, then those that track every node; registration
//! order within each group.

use super::rewriter::{NodeRewriter, Track, Tracks};
use crate::ops::elemwise::Elemwise;
use crate::ops::{ops_equal, Op, OpRef};
use crate::scalar::{ScalarKind, ScalarOp};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use std::sync::Arc;

/// The class every op is an instance of (`tracks=[Op]`).
pub const BASE_CLASS: &str = "Op";

/// Node rewriters indexed by what they track.
pub struct OpTracker {
    rewriters: Vec<Arc<dyn NodeRewriter>>,
    by_class: HashMap<String, Vec<usize>>,
    by_scalar: HashMap<ScalarKind, Vec<usize>>,
    /// Instance tracks, filed under the instance's own class.
    by_op: HashMap<String, Vec<(OpRef, usize)>>,
    untracked: Vec<usize>,
}

impl OpTracker {
    /// Indexes `rewriters` (their position is their index everywhere else).
    pub fn new(rewriters: Vec<Arc<dyn NodeRewriter>>) -> Self {
        let mut t = OpTracker {
            rewriters: Vec::new(),
            by_class: HashMap::default(),
            by_scalar: HashMap::default(),
            by_op: HashMap::default(),
            untracked: Vec::new(),
        };
        for (i, rw) in rewriters.iter().enumerate() {
            match rw.tracks() {
                Tracks::All => t.untracked.push(i),
                Tracks::Some(tracks) => tracks.into_iter().for_each(|tr| t.file(tr, i)),
            }
        }
        t.rewriters = rewriters;
        t
    }

    fn file(&mut self, track: Track, i: usize) {
        match track {
            Track::Class(c) => self.by_class.entry(c).or_default().push(i),
            Track::Scalar(k) => self.by_scalar.entry(k).or_default().push(i),
            Track::Op(op) => {
                let class = op.name().to_owned();
                self.by_op.entry(class).or_default().push((op, i));
            }
        }
    }

    /// The rewriters, by index.
    pub fn rewriters(&self) -> &[Arc<dyn NodeRewriter>] {
        &self.rewriters
    }

    /// Whether no rewriter is indexed.
    pub fn is_empty(&self) -> bool {
        self.rewriters.is_empty()
    }

    /// The indices of the rewriters to ask about a node of `op`, each once,
    /// in PyTensor's order (see the module docs).
    pub fn candidates(&self, op: &OpRef) -> SmallVec<[usize; 8]> {
        let mut out: SmallVec<[usize; 8]> = SmallVec::new();
        let classes = op.class_path();
        for class in &classes {
            out.extend_from_slice(self.by_class.get(*class).map_or(&[][..], Vec::as_slice));
        }
        // Every op is an `Op`, whether or not its class path says so.
        if !classes.contains(&BASE_CLASS) {
            out.extend_from_slice(self.by_class.get(BASE_CLASS).map_or(&[][..], Vec::as_slice));
        }
        let mut instances: SmallVec<[usize; 8]> = SmallVec::new();
        for class in &classes {
            if let Some(list) = self.by_op.get(*class) {
                let equal = list.iter().filter(|(o, _)| ops_equal(o, op));
                instances.extend(equal.map(|&(_, i)| i));
            }
        }
        if let Some(kind) = scalar_kind(op.as_ref()) {
            instances.extend_from_slice(self.by_scalar.get(&kind).map_or(&[][..], Vec::as_slice));
        }
        instances.sort_unstable();
        out.extend(instances);
        out.extend_from_slice(&self.untracked);
        let mut seen = Vec::with_capacity(out.len());
        out.retain(|i| {
            let first = !seen.contains(i);
            seen.push(*i);
            first
        });
        out
    }
}

/// The scalar kind of a plain `Elemwise` (inplace variants included).
fn scalar_kind(op: &dyn Op) -> Option<ScalarKind> {
    match op.as_any().downcast_ref::<Elemwise>()?.scalar_op {
        ScalarOp::Kind(k) => Some(k),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Result;
    use crate::graph::{FunctionGraph, NodeId};
    use crate::ops::dimshuffle::DimShuffle;
    use crate::ops::reduce::CAReduce;
    use crate::reduction::ReduceKind;
    use crate::rewrite::rewriter::Rewrite;

    struct Named(&'static str, Tracks);

    impl NodeRewriter for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn tracks(&self) -> Tracks {
            self.1.clone()
        }
        fn transform(&self, _: &mut FunctionGraph, _: NodeId) -> Result<Option<Rewrite>> {
            Ok(None)
        }
    }

    fn names(t: &OpTracker, op: OpRef) -> Vec<&str> {
        t.candidates(&op)
            .into_iter()
            .map(|i| t.rewriters()[i].name())
            .collect()
    }

    #[test]
    fn dispatch_by_class_base_class_scalar_kind_and_instance() {
        let add: OpRef = Arc::new(Elemwise::new(ScalarKind::Add));
        let t = OpTracker::new(vec![
            Arc::new(Named("elemwise", Tracks::classes(&["Elemwise"]))),
            Arc::new(Named("mul", Tracks::scalars(&[ScalarKind::Mul]))),
            Arc::new(Named("careduce", Tracks::classes(&["CAReduce"]))),
            Arc::new(Named("the_add", Tracks::Some(vec![Track::Op(add.clone())]))),
            Arc::new(Named("all", Tracks::All)),
        ]);
        assert_eq!(names(&t, add), ["elemwise", "the_add", "all"]);
        let mul: OpRef = Arc::new(Elemwise::new(ScalarKind::Mul));
        assert_eq!(names(&t, mul), ["elemwise", "mul", "all"]);
        let ty = crate::types::TensorType::with_ndim(crate::dtype::DType::Float64, 1);
        let sum: OpRef = Arc::new(CAReduce::new(ReduceKind::Sum, None, &ty).unwrap());
        assert_eq!(names(&t, sum), ["careduce", "all"]);
        let ds: OpRef = Arc::new(DimShuffle::expand_left(0, 1));
        assert_eq!(names(&t, ds), ["all"]);
    }

    #[test]
    fn classes_come_before_instances_and_the_base_class_after_the_others() {
        let add: OpRef = Arc::new(Elemwise::new(ScalarKind::Add));
        let t = OpTracker::new(vec![
            Arc::new(Named("all", Tracks::All)),
            Arc::new(Named("the_add", Tracks::Some(vec![Track::Op(add.clone())]))),
            Arc::new(Named("any_op", Tracks::classes(&[BASE_CLASS]))),
            Arc::new(Named("add_kind", Tracks::scalars(&[ScalarKind::Add]))),
            Arc::new(Named("elemwise", Tracks::classes(&["Elemwise"]))),
            Arc::new(Named("elemwise_too", Tracks::classes(&["Elemwise"]))),
        ]);
        assert_eq!(
            names(&t, add),
            [
                "elemwise",
                "elemwise_too",
                "any_op",
                "the_add",
                "add_kind",
                "all"
            ]
        );
        let ds: OpRef = Arc::new(DimShuffle::expand_left(0, 1));
        assert_eq!(names(&t, ds), ["any_op", "all"]);
    }
}
