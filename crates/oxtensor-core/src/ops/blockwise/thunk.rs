//! `Blockwise`'s thunk when the core op makes one of its own for the core
//! types (`Op::make_thunk`; a Python op's is its `perform` on a node of
//! core-shaped variables): made once at link time, run per batch entry.

use super::perform::{perform, Runner};
use super::Blockwise;
use crate::error::Result;
use crate::kernels::alloc::Pool;
use crate::types::Type;
use crate::value::Value;
use crate::vm::NodeTypes;
use crate::vm::Thunk;

/// The batch loop around the core op's thunk.
pub(super) struct BlockwiseThunk {
    pub(super) op: Blockwise,
    pub(super) types: NodeTypes,
    pub(super) core: Box<dyn Thunk>,
}

impl Thunk for BlockwiseThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut [Option<Value>], pool: &mut Pool) -> Result<()> {
        perform(
            &self.op,
            &mut self.types.ctx(pool),
            inputs,
            outputs,
            Runner::Thunk(self.core.as_ref()),
        )
    }

    fn is_host(&self) -> bool {
        self.core.is_host()
    }
}

/// The thunk of a `Blockwise` node with these types, if its core op makes
/// one for the core types.
pub(super) fn make_thunk(
    op: &Blockwise,
    input_types: &[Type],
    output_types: &[Type],
) -> Option<Box<dyn Thunk>> {
    let refs: Vec<&Type> = input_types.iter().collect();
    let core_in = op.core_input_types(&refs).ok()?;
    let core_out: Vec<Type> = op
        .core_output_types(&core_in)
        .ok()?
        .into_iter()
        .map(Into::into)
        .collect();
    let core = op.core_op.make_thunk(&core_in, &core_out)?;
    Some(Box::new(BlockwiseThunk {
        op: op.clone(),
        types: NodeTypes::new(input_types.to_vec(), output_types.to_vec()),
        core,
    }))
}
