//! # oxtensor-core
//!
//! The engine of oxtensor, a symbolic tensor graph library in the
//! Theano → Aesara → PyTensor line: types, graphs, ops, and the function
//! graph that rewriting, gradients and execution work on. It does not depend
//! on Python; the `oxtensor` Python package drives it through PyO3.
//!
//! ```
//! use oxtensor_core::prelude::*;
//!
//! // y = (x * 2).sum() over a float64 matrix x
//! let mut g = Graph::new();
//! let x = g.input(TensorType::with_ndim(DType::Float64, 2), Some("x"));
//! let two = g.tensor_constant(Tensor::scalar(2.0f64));
//! let y = build::mul(&mut g, x, two).unwrap();
//! let s = build::sum(&mut g, y, None).unwrap();
//! let fg = FunctionGraph::new(g, vec![x], vec![s]).unwrap();
//! // Compile for the VM and run it on our own array.
//! let program = oxtensor_core::vm::Program::link(&fg, Default::default(), &Default::default()).unwrap();
//! let out = program.run(vec![Tensor::from_vec(vec![1, 2], vec![1.0, 2.0]).unwrap().into()]).unwrap();
//! assert_eq!(oxtensor_core::tensor::format_tensor(out[0].tensor().unwrap()), "6.0");
//! assert_eq!(
//!     debugprint(&fg, &PrintOptions::default()),
//!     "Sum{axes=None} [id A] 2\n \
//!      └─ Mul [id B] 1\n    \
//!         ├─ x [id C]\n    \
//!         └─ ExpandDims{axes=(0, 1)} [id D] 0\n       \
//!            └─ 2.0 [id E]\n"
//! );
//! ```
#![warn(missing_docs)]
#![warn(clippy::print_stdout)]

pub mod build;
pub mod compile;
pub mod dtype;
pub mod error;
pub mod grad;
pub mod graph;
pub mod kernels;
pub mod ops;
pub mod pprint;
pub mod print;
pub mod reduction;
pub mod rewrite;
pub mod scalar;
pub mod tensor;
pub mod types;
pub mod value;
pub mod vm;

pub use error::{Error, Result};

/// What a program that builds and runs graphs needs.
pub mod prelude {
    pub use crate::build;
    pub use crate::dtype::DType;
    pub use crate::error::{Error, Result};
    pub use crate::graph::{Client, FunctionGraph, Graph, NodeId, VarId};
    pub use crate::print::{debugprint, PrintOptions};
    pub use crate::tensor::Tensor;
    pub use crate::types::{TensorType, Type};
}
