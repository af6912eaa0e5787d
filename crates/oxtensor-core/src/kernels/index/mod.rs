//! Indexing: basic and advanced (sub)tensor reads and writes, boolean
//! masks, row scatters, `nonzero` and `bincount`.

pub(crate) mod advanced;
pub(crate) mod bincount;
pub(crate) mod mask_bits;
pub(crate) mod mask_index;
pub(crate) mod mask_update;
pub(crate) mod nonzero;
pub(crate) mod row_scatter;
pub(crate) mod subtensor;
