//! `SortOp` and `ArgSortOp` (`pytensor/tensor/sort.py`): inputs are the
//! tensor and the axis as a 0-d integer tensor; `kind` is kept for
//! printing and equality only (every kind sorts the same here).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::sort::{argsort, sort};
use crate::op_identity;
use crate::ops::reduce::normalize_axes;
use crate::ops::scalar_grad::disconnected;
use crate::ops::{Op, PerformCtx};
use crate::tensor::Scalar;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// Sorted values (`SortOp`) or the indices that sort (`ArgSortOp`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sort {
    /// `true` for `ArgSortOp`.
    pub indices: bool,
    /// NumPy's `kind` argument (`quicksort`, `mergesort`, ...).
    pub kind: String,
}

impl Sort {
    fn class_name(&self) -> &'static str {
        if self.indices {
            "ArgSortOp"
        } else {
            "SortOp"
        }
    }

    /// The axis value of input 1, checked against `ndim`.
    fn axis(&self, v: &Value, ndim: usize) -> Result<usize> {
        let t = v.tensor()?;
        let a = match t.get(0) {
            Scalar::Int(i) => i,
            Scalar::UInt(u) => u as i64,
            other => {
                return Err(Error::Type(format!(
                    "{}: the axis must be an integer, got {other:?}",
                    self.describe()
                )))
            }
        };
        Ok(normalize_axes(&[a], ndim.max(1))?[0])
    }
}

impl Op for Sort {
    fn name(&self) -> &str {
        self.class_name()
    }

    /// `SortOp{kind='quicksort'}`.
    fn describe(&self) -> String {
        format!("{}{{kind='{}'}}", self.class_name(), self.kind)
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, axis] = inputs else {
            return Err(Error::Type(format!(
                "{} takes 2 inputs (x, axis), got {}",
                self.describe(),
                inputs.len()
            )));
        };
        let x = x.expect_tensor("The input of a sort")?;
        let axis = axis.expect_tensor("The axis of a sort")?;
        if axis.ndim() != 0 || !axis.dtype.is_integer() {
            return Err(Error::Type(format!(
                "{}: the axis must be a 0-d integer, got {axis}",
                self.describe()
            )));
        }
        if x.ndim() == 0 || x.dtype.is_complex() {
            return Err(Error::Type(format!(
                "{} needs a real tensor of rank 1 or more, got {x}",
                self.describe()
            )));
        }
        let dtype = if self.indices { DType::Int64 } else { x.dtype };
        Ok(vec![TensorType::new(dtype, x.shape.iter().copied())?.into()])
    }

    fn perform(
        &self,
        ctx: &mut PerformCtx<'_>,
        inputs: &[&Value],
        outputs: &mut [Option<Value>],
    ) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axis = self.axis(inputs[1], x.ndim())?;
        let out = if self.indices {
            argsort(x, axis, Some(ctx.pool))?
        } else {
            sort(x, axis, Some(ctx.pool))?
        };
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![true], vec![false]]))
    }

    /// `argsort` is piecewise constant; `sort`'s gradient needs a gather
    /// along the axis, which comes with the indexing ops.
    fn pullback(&self, g: &mut Graph, node: NodeId, _grads: &[VarId]) -> Result<Vec<VarId>> {
        if !self.indices {
            return Err(Error::NotImplemented(format!(
                "grad of {} is not available yet: it needs take_along_axis from the \
                 indexing ops",
                self.describe()
            )));
        }
        let x = g.node(node).inputs[0];
        let dt = crate::ops::scalar_grad::grad_dtype(crate::ops::scalar_grad::tensor(g, x)?.dtype);
        let zeros = crate::build::zeros_like(g, x, dt)?;
        Ok(vec![zeros, disconnected(g)])
    }

    op_identity!();
}
