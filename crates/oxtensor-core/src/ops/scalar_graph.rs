//! Scalar ops as graph ops on scalar variables, as PyTensor's `ScalarOp`
//! is an `Op`: `add(x, y)` of two `float64` scalars is a node whose output
//! is a `float64` scalar, so scalar graphs (a `Composite`'s inside) can be
//! built, printed and run. At run time a scalar is a 0-d tensor, and
//! `perform` is the elementwise kernel's on it.

use super::{Op, PerformCtx};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::fused::interpret;
use crate::op_identity;
use crate::ops::Outs;
use crate::scalar::ScalarOp;
use crate::tensor::Tensor;
use crate::types::Type;
use crate::value::Value;
use smallvec::SmallVec;

impl Op for ScalarOp {
    fn name(&self) -> &str {
        self.class_name()
    }

    fn class_path(&self) -> SmallVec<[&str; 2]> {
        smallvec::smallvec![self.class_name(), "ScalarOp"]
    }

    /// The scalar op's `str` (`add`, `Cast{int8}`, `Composite{...}`).
    fn describe(&self) -> String {
        self.to_string()
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let dtypes = scalar_dtypes(self, inputs)?;
        Ok(self
            .output_dtypes(&dtypes)?
            .into_iter()
            .map(Type::Scalar)
            .collect())
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let tensors = inputs
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<SmallVec<[&Tensor; 4]>>>()?;
        let dtypes: SmallVec<[DType; 4]> = tensors.iter().map(|t| t.dtype()).collect();
        let out_dtypes = self.output_dtypes(&dtypes)?;
        let values = interpret::evaluate(self, &tensors, ctx.input_bcast, &out_dtypes, ctx.pool)?;
        for (slot, v) in outputs.iter_mut().zip(values) {
            *slot = Some(v.into());
        }
        Ok(())
    }

    /// The `Elemwise` rule on the inputs' 0-d tensor forms.
    fn pullback(
        &self,
        g: &mut crate::graph::Graph,
        node: crate::graph::NodeId,
        output_grads: &[crate::graph::VarId],
    ) -> Result<Vec<crate::graph::VarId>> {
        super::scalar_graph_grad::scalar_op_pullback(self, g, node, output_grads)
    }

    fn inner_fgraph(&self) -> Option<Result<crate::graph::FunctionGraph>> {
        match self {
            ScalarOp::Composite(c) => Some(c.fgraph()),
            ScalarOp::Loop(l) => Some(l.fgraph()),
            _ => None,
        }
    }

    op_identity!();
}

/// The dtypes of scalar inputs; anything else is a `TypeError`.
fn scalar_dtypes(op: &ScalarOp, inputs: &[&Type]) -> Result<SmallVec<[DType; 4]>> {
    inputs
        .iter()
        .map(|t| {
            t.as_scalar().ok_or_else(|| {
                Error::Type(format!(
                    "{op} takes scalar inputs (ScalarType), got a variable of type {t}"
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::dtype::DType::*;
    use crate::graph::testing::scalar_graph_with;
    use crate::graph::{FunctionGraph, Graph};
    use crate::print::{debugprint, PrintOptions};
    use crate::scalar::{ScalarKind as K, ScalarOp};
    use crate::tensor::Tensor;
    use crate::types::{TensorType, Type};
    use crate::value::Value;
    use crate::vm::{LinkOptions, Program};
    use std::sync::Arc;

    #[test]
    fn scalar_graphs_build_print_and_run() {
        let (mut g, [x, y]) = scalar_graph_with([("x", Float64), ("y", Int8)]);
        let add = Arc::new(ScalarOp::Kind(K::Add));
        let s = g.apply_out(add, &[x, y]).unwrap();
        assert_eq!(g.var(s).ty, Type::Scalar(Float64));
        let e = g.apply_out(Arc::new(ScalarOp::Kind(K::Exp)), &[s]).unwrap();
        let fg = FunctionGraph::new(g, vec![x, y], vec![e]).unwrap();
        let opts = PrintOptions {
            print_type: true,
            ..Default::default()
        };
        assert_eq!(
            debugprint(&fg, &opts),
            "exp [id A] <float64> 1\n └─ add [id B] <float64> 0\n    ├─ x [id C] <float64>\n    └─ y [id D] <int8>\n"
        );
        let prog = Program::link(&fg, Default::default(), &LinkOptions::default()).unwrap();
        let out = prog
            .run(vec![
                Value::from(Tensor::scalar(0.5f64)),
                Tensor::scalar(-1i8).into(),
            ])
            .unwrap();
        assert!(out[0]
            .tensor()
            .unwrap()
            .same_values(&Tensor::scalar((-0.5f64).exp())));
    }

    #[test]
    fn tensor_inputs_are_refused() {
        let mut g = Graph::new();
        let x = g.input(TensorType::scalar(Float64), Some("x"));
        let err = g
            .apply_out(Arc::new(ScalarOp::Kind(K::Exp)), &[x])
            .unwrap_err();
        assert!(err.to_string().contains("exp takes scalar inputs"), "{err}");
    }
}
