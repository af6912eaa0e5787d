//! `ChangeTracker`: a feature that notes every node imported into the graph
//! and every node whose input changed, so a driver revisits only the
//! neighbourhood of what changed instead of walking the whole graph again.
//! Drivers nest (an equilibrium runs walking passes), so each opens its
//! own channel and every change is noted on every open channel.

use crate::error::Result;
use crate::graph::{Client, Feature, FunctionGraph, InputChange, NodeId};

/// The nodes touched since each channel last took them.
#[derive(Debug, Default)]
pub struct ChangeTracker {
    channels: Vec<Option<Vec<NodeId>>>,
}

impl ChangeTracker {
    fn note(&mut self, node: NodeId) {
        self.channels
            .iter_mut()
            .flatten()
            .for_each(|c| c.push(node));
    }
}

impl Feature for ChangeTracker {
    crate::graph::feature_identity!("ChangeTracker");

    fn on_import(&mut self, _fg: &FunctionGraph, node: NodeId, _reason: &str) -> Result<()> {
        self.note(node);
        Ok(())
    }

    fn on_change_input(&mut self, _fg: &FunctionGraph, change: &InputChange) -> Result<()> {
        let InputChange { client, .. } = *change;
        if let Client::Node(node, _) = client {
            self.note(node);
        }
        Ok(())
    }
}

/// A driver's view of the tracker: its own channel, closed when dropped
/// through [`Channel::close`].
#[derive(Debug)]
pub struct Channel(usize);

impl Channel {
    /// Opens a channel on `fg`, attaching the tracker if it is not there.
    pub fn open(fg: &mut FunctionGraph) -> Result<Channel> {
        if fg.feature::<ChangeTracker>().is_none() {
            fg.attach_feature(Box::new(ChangeTracker::default()))?;
        }
        let t = fg
            .feature_mut::<ChangeTracker>()
            .expect("the tracker was just attached");
        let free = t.channels.iter().position(Option::is_none);
        let i = free.unwrap_or(t.channels.len());
        if free.is_none() {
            t.channels.push(None);
        }
        t.channels[i] = Some(Vec::new());
        Ok(Channel(i))
    }

    /// The nodes touched since the last call, in order (maybe repeated).
    pub fn take(&self, fg: &mut FunctionGraph) -> Vec<NodeId> {
        fg.feature_mut::<ChangeTracker>()
            .and_then(|t| t.channels.get_mut(self.0)?.as_mut().map(std::mem::take))
            .unwrap_or_default()
    }

    /// Closes the channel; the last one closed detaches the tracker.
    pub fn close(self, fg: &mut FunctionGraph) -> Result<()> {
        let Some(t) = fg.feature_mut::<ChangeTracker>() else {
            return Ok(());
        };
        if let Some(c) = t.channels.get_mut(self.0) {
            *c = None;
        }
        if t.channels.iter().all(Option::is_none) {
            fg.remove_feature_of::<ChangeTracker>()?;
        }
        Ok(())
    }
}
