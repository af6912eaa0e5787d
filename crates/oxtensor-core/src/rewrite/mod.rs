//! Graph rewrites. For now: constant folding, which every compilation runs.

mod constant_fold;

pub use constant_fold::constant_fold;
