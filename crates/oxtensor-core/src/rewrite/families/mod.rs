//! The tensor rewrites, one file per family, each rewriter a small named
//! unit (`local_<what>`, PyTensor's names) registered into its phase of
//! [`optdb`](super::optdb::optdb) with PyTensor's tags.

mod canonizer;
mod cast;
mod comparison;
mod fill;
mod inverse_functions;
mod neg;
mod pow;
mod stabilize_log;
mod switch;
#[cfg(test)]
pub(crate) mod testing;
mod useless_elemwise;
pub(crate) mod util;
mod zeros;

use super::db::RewriteDb;
use crate::error::Result;

/// Registers every family into `db`'s phases.
pub(crate) fn register_all(db: &RewriteDb) -> Result<()> {
    useless_elemwise::register(db)?;
    fill::register(db)?;
    cast::register(db)?;
    switch::register(db)?;
    comparison::register(db)?;
    inverse_functions::register(db)?;
    canonizer::register(db)?;
    neg::register(db)?;
    zeros::register(db)?;
    pow::register(db)?;
    stabilize_log::register(db)?;
    Ok(())
}
