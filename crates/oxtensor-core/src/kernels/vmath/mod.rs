//! Branch-free element functions (trigonometric, inverse trigonometric,
//! hyperbolic) that LLVM turns into SIMD code, the loops that run them in
//! AVX-512, AVX2 or baseline builds chosen at run time, and the table that
//! gives `float_ops` each kind's loops.

mod inverse_trig;
pub(crate) mod kinds;
mod poly;
mod tanh_f32;
#[cfg(test)]
mod test_support;
mod trig;
#[cfg(test)]
mod trig_tests;
pub(crate) mod variants;
