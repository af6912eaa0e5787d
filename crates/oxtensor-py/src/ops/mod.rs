//! Ops as Python classes: the `Op` base (Python subclasses reach the core
//! through `ops/host_op.rs` and `ops/host_thunk.rs`), the built-in op classes by
//! family, and building their nodes (`make_node`, `infer_shape`).

pub mod bincount;
pub mod blas;
pub mod blockwise;
pub mod classes;
pub mod diagonal;
pub mod dimshuffle;
pub mod einsum;
pub mod elemwise;
pub mod extra;
pub mod host_inner_graph;
pub mod host_op;
pub mod host_shape;
pub mod host_thunk;
pub mod ifelse;
pub mod inc_subtensor;
pub mod infer_shape;
pub mod linalg;
pub mod make_node;
pub mod matmul;
pub mod nonzero;
pub mod op;
pub mod props;
pub mod reduce;
pub mod reshape;
pub mod rewritten;
pub mod scalar;
pub mod scalar_host;
pub mod scalar_loop;
pub mod scalar_node;
pub mod selection;
pub mod shape;
pub mod signal;
pub mod solvers;
pub mod sort;
pub mod special;
pub mod subtensor;
pub mod thunk;
pub mod variance;
