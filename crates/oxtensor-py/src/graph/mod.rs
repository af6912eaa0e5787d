//! The graph objects users build and walk (`oxtensor.graph.basic`,
//! `oxtensor.graph.type`, `oxtensor.tensor.variable`, `oxtensor.graph.fg`),
//! and the graph utilities and printer over them.

pub mod apply;
pub mod apply_edits;
pub mod construct;
pub mod describe;
pub mod fgraph;
pub mod pprint;
pub mod print;
pub mod scratchpad;
pub mod tensor_variable;
pub mod types;
pub mod utils;
pub mod variable;
pub mod vectorize;
pub mod walks;
