//! The tensor rewrites, one file per family, each rewriter a small named
//! unit (`local_<what>`, PyTensor's names) registered into its phase of
//! [`optdb`](super::optdb::optdb) with PyTensor's tags.

mod inplace_elemwise;
mod pow;
mod stabilize_log;
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
    inplace_elemwise::register(db)?;
    Ok(())
}
