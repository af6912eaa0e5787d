//! Pickling and deep-copying graphs, function graphs and fused ops without
//! recursion: what goes into which snapshot, and the plain data each
//! object reduces to.

pub mod composite;
pub mod fgraph;
pub mod graph;
pub mod session;
