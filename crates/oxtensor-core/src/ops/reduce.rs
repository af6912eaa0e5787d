//! `CAReduce`: a commutative, associative scalar op folded over axes, and
//! the classes PyTensor derives from it (`Sum`, `Prod`, `Max`, `Min`, `All`,
//! `Any`), with their dtype rules. Mirrors `pytensor/tensor/elemwise.py`
//! (`CAReduce`) and `tensor/math.py`.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::reduce::reduce;
use crate::op_identity;
use crate::ops::grad_rules;
use crate::ops::scalar_grad::grad_dtype;
use crate::ops::Outs;
use crate::ops::Tangents;
use crate::ops::{Op, PerformCtx};
use crate::reduction::ReduceKind;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// A reduction over `axis` (`None`: all axes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CAReduce {
    /// Which reduction.
    pub kind: ReduceKind,
    /// Sorted, non-negative axes, or `None` for all.
    pub axis: Option<Vec<usize>>,
    /// Output dtype.
    pub dtype: DType,
    /// Accumulator dtype.
    pub acc_dtype: DType,
}

impl CAReduce {
    /// A reduction with PyTensor's default dtypes for this input dtype.
    /// Negative axes count from the end; duplicates are an error.
    pub fn new(kind: ReduceKind, axis: Option<&[i64]>, input: &TensorType) -> Result<Self> {
        let axis = axis.map(|a| normalize_axes(a, input.ndim())).transpose()?;
        Ok(CAReduce {
            kind,
            axis,
            dtype: kind.default_dtype(input.dtype),
            acc_dtype: kind.default_acc_dtype(input.dtype),
        })
    }

    /// The reduced axes of a rank-`ndim` input.
    pub fn axes(&self, ndim: usize) -> Vec<usize> {
        super::reduced_axes::reduced_axes(self.axis.as_deref(), ndim)
    }

    /// The output type: the input without the reduced axes.
    pub fn output_type(&self, input: &TensorType) -> Result<TensorType> {
        let shape =
            super::reduced_axes::kept_static_shape(&self.describe(), self.axis.as_deref(), input)?;
        TensorType::new(self.dtype, shape)
    }

    pub(crate) fn axis_str(&self) -> String {
        super::reduced_axes::axes_prop(self.axis.as_deref())
    }
}

/// Turns possibly negative axes into sorted, checked, non-negative ones.
pub fn normalize_axes(axes: &[i64], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = ndim as i64;
        if a >= n || a < -n {
            return Err(Error::Value(format!(
                "axis {a} is out of bounds for array of dimension {ndim}"
            )));
        }
        let a = if a < 0 { (a + n) as usize } else { a as usize };
        if out.contains(&a) {
            return Err(Error::Value(format!("repeated axis {a} in {axes:?}")));
        }
        out.push(a);
    }
    out.sort_unstable();
    Ok(out)
}

impl Op for CAReduce {
    fn name(&self) -> &str {
        self.kind.class_name()
    }

    fn class_path(&self) -> smallvec::SmallVec<[&str; 2]> {
        smallvec::smallvec![self.kind.class_name(), "CAReduce"]
    }

    /// `Sum{axes=None}`, `Max{axis=1}`, `Sum{axes=[0, 2]}`.
    fn describe(&self) -> String {
        match self.kind.is_bitwise() {
            // `CAReduce{or_, axes=None}`, as PyTensor prints the base class.
            true => format!(
                "CAReduce{{{}, {}}}",
                self.kind.scalar_name(),
                self.axis_str()
            ),
            false => format!("{}{{{}}}", self.kind.class_name(), self.axis_str()),
        }
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let input = super::arity::single_input(self, inputs)?;
        Ok(vec![self
            .output_type(input.expect_tensor("The input of a reduction")?)?
            .into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let axes = self.axes(x.ndim());
        outputs[0] = Some(
            reduce(
                self.kind,
                x,
                &axes,
                self.acc_dtype,
                self.dtype,
                Some(ctx.pool),
            )?
            .into(),
        );
        Ok(())
    }

    /// `all` and `any` of bools read them as bytes (`kernels/reduce/mod.rs`).
    fn reads_bool_bytes(&self, input: usize, input_types: &[Type], _: &[Type]) -> bool {
        matches!(self.kind, ReduceKind::All | ReduceKind::Any)
            && input_types.get(input).is_some_and(Type::is_bool_tensor)
    }

    super::shape_rules::shape_without_axes!();

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        Ok(vec![grad_rules::reduce_pullback(
            self,
            g,
            node,
            output_grads[0],
        )?])
    }

    /// A sum is linear: its tangent is the sum of the input's tangent. The
    /// others derive theirs from the pullback.
    fn pushforward(&self, g: &mut Graph, _node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        match (self.kind, tangents[0]) {
            (ReduceKind::Sum, Some(v)) => {
                let op = CAReduce {
                    dtype: grad_dtype(self.dtype),
                    acc_dtype: grad_dtype(self.acc_dtype),
                    ..self.clone()
                };
                Ok(Some(vec![Some(
                    g.apply_out(std::sync::Arc::new(op), &[v])?,
                )]))
            }
            (ReduceKind::Sum, None) => Ok(Some(vec![None])),
            _ => Ok(None),
        }
    }

    op_identity!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_types_and_names() {
        let x = TensorType::new(DType::Int8, [None, Some(3), None]).unwrap();
        let s = CAReduce::new(ReduceKind::Sum, Some(&[-1]), &x).unwrap();
        assert_eq!(s.describe(), "Sum{axis=2}");
        let out = s.output_type(&x).unwrap();
        assert_eq!(out.dtype, DType::Int64);
        assert_eq!(out.shape.as_slice(), &[None, Some(3)]);
        let all = CAReduce::new(ReduceKind::Max, None, &x).unwrap();
        assert_eq!(all.describe(), "Max{axes=None}");
        assert_eq!(all.output_type(&x).unwrap().ndim(), 0);
        assert_eq!(
            CAReduce::new(ReduceKind::Sum, Some(&[0, 2]), &x)
                .unwrap()
                .describe(),
            "Sum{axes=[0, 2]}"
        );
        assert!(CAReduce::new(ReduceKind::Sum, Some(&[3]), &x).is_err());
        assert!(CAReduce::new(ReduceKind::Sum, Some(&[0, -3]), &x).is_err());
    }
}
