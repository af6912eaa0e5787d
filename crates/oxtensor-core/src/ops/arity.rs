//! How an op checks the number of inputs a node gives it, with the message
//! PyTensor's `make_node` gives ("Sum{axes=None} takes 1 input, got 2").

use super::Op;
use crate::error::{Error, Result};
use crate::types::Type;

/// The one input of a one-input op, or a `TypeError` naming the op.
pub fn single_input<'a>(op: &dyn Op, inputs: &[&'a Type]) -> Result<&'a Type> {
    match inputs {
        [input] => Ok(input),
        _ => Err(Error::Type(format!(
            "{} takes 1 input, got {}",
            op.describe(),
            inputs.len()
        ))),
    }
}
