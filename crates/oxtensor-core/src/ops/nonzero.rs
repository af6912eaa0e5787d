//! `Nonzero`: the coordinates of an array's nonzero elements, one int64
//! vector per axis, each of a length known only at run time. Mirrors
//! `pytensor.tensor.basic.Nonzero`; `flatnonzero`, `nonzero_values` and
//! `where(cond)` are built from it in Python.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::index::nonzero_coords;
use crate::op_identity;
use crate::ops::Outs;
use crate::ops::{Op, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `Nonzero`: one output per input axis, the nonzero elements' coordinates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Nonzero;

impl Op for Nonzero {
    op_identity!("Nonzero");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let ndim = super::arity::single_tensor(self, inputs)?.ndim();
        if ndim == 0 {
            return Err(Error::Value(
                "Nonzero only supports non-scalar arrays.".into(),
            ));
        }
        let coords: Type = TensorType::new(DType::Int64, [None])?.into();
        Ok(vec![coords; ndim])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let a = inputs[0].tensor()?;
        if a.ndim() == 0 {
            return Err(Error::Value(
                "Nonzero only supports non-scalar arrays.".into(),
            ));
        }
        for (slot, c) in outputs.iter_mut().zip(nonzero_coords(a, Some(ctx.pool))?) {
            *slot = Some(c.into());
        }
        Ok(())
    }

    /// Undefined, as in PyTensor: the coordinates are piecewise constant.
    fn pullback(&self, g: &mut Graph, node: NodeId, _output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let a = g.node(node).inputs[0];
        let why = format!(
            "This variable is Null because the grad method for input 0 ({}) of the Nonzero op is undefined.",
            g.describe_var(a)
        );
        Ok(vec![g.input(Type::Null(why.into()), None)])
    }
}
