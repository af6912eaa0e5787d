//! The steps a [`super::Program`] runs: one per node, naming where each
//! input is read ([`Src`]), the storage slots it fills and frees, and what
//! it may write in place; and the [`Workspace`] a call runs them in.

use super::checked::NodeView;
use super::destroy_grant::Destroyed;
use super::thunk::Thunk;
use crate::kernels::alloc::Pool;
use crate::ops::OpRef;
use crate::types::Type;
use crate::value::Value;

/// Where a step reads a value. Inputs and constants are borrowed where they
/// are, so a call copies no value into storage before the steps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Src {
    /// The caller's input at this position.
    Input(usize),
    /// The program's constant at this position.
    Const(usize),
    /// A storage slot, filled by the step that computes it.
    Slot(usize),
}

pub(super) struct Step {
    pub(super) thunk: Box<dyn Thunk>,
    /// The node's op (what a checker reads the declared maps from).
    pub(super) op: OpRef,
    /// The node's inputs, as declared (what error messages and lazy runs see).
    pub(super) inputs: Vec<Src>,
    /// What the thunk is given: `inputs`, with constants replaced by the
    /// form the thunk prepared at link time (see [`Thunk::prepare_constant`]).
    pub(super) run_inputs: Vec<Src>,
    pub(super) outputs: Vec<usize>,
    pub(super) output_types: Vec<Type>,
    pub(super) label: String,
    /// Slots whose last reader is this step.
    pub(super) frees: Vec<usize>,
    /// `(input, slot)`: an input the step reads last, lent to the thunk to
    /// write its output into (see [`super::donation`]).
    pub(super) donor: Option<(usize, usize)>,
    /// The inputs the node destroys (its op's `destroy_map`, one per
    /// destroying output), offered to a native thunk to write those outputs
    /// into (see [`super::destroy_grant`]).
    pub(super) destroys: Vec<Destroyed>,
}

impl Step {
    /// What a checker is told about step `k`.
    pub(super) fn view(&self, k: usize) -> NodeView<'_> {
        NodeView {
            index: k,
            label: &self.label,
            op: &self.op,
            output_types: &self.output_types,
        }
    }
}

/// What a call needs besides its inputs, kept between calls so that a call
/// allocates neither: the storage slots (all empty between calls) and the
/// buffers of dead intermediates.
#[derive(Default)]
pub(super) struct Workspace {
    pub(super) storage: Vec<Option<Value>>,
    pub(super) pool: Pool,
}
