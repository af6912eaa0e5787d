//! A `Sum` fused with the elementwise graph it reduces (PyTensor's
//! `local_careduce_fusion`): `CAReduce` whose scalar op is a `Composite`
//! folding each element of `pre(inputs)` into the accumulator, printed as
//! PyTensor prints it, `CAReduce{Composite{(i0 + sqr((i1 - i2)))},
//! axis=0}` (`i0` the accumulator). The fused kernel adds each block of
//! `pre`'s values as it computes it, so they never exist at full size.
//! Unlike PyTensor's, the pre-map may read several inputs (broadcast
//! against each other as `Elemwise` does).

use super::elemwise::Elemwise;
use super::reduce::CAReduce;
use super::{Op, PerformCtx};
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::fused::{interpret, FusedKernel, FusedThunk};
use crate::kernels::reduce::reduce;
use crate::op_identity;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::reduction::ReduceKind;
use crate::scalar::composite::{Composite, Operand};
use crate::scalar::{ScalarKind, ScalarOp};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;
use smallvec::SmallVec;
use std::sync::Arc;

/// `CAReduce{Composite{...}}`: a reduction of a composite's values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompositeReduce {
    /// The reduction it ends with (a `Sum`).
    pub reduce: CAReduce,
    /// The elementwise map (one output, of the reduction's input dtype).
    pub pre: Arc<Composite>,
    /// PyTensor's scalar op: `acc + pre(inputs)` (made from the others).
    scalar_op: Arc<Composite>,
}

impl CompositeReduce {
    /// `reduce` of `pre`'s single output.
    pub fn new(reduce: CAReduce, pre: Arc<Composite>) -> Result<CompositeReduce> {
        if pre.nout() != 1 || reduce.kind != ReduceKind::Sum {
            return Err(Error::Value(format!(
                "a fused reduction is a Sum of one composite output, got {} of {pre}",
                reduce.describe()
            )));
        }
        let mut dtypes = vec![reduce.acc_dtype];
        dtypes.extend_from_slice(pre.input_dtypes());
        let mut b = Composite::builder(&dtypes);
        let args: Vec<Operand> = (1..dtypes.len()).map(Operand::Input).collect();
        let value = b.inline(&pre, &args)?[0];
        let mut sum = b.push(ScalarKind::Add.into(), &[Operand::Input(0), value])?;
        if b.dtype_of(sum) != reduce.acc_dtype {
            sum = b.push(ScalarOp::Cast(reduce.acc_dtype), &[sum])?;
        }
        let scalar_op = Arc::new(b.finish(&[sum])?);
        Ok(CompositeReduce {
            reduce,
            pre,
            scalar_op,
        })
    }

    /// PyTensor's `scalar_op`: the composite folding one element in.
    pub fn scalar_op(&self) -> &Arc<Composite> {
        &self.scalar_op
    }

    /// The type of `pre`'s values over inputs of these types.
    fn values_type(&self, inputs: &[&TensorType]) -> Result<TensorType> {
        Elemwise::new(ScalarOp::Composite(self.pre.clone())).output_type(inputs)
    }

    /// The fused kernel for a node with these input types.
    fn kernel(&self, input_types: &[Type]) -> Option<FusedKernel> {
        let tensors: Vec<&TensorType> = input_types
            .iter()
            .map(|t| t.as_tensor())
            .collect::<Option<_>>()?;
        let values = Type::from(self.values_type(&tensors).ok()?);
        let axes = self.reduce.axes(values.as_tensor()?.ndim());
        FusedKernel::new(&self.pre, input_types, &[values])?
            .with_sum(&axes, self.reduce.acc_dtype)
            .ok()
    }
}

