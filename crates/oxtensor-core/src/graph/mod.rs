//! Graphs: an arena of variables and nodes addressed by small ids
//! ([`Graph`]), traversals over it, and the [`FunctionGraph`] that adds
//! clients, features and safe replacement.

mod arena;
pub mod clone;
pub mod compare;
pub mod dependence;
pub mod destroy;
mod features;
mod fgraph;
mod ids;
#[cfg(test)]
mod import_proptest;
mod insertion_list;
mod node_types;
#[cfg(test)]
mod random_graphs;
#[cfg(test)]
mod replace_proptest;
#[cfg(test)]
pub(crate) mod testing;
pub mod traversal;

pub use arena::{shorten_constant, Constant, Graph, HostValue, Node, Value, VarData, VarKind};
pub use destroy::DestroyHandler;
pub(crate) use features::feature_identity;
pub use features::{attach_once, Feature, InputChange, Orderings};
pub use fgraph::{Client, CycleCheck, FunctionGraph, LogSink, ReplaceLog};
pub use ids::{NodeId, VarId};
pub use insertion_list::Live;
pub use node_types::{check_graph_types, check_node_types, check_op_types};
