//! Integration tests: oxtensor used from Rust alone (one binary, linked once).

// Test helpers outside `#[test]` functions unwrap too: a failure is a test failure.
#![allow(clippy::unwrap_used)]

mod compile;
mod shapes;
mod support;
mod vm;
