//! Process-wide settings the Python package pushes down or reads back:
//! `floatX`, the host BLAS and its routing, the SIMD level.

pub mod blas;
pub mod cpu;
pub mod settings;
