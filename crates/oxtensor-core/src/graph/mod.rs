//! Graphs: an arena of variables and nodes addressed by small ids
//! ([`Graph`]), traversals over it, and the [`FunctionGraph`] that adds
//! clients, features and safe replacement.

mod arena;
pub mod clone;
pub mod compare;
pub mod destroy;
mod features;
mod fgraph;
mod ids;
pub mod traversal;

pub use arena::{shorten_constant, Constant, Graph, HostValue, Node, Value, VarData, VarKind};
pub use destroy::DestroyHandler;
pub use features::{Feature, Orderings};
pub use fgraph::{Client, CycleCheck, FunctionGraph};
pub use ids::{NodeId, VarId};
