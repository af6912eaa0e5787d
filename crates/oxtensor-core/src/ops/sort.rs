//! `SortOp` and `ArgSortOp` (`pytensor/tensor/sort.py`): inputs are the
//! tensor and the axis as a 0-d integer tensor; `kind` is kept for
//! printing and equality only (every kind sorts the same here). The
//! inplace phase (`rewrite/families/inplace_running.rs`) makes `SortOp`
//! `inplace` (`destroy_map = {0: [0]}`): it then sorts its input's own
//! buffer when the program grants it.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::sort::{argsort, sort, sort_in_place, take_along_axis};
use crate::op_identity;
use crate::ops::reduce::normalize_axes;
use crate::ops::scalar_grad::{disconnected, grad_dtype, match_dtype, tensor};
use crate::ops::Outs;
use crate::ops::{Op, PerformCtx};
use crate::tensor::Scalar;
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// Sorted values (`SortOp`) or the indices that sort (`ArgSortOp`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sort {
    /// `true` for `ArgSortOp`.
    pub indices: bool,
    /// NumPy's `kind` argument (`quicksort`, `mergesort`, ...).
    pub kind: String,
    /// Whether the sorted values overwrite the input (`destroy_map =
    /// {0: [0]}`; never for `ArgSortOp`).
    pub inplace: bool,
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

    super::shape_rules::shape_of_input!(0);

    fn destroy_map(&self) -> crate::ops::IoMap {
        match self.inplace && !self.indices {
            true => vec![(0, vec![0])],
            false => Vec::new(),
        }
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axis = self.axis(inputs[1], x.ndim())?;
        if self.inplace && !self.indices {
            if let Some(y) = ctx.pool.overwrite_granted(x, |y| sort_in_place(y, axis))? {
                outputs[0] = Some(y.into());
                return Ok(());
            }
        }
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

    /// `sort`: the output gradient sent back to where each element came
    /// from, `take_along_axis(gy, argsort(argsort(x)))`; `argsort` is
    /// piecewise constant (zeros).
    fn pullback(&self, g: &mut Graph, node: NodeId, grads: &[VarId]) -> Result<Vec<VarId>> {
        let (x, axis) = (g.node(node).inputs[0], g.node(node).inputs[1]);
        let gx = if self.indices {
            let dt = grad_dtype(tensor(g, x)?.dtype);
            crate::build::zeros_like(g, x, dt)?
        } else {
            let argsort = Arc::new(Sort {
                indices: true,
                kind: self.kind.clone(),
                inplace: false,
            });
            let perm = g.apply_out(argsort.clone(), &[x, axis])?;
            let inverse = g.apply_out(argsort, &[perm, axis])?;
            let gx = g.apply_out(Arc::new(TakeAlongAxis), &[grads[0], inverse, axis])?;
            match_dtype(g, gx, tensor(g, x)?.dtype)?
        };
        Ok(vec![gx, disconnected(g)])
    }

    op_identity!();
}

/// `TakeAlongAxis`: `np.take_along_axis(values, indices, axis)` for int64
/// indices shaped like the values (inputs: values, indices, 0-d axis). It
/// carries `sort`'s gradient back to the unsorted positions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TakeAlongAxis;

impl Op for TakeAlongAxis {
    op_identity!("TakeAlongAxis");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let names = ["values", "indices", "axis"];
        let [values, indices, axis] = super::arity::tensors("TakeAlongAxis", inputs, names)?;
        if indices.dtype != DType::Int64 || indices.ndim() != values.ndim() || axis.ndim() != 0 {
            return Err(Error::Type(format!(
                "TakeAlongAxis needs int64 indices of the values' rank and a 0-d axis, \
                 got {values}, {indices}, {axis}"
            )));
        }
        Ok(vec![TensorType::new(
            values.dtype,
            indices.shape.iter().copied(),
        )?
        .into()])
    }

    super::shape_rules::shape_of_input!(1);

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (a, idx) = (inputs[0].tensor()?, inputs[1].tensor()?);
        let axis = Sort {
            indices: false,
            kind: String::new(),
            inplace: false,
        }
        .axis(inputs[2], a.ndim())?;
        outputs[0] = Some(take_along_axis(a, idx, axis, Some(ctx.pool))?.into());
        Ok(())
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some(vec![vec![true], vec![false], vec![false]]))
    }
}
