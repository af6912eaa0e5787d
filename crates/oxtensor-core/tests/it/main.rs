//! Integration tests: oxtensor used from Rust alone (one binary, linked once).

mod vm;
