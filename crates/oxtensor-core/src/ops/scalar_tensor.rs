//! `ScalarFromTensor` and `TensorFromScalar`: the two conversions between
//! a 0-d tensor and a scalar of the same dtype, the bridge between tensor
//! graphs and scalar graphs. Both hold the same 0-d value at run time.
//! Mirrors `pytensor.tensor.basic.ScalarFromTensor` / `TensorFromScalar`.

use crate::dtype::floatx;
use crate::error::{Error, Result};
use crate::graph::{Constant, Graph, NodeId, VarId};
use crate::kernels::copy::copy_contiguous;
use crate::op_identity;
use crate::ops::{InferredShapes, Op, Outs, PerformCtx};
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `ScalarFromTensor`: a 0-d tensor as a scalar.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScalarFromTensor;

/// `TensorFromScalar`: a scalar as a 0-d tensor.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorFromScalar;

/// The one input's type, or an error naming the op.
fn only_input<'a>(op: &str, inputs: &[&'a Type]) -> Result<&'a Type> {
    let [input] = super::arity::exactly(op, inputs)?;
    Ok(input)
}

/// A copy of the 0-d input: the output never aliases it (neither op
/// declares a view).
fn copy_value(inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
    let t = inputs[0].tensor()?;
    if t.ndim() != 0 {
        return Err(Error::Value(format!(
            "expected a 0-d value, got shape {:?}",
            t.shape()
        )));
    }
    outputs[0] = Some(copy_contiguous(t)?.into());
    Ok(())
}

impl Op for ScalarFromTensor {
    op_identity!("ScalarFromTensor");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let input = only_input("ScalarFromTensor", inputs)?;
        match input.as_tensor() {
            Some(t) if t.ndim() == 0 => Ok(vec![Type::Scalar(t.dtype)]),
            _ => Err(Error::Type(format!(
                "ScalarFromTensor takes a 0-d tensor, got a variable of type {input}"
            ))),
        }
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        copy_value(inputs, outputs)
    }

    /// The scalar's gradient as a 0-d tensor.
    fn pullback(&self, g: &mut Graph, _node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        Ok(vec![g.apply_out(
            Arc::new(TensorFromScalar),
            &[output_grads[0]],
        )?])
    }
}

impl Op for TensorFromScalar {
    op_identity!("TensorFromScalar");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let input = only_input("TensorFromScalar", inputs)?;
        let dtype = input.as_scalar().ok_or_else(|| {
            Error::Type(format!(
                "TensorFromScalar takes a scalar (ScalarType), got a variable of type {input}"
            ))
        })?;
        Ok(vec![TensorType::new(dtype, Vec::new())?.into()])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        copy_value(inputs, outputs)
    }

    /// A float scalar gets the tensor's gradient as a scalar; a discrete
    /// one gets a floatX zero, as in PyTensor.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let s = g.node(node).inputs[0];
        let is_float = g.var(s).ty.as_scalar().is_some_and(|d| d.is_float());
        if is_float {
            return Ok(vec![
                g.apply_out(Arc::new(ScalarFromTensor), &[output_grads[0]])?
            ]);
        }
        let fx = floatx();
        let zero = crate::kernels::elemwise::cast::scalar_as(0.0, fx);
        Ok(vec![g.constant(
            Type::Scalar(fx),
            Constant::tensor(zero),
            None,
        )])
    }

    fn infer_shape(
        &self,
        _g: &mut Graph,
        _node: NodeId,
        _shapes: &[super::Dims],
    ) -> InferredShapes {
        Ok(Some(vec![Vec::new()]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType::*;
    use crate::graph::FunctionGraph;
    use crate::tensor::Tensor;
    use crate::vm::{LinkOptions, Program};

    fn run(fg: &FunctionGraph, inputs: Vec<Value>) -> Vec<Value> {
        let prog = Program::link(fg, Default::default(), &LinkOptions::default()).unwrap();
        prog.run(inputs).unwrap()
    }

    #[test]
    fn round_trip_keeps_value_and_dtype() {
        let mut g = Graph::new();
        let x = g.input(TensorType::scalar(Int16), Some("x"));
        let s = g.apply_out(Arc::new(ScalarFromTensor), &[x]).unwrap();
        assert_eq!(g.var(s).ty, Type::Scalar(Int16));
        let t = g.apply_out(Arc::new(TensorFromScalar), &[s]).unwrap();
        assert_eq!(g.var(t).ty, Type::from(TensorType::scalar(Int16)));
        let fg = FunctionGraph::new(g, vec![x], vec![s, t]).unwrap();
        let out = run(&fg, vec![Tensor::scalar(-7i16).into()]);
        for v in &out {
            assert!(v.tensor().unwrap().same_values(&Tensor::scalar(-7i16)));
        }
    }

    #[test]
    fn wrong_inputs_are_type_errors() {
        let mut g = Graph::new();
        let v = g.input(TensorType::new(Float64, [None]).unwrap(), Some("v"));
        let err = g.apply_out(Arc::new(ScalarFromTensor), &[v]).unwrap_err();
        assert!(matches!(err.root(), Error::Type(_)), "{err}");
        assert!(err.to_string().contains("takes a 0-d tensor"), "{err}");
        let err = g.apply_out(Arc::new(TensorFromScalar), &[v]).unwrap_err();
        assert!(err.to_string().contains("takes a scalar"), "{err}");
    }

    #[test]
    fn gradients_cross_back() {
        let mut g = Graph::new();
        let s = g.input(Type::Scalar(Float64), Some("s"));
        let t = g.apply_out(Arc::new(TensorFromScalar), &[s]).unwrap();
        let gz = g.input(TensorType::scalar(Float64), Some("gz"));
        let node = g.var(t).owner().unwrap();
        let gs = TensorFromScalar.pullback(&mut g, node, &[gz]).unwrap()[0];
        assert_eq!(g.var(gs).ty, Type::Scalar(Float64));
        let i = g.input(Type::Scalar(Int8), Some("i"));
        let ti = g.apply_out(Arc::new(TensorFromScalar), &[i]).unwrap();
        let node = g.var(ti).owner().unwrap();
        let gi = TensorFromScalar.pullback(&mut g, node, &[gz]).unwrap()[0];
        assert_eq!(g.var(gi).ty, Type::Scalar(floatx()));
        assert!(g.var(gi).constant().is_some());
        let x = g.input(TensorType::scalar(Float32), Some("x"));
        let sx = g.apply_out(Arc::new(ScalarFromTensor), &[x]).unwrap();
        let node = g.var(sx).owner().unwrap();
        let gsx = g.input(Type::Scalar(Float32), Some("gsx"));
        let gx = ScalarFromTensor.pullback(&mut g, node, &[gsx]).unwrap()[0];
        assert_eq!(g.var(gx).ty, Type::from(TensorType::scalar(Float32)));
    }
}
