//! The tensor rewrites, one file per family, each rewriter a small named
//! unit (`local_<what>`, PyTensor's names) registered into its phase of
//! [`optdb`](super::optdb::optdb) with PyTensor's tags.

mod advanced_subtensor;
mod alloc;
mod dimshuffle;
mod dot;
mod inc_subtensor;
mod join;
mod pow;
mod reduce;
mod reshape;
mod shape;
pub(crate) mod shape_feature;
mod stabilize_log;
mod subtensor;
#[cfg(test)]
pub(crate) mod testing;
mod useless_elemwise;
pub(crate) mod util;

use super::db::RewriteDb;
use crate::error::Result;

/// Registers every family into `db`'s phases.
pub(crate) fn register_all(db: &RewriteDb) -> Result<()> {
    useless_elemwise::register(db)?;
    pow::register(db)?;
    stabilize_log::register(db)?;
    shape::register(db)?;
    reshape::register(db)?;
    dimshuffle::register(db)?;
    alloc::register(db)?;
    reduce::register(db)?;
    join::register(db)?;
    dot::register(db)?;
    subtensor::register(db)?;
    inc_subtensor::register(db)?;
    advanced_subtensor::register(db)?;
    Ok(())
}
