//! Process-wide settings the Python package pushes down or reads back:
//! `floatX`, the host BLAS and its routing, the SIMD level, the count of
//! buffers made.

pub mod blas;
pub mod cpu;
pub mod memory;
pub mod settings;
