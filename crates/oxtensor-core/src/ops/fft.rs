//! The real FFT ops of `pytensor/tensor/fft.py`: `RFFTOp(a, s)` is
//! NumPy's `rfftn` over every axis of `a` but the first (a batch), complex
//! values as a last axis of two; `IRFFTOp(a, s)` is the inverse, without
//! NumPy's `1/prod(s)` (Python's `irfft` divides). `RFFTGrad` and
//! `IRFFTGrad` are their adjoints, the gradients: the other transform with
//! the frequencies a Hermitian spectrum counts twice halved (for `RFFTOp`)
//! or doubled (for `IRFFTOp`); each adjoint's own adjoint is the op again.
//! `s` (the transform lengths) gets no gradient.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::signal;
use crate::op_identity;
use crate::ops::Op;
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// The transform lengths from `s`'s values.
fn lengths(s: &Value) -> Result<Vec<usize>> {
    let t = s.tensor()?;
    if t.ndim() != 1 {
        return Err(Error::Value(format!(
            "The FFT lengths s must be a vector, got shape {:?}",
            t.shape()
        )));
    }
    (0..t.len())
        .map(|i| {
            let v = super::known::int_at(t, i, "An FFT length")?;
            usize::try_from(v).map_err(|_| Error::Value(format!("Invalid FFT length {v}")))
        })
        .collect()
}

/// The output type: `a`'s dtype (float64 for non-floats), `ndim` axes.
fn output_type(op: &str, inputs: &[&Type], min_ndim: usize, delta: isize) -> Result<Type> {
    let [a, s] = super::arity::exactly(op, inputs)?;
    let a = a.expect_tensor(&format!("The input of {op}"))?;
    let s = s.expect_tensor(&format!("The lengths s of {op}"))?;
    if a.ndim() < min_ndim {
        return Err(Error::Type(format!(
            "{op}: the input must have at least {min_ndim} dimensions (a batch axis first), got {a}"
        )));
    }
    if s.ndim() != 1 || !s.dtype.is_integer() {
        return Err(Error::Type(format!(
            "{op}: s must be an integer vector, got {s}"
        )));
    }
    let dtype = match a.dtype {
        DType::Float32 => DType::Float32,
        _ => DType::Float64,
    };
    let ndim = a.ndim().checked_add_signed(delta).unwrap_or(0);
    Ok(TensorType::new(dtype, vec![None; ndim])?.into())
}

/// `$name`: `$transform(a, s, weight)`, its adjoint `$adjoint`.
macro_rules! real_fft_op {
    ($name:ident, $label:literal, $min:expr, $delta:expr, $kernel:path, $weight:expr, $adjoint:ident) => {
        #[doc = concat!("`", $label, "(a, s)`: see the module docs.")]
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Op for $name {
            op_identity!($label);

            fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
                Ok(vec![output_type($label, inputs, $min, $delta)?])
            }

            super::perform_one!(self, ctx, inputs => {
                let s = lengths(inputs[1])?;
                $kernel(inputs[0].tensor()?, &s, $weight, ctx.output_dtype(0)?)
            });

            fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
                Ok(Some(vec![vec![true], vec![false]]))
            }

            fn pullback(
                &self,
                g: &mut Graph,
                node: NodeId,
                output_grads: &[VarId],
            ) -> Result<Vec<VarId>> {
                let inputs = g.node(node).inputs.clone();
                let ga = g.apply_out(Arc::new($adjoint), &[output_grads[0], inputs[1]])?;
                Ok(vec![
                    super::linalg::in_dtype_of(g, ga, inputs[0])?,
                    super::scalar_grad::disconnected(g),
                ])
            }
        }
    };
}

real_fft_op!(RFFTOp, "RFFTOp", 2, 1, signal::rfftn, 1.0, RFFTGrad);
real_fft_op!(RFFTGrad, "RFFTGrad", 3, -1, signal::irfftn, 0.5, RFFTOp);
real_fft_op!(IRFFTOp, "IRFFTOp", 3, -1, signal::irfftn, 1.0, IRFFTGrad);
real_fft_op!(IRFFTGrad, "IRFFTGrad", 2, 1, signal::rfftn, 2.0, IRFFTOp);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types() {
        let m = Type::from(TensorType::new(DType::Float32, [None, None]).unwrap());
        let v = Type::from(TensorType::new(DType::Float64, [None]).unwrap());
        let s = Type::from(TensorType::new(DType::Int64, [None]).unwrap());
        let out = RFFTOp.output_types(&[&m, &s]).unwrap();
        let t = out[0].as_tensor().unwrap();
        assert_eq!((t.dtype, t.ndim()), (DType::Float32, 3));
        assert!(RFFTOp.output_types(&[&v, &s]).is_err());
        assert!(IRFFTOp.output_types(&[&m, &s]).is_err());
        assert!(RFFTOp.output_types(&[&m, &m]).is_err());
    }
}
