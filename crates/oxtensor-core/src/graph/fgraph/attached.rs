//! The features attached to a [`FunctionGraph`]: attaching and finding
//! them, telling them of events, and the orderings they impose on the
//! toposort.

use super::FunctionGraph;
use crate::error::{Error, Result};
use crate::graph::{traversal, Feature, NodeId, Orderings};

impl FunctionGraph {
    /// Attaches a feature; one whose `on_attach` says `AlreadyThere` is dropped silently.
    pub fn attach_feature(&mut self, mut feature: Box<dyn Feature>) -> Result<()> {
        match feature.on_attach(self) {
            Ok(()) => {
                self.features.push(feature);
                Ok(())
            }
            Err(Error::AlreadyThere(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Detaches the feature at `index`, calling its `on_detach`.
    pub fn remove_feature(&mut self, index: usize) -> Result<Box<dyn Feature>> {
        if index >= self.features.len() {
            return Err(Error::Index(format!("no feature at index {index}")));
        }
        let mut feature = self.features.remove(index);
        feature.on_detach(self)?;
        Ok(feature)
    }

    /// The attached features.
    pub fn features(&self) -> &[Box<dyn Feature>] {
        &self.features
    }

    /// The first attached feature of type `T`.
    pub fn feature<T: Feature>(&self) -> Option<&T> {
        self.features
            .iter()
            .find_map(|f| f.as_any().downcast_ref::<T>())
    }

    /// The first attached feature of type `T`, mutably.
    pub fn feature_mut<T: Feature>(&mut self) -> Option<&mut T> {
        self.features
            .iter_mut()
            .find_map(|f| f.as_any_mut().downcast_mut::<T>())
    }

    /// Runs `f` with the first feature of type `T` taken out of the graph,
    /// so `f` may use the feature and the graph mutably together (a shape
    /// feature adding shape nodes to the arena). The feature hears of no
    /// event while it is out: `f` may add to the arena but must not change
    /// which nodes are in the graph. `None` if there is no such feature.
    pub fn with_feature<T: Feature, R>(
        &mut self,
        f: impl FnOnce(&mut T, &mut FunctionGraph) -> R,
    ) -> Option<R> {
        let pos = self.features.iter().position(|x| x.as_any().is::<T>())?;
        let mut feature = self.features.remove(pos);
        let out = feature.as_any_mut().downcast_mut::<T>().map(|t| f(t, self));
        self.features.insert(pos, feature);
        out
    }

    /// Detaches the first feature of type `T`, if any.
    pub fn remove_feature_of<T: Feature>(&mut self) -> Result<Option<Box<dyn Feature>>> {
        match self.features.iter().position(|x| x.as_any().is::<T>()) {
            Some(i) => self.remove_feature(i).map(Some),
            None => Ok(None),
        }
    }

    /// Calls `f` on every feature in attach order. Each is taken out while
    /// it runs, so it sees the graph through a shared reference, and the
    /// others stay in: a feature may read another's state (the Supervisor
    /// asks the DestroyHandler what is destroyed).
    pub(super) fn dispatch(
        &mut self,
        mut f: impl FnMut(&mut dyn Feature, &FunctionGraph) -> Result<()>,
    ) -> Result<()> {
        for k in 0..self.features.len() {
            let mut feat = std::mem::replace(&mut self.features[k], Box::new(Vacant));
            let result = f(feat.as_mut(), self);
            self.features[k] = feat;
            result?;
        }
        Ok(())
    }

    /// The features' ordering constraints, merged.
    pub fn orderings(&self) -> Result<Orderings> {
        let mut all = Orderings::new();
        for f in &self.features {
            for (node, before) in f.orderings(self)? {
                all.entry(node).or_default().extend(before);
            }
        }
        Ok(all)
    }

    /// The nodes in an order that respects dependencies and the features'
    /// orderings; an error if the orderings make a cycle.
    pub fn toposort(&self) -> Result<Vec<NodeId>> {
        self.toposort_with(&Orderings::new())
    }

    /// `toposort` with extra orderings (e.g. from features the host keeps).
    pub fn toposort_with(&self, extra: &Orderings) -> Result<Vec<NodeId>> {
        let mut all = self.orderings()?;
        for (node, before) in extra {
            all.entry(*node).or_default().extend(before.iter().copied());
        }
        traversal::toposort_with_orderings(&self.graph, &self.outputs, &self.inputs, &all)
    }
}

/// Holds a feature's place while that feature runs (see `dispatch`).
struct Vacant;

impl Feature for Vacant {
    crate::graph::feature_identity!("Vacant");
}
