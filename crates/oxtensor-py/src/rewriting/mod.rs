//! Rewriting from Python: rewriters written in Python run by the core's
//! drivers (through the bridge to the Python graph), the core's passes and
//! databases seen from Python, and their run profiles.

pub mod bridge;
pub mod db;
pub mod failure;
pub mod fold;
pub mod graph;
pub mod node;
pub mod pattern;
pub mod profile;
pub mod verbose;
