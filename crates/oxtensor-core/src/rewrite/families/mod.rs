//! The tensor rewrites, one file per family, each rewriter a small named
//! unit (`local_<what>`, PyTensor's names) registered into its phase of
//! [`optdb`](super::optdb::optdb) with PyTensor's tags.

/// A node rewriter tracking nodes of the given scalar kinds: `node_rw`
/// with `Tracks::scalars` (a macro, as `node_rw` takes a plain `fn` for
/// the tracks, which a function could not build from its argument).
macro_rules! scalar_rw {
    ($name:expr, [$($kind:expr),+ $(,)?], $f:expr $(,)?) => {
        $crate::rewrite::node_rw(
            $name,
            || $crate::rewrite::rewriter::Tracks::scalars(&[$($kind),+]),
            $f,
        )
    };
}

mod advanced_subtensor;
mod alloc;
mod argmin;
mod canonizer;
mod cast;
mod comparison;
mod dimshuffle;
mod dot;
mod exp_log_switch;
mod fill;
mod fusion;
mod grad_ops;
mod inc_subtensor;
mod inplace_cumop_sort;
mod inplace_elemwise;
mod inplace_pass;
mod inplace_subtensor;
mod inverse_functions;
mod join;
mod log_div;
mod logsumexp;
mod neg;
mod pow;
mod pow_squaring;
mod reduce;
mod reshape;
mod shape;
pub(crate) mod shape_feature;
mod sigmoid;
mod softmax;
mod softplus;
mod specialize_arith;
mod stabilize_log;
mod subtensor;
mod sum_alloc;
mod switch;
#[cfg(test)]
pub(crate) mod testing;
mod uncanonicalize;
mod useless_elemwise;
pub(crate) mod util;
mod variance;
mod zeros;

use super::db::RewriteDb;
use crate::error::Result;

/// Registers every family into `db`'s phases.
pub(crate) fn register_all(db: &RewriteDb) -> Result<()> {
    useless_elemwise::register(db)?;
    fill::register(db)?;
    cast::register(db)?;
    grad_ops::register(db)?;
    switch::register(db)?;
    comparison::register(db)?;
    inverse_functions::register(db)?;
    canonizer::register(db)?;
    neg::register(db)?;
    zeros::register(db)?;
    pow::register(db)?;
    stabilize_log::register(db)?;
    fusion::register(db)?;
    shape::register(db)?;
    reshape::register(db)?;
    dimshuffle::register(db)?;
    alloc::register(db)?;
    reduce::register(db)?;
    sum_alloc::register(db)?;
    join::register(db)?;
    dot::register(db)?;
    subtensor::register(db)?;
    inc_subtensor::register(db)?;
    advanced_subtensor::register(db)?;
    logsumexp::register(db)?;
    softmax::register(db)?;
    softplus::register(db)?;
    sigmoid::register(db)?;
    log_div::register(db)?;
    specialize_arith::register(db)?;
    pow_squaring::register(db)?;
    exp_log_switch::register(db)?;
    argmin::register(db)?;
    variance::register(db)?;
    uncanonicalize::register(db)?;
    inplace_elemwise::register(db)?;
    inplace_subtensor::register(db)?;
    inplace_cumop_sort::register(db)?;
    Ok(())
}