impl Op for CompositeReduce {
    // `CAReduce{Composite{(i0 + exp(i1))}, axes=None}`.
    op_identity!("CAReduce", self => "{}, {}", self.scalar_op, self.reduce.axis_str());

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let tensors: Vec<&TensorType> = inputs
            .iter()
            .map(|t| t.expect_tensor("An input of a fused reduction"))
            .collect::<Result<_>>()?;
        let values = self.values_type(&tensors)?;
        Ok(vec![self.reduce.output_type(&values)?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let tensors = inputs
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<SmallVec<[&Tensor; 4]>>>()?;
        let out = match self.kernel(ctx.input_types) {
            Some(k) => k.run(&tensors, ctx.pool)?.swap_remove(0),
            None => {
                let pre = ScalarOp::Composite(self.pre.clone());
                let dtypes = self.pre.output_dtypes();
                let values =
                    interpret::evaluate(&pre, &tensors, ctx.input_bcast, &dtypes, ctx.pool)?;
                let r = &self.reduce;
                let axes = r.axes(values[0].ndim());
                reduce(
                    r.kind,
                    &values[0],
                    &axes,
                    r.acc_dtype,
                    r.dtype,
                    Some(ctx.pool),
                )?
            }
        };
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn make_thunk(
        &self,
        input_types: &[Type],
        output_types: &[Type],
    ) -> Option<Box<dyn crate::vm::Thunk>> {
        let _ = output_types;
        Some(Box::new(FusedThunk::new(self.kernel(input_types)?)))
    }

    /// The composite's values' shape without the reduced axes.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let inputs = g.node(node).inputs.clone();
        let types: Vec<TensorType> = inputs
            .iter()
            .map(|&v| Ok(g.var(v).ty.expect_tensor("An input")?.clone()))
            .collect::<Result<_>>()?;
        let values = self.values_type(&types.iter().collect::<Vec<_>>())?;
        let shape = super::elemwise::broadcast_dims(g, &inputs, &values, input_shapes)?;
        let axes = self.reduce.axes(shape.len());
        let kept = (0..shape.len()).filter(|d| !axes.contains(d));
        Ok(Some(vec![kept.map(|d| shape[d]).collect()]))
    }

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let total = self.spelled_out(g, node)?;
        let inputs = g.node(node).inputs.clone();
        let found = crate::grad::pullback(g, &[total], &inputs, output_grads, None)?;
        Ok(found
            .grads
            .into_iter()
            .map(|gr| gr.unwrap_or_else(|| crate::ops::scalar_grad::disconnected(g)))
            .collect())
    }

    fn inner_fgraph(&self) -> Option<Result<crate::graph::FunctionGraph>> {
        Some(self.scalar_op.fgraph())
    }
}

impl CompositeReduce {
    /// `node` as `Elemwise` nodes of `pre` and a `CAReduce` of them, built
    /// in `g` over the node's inputs: the reduction's output.
    fn spelled_out(&self, g: &mut Graph, node: NodeId) -> Result<VarId> {
        let inputs = g.node(node).inputs.clone();
        let values = self.pre.expand(g, &inputs)?;
        g.apply_out(Arc::new(self.reduce.clone()), &values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType::*;
    use crate::graph::{FunctionGraph, Graph};
    use crate::vm::{LinkOptions, Program};

    /// `sum(sqr(x - r), axis)` as one fused node and spelled out.
    fn programs(axis: Option<&[i64]>) -> (Program, Program, String) {
        let mut b = Composite::builder(&[Float64, Float64]);
        let d = b
            .push(
                ScalarKind::Sub.into(),
                &[Operand::Input(0), Operand::Input(1)],
            )
            .unwrap();
        let q = b.push(ScalarKind::Sqr.into(), &[d]).unwrap();
        let pre = Arc::new(b.finish(&[q]).unwrap());
        let mut g = Graph::new();
        let x = g.input(TensorType::with_ndim(Float64, 2), Some("x"));
        let r = g.input(
            TensorType::new(Float64, [Some(1), None]).unwrap(),
            Some("r"),
        );
        let values = TensorType::with_ndim(Float64, 2);
        let sum = CAReduce::new(ReduceKind::Sum, axis, &values).unwrap();
        let op = CompositeReduce::new(sum.clone(), pre.clone()).unwrap();
        let name = op.describe();
        let fused = g.apply_out(Arc::new(op), &[x, r]).unwrap();
        let v = g
            .apply_out(Arc::new(Elemwise::new(ScalarOp::Composite(pre))), &[x, r])
            .unwrap();
        let plain = g.apply_out(Arc::new(sum), &[v]).unwrap();
        let link = |out| {
            let fg = FunctionGraph::new(g.clone(), vec![x, r], vec![out]).unwrap();
            Program::link(&fg, Default::default(), &LinkOptions::default()).unwrap()
        };
        (link(fused), link(plain), name)
    }

    #[test]
    fn prints_as_pytensor_and_sums_as_the_nodes() {
        let (fused, plain, name) = programs(Some(&[0]));
        assert_eq!(name, "CAReduce{Composite{(i0 + sqr((i1 - i2)))}, axis=0}");
        for (rows, cols) in [(3, 5), (40, 50), (3000, 7)] {
            let n = rows * cols;
            let x = Tensor::from_vec(vec![rows, cols], (0..n).map(|i| (i as f64).sin()).collect());
            let r = Tensor::from_vec(vec![1, cols], (0..cols).map(|i| i as f64 * 0.1).collect());
            let args: Vec<Value> = vec![x.unwrap().into(), r.unwrap().into()];
            let a = fused.run(&args).unwrap()[0].tensor().unwrap().clone();
            let b = plain.run(&args).unwrap()[0].tensor().unwrap().clone();
            assert_eq!((a.dtype(), a.shape()), (b.dtype(), b.shape()));
            if n <= 2048 {
                assert!(
                    a.same_values(&b),
                    "{rows}x{cols}: small calls are bit-identical"
                );
            }
        }
        let (_, _, name) = programs(None);
        assert_eq!(
            name,
            "CAReduce{Composite{(i0 + sqr((i1 - i2)))}, axes=None}"
        );
    }
}
