//! `ProdWithoutZeros`: the product over axes of the nonzero elements (a
//! zero counts as one). Mirrors `pytensor/tensor/math.py`'s
//! `ProdWithoutZeros`, which `Prod`'s gradient uses there; its own
//! gradient is undefined, as PyTensor's.

use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::elemwise::cast::cast;
use crate::kernels::elemwise::elemwise;
use crate::kernels::reduce::reduce;
use crate::ops::reduce::CAReduce;
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::reduction::ReduceKind;
use crate::scalar::{ScalarKind, ScalarOp};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// The reduction: `Prod`'s axes and dtypes, over the input with its zeros
/// replaced by ones.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProdWithoutZeros {
    /// `Prod`'s axes and dtypes (its `kind` is `Prod`).
    pub reduce: CAReduce,
}

impl ProdWithoutZeros {
    /// PyTensor's default dtypes for this input dtype (`Prod`'s).
    pub fn new(axis: Option<&[i64]>, input: &TensorType) -> Result<Self> {
        Ok(ProdWithoutZeros {
            reduce: CAReduce::new(ReduceKind::Prod, axis, input)?,
        })
    }
}

impl Op for ProdWithoutZeros {
    fn name(&self) -> &str {
        "ProdWithoutZeros"
    }

    fn class_path(&self) -> smallvec::SmallVec<[&str; 2]> {
        smallvec::smallvec!["ProdWithoutZeros", "CAReduce"]
    }

    /// `ProdWithoutZeros{axes=None}`, `ProdWithoutZeros{axis=1}`.
    fn describe(&self) -> String {
        format!("ProdWithoutZeros{{{}}}", self.reduce.axis_str())
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        self.reduce.output_types(inputs)
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        // The kernel broadcasts operands of one rank: 0 and 1 as 1 x ... x 1.
        let ones = vec![1; x.ndim()];
        let (zero, one) = (
            cast(&Tensor::from_vec(ones.clone(), vec![0i64])?, x.dtype())?,
            cast(&Tensor::from_vec(ones, vec![1i64])?, x.dtype())?,
        );
        let flags: Vec<bool> = x.shape().iter().map(|&n| n == 1).collect();
        let unit = vec![true; x.ndim()];
        let eq = ScalarOp::Kind(ScalarKind::Eq);
        let is_zero = elemwise(
            &eq,
            &[x, &zero],
            &[flags.clone(), unit.clone()],
            DType::Bool,
            Some(&mut *ctx.pool),
        )?;
        let switch = ScalarOp::Kind(ScalarKind::Switch);
        let nonzero = elemwise(
            &switch,
            &[&is_zero, &one, x],
            &[flags.clone(), unit, flags],
            x.dtype(),
            Some(&mut *ctx.pool),
        )?;
        let axes = self.reduce.axes(x.ndim());
        let r = &self.reduce;
        outputs[0] = Some(
            reduce(
                ReduceKind::Prod,
                &nonzero,
                &axes,
                r.acc_dtype,
                r.dtype,
                Some(ctx.pool),
            )?
            .into(),
        );
        Ok(())
    }

    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        self.reduce.infer_shape(g, node, input_shapes)
    }

    fn pullback(&self, g: &mut Graph, node: NodeId, _output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let x = g.node(node).inputs[0];
        let why = format!(
            "This variable is Null because the grad method for input 0 ({}) of the {} op is undefined: ProdWithoutZeros has no gradient.",
            g.describe_var(x),
            self.describe()
        );
        Ok(vec![g.input(Type::Null(why.into()), None)])
    }

    crate::op_identity!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_name() {
        let x = TensorType::new(DType::Int8, [None, Some(3)]).unwrap();
        let p = ProdWithoutZeros::new(Some(&[-1]), &x).unwrap();
        assert_eq!(p.describe(), "ProdWithoutZeros{axis=1}");
        let out = p.output_types(&[&x.clone().into()]).unwrap();
        assert_eq!(out[0].expect_tensor("out").unwrap().dtype, DType::Int64);
    }
}
