//! Values crossing the boundary: NumPy arrays and core tensors, Python
//! values and graph constants, Python graphs and core arenas (import and
//! export, identity kept through the memo), host objects as core values.

pub mod array;
pub mod constant;
pub mod export;
pub mod filter;
pub mod host_value;
pub mod import;
pub mod index_args;
pub mod scratch_graph;
