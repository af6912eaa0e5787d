//! Indexing: basic and advanced (sub)tensor reads and writes, boolean
//! masks, row scatters, `nonzero` and `bincount`. The ops call the entry
//! points re-exported here; the loops behind them stay private.

mod advanced;
mod bincount;
mod diagonal;
mod mask_bits;
mod mask_index;
mod mask_update;
mod nonzero;
mod ravel;
mod row_scatter;
mod subtensor;

pub use advanced::{gather, plan, scatter};
pub use bincount::bincount;
pub use diagonal::{fill_positions, main_diagonal, offset_diagonal};
pub use mask_index::{leading_mask, mask_gather};
pub use mask_update::mask_update;
pub use nonzero::nonzero_coords;
pub use ravel::{ravel, unravel, OutOfRange};
pub use row_scatter::scatter_rows;
pub use subtensor::{basic_view, broadcast_value, run_blocks, Blocks, Write};
