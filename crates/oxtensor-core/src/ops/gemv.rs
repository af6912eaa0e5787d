//! `Gemv`: `beta * y + alpha * dot(A, x)`, BLAS's matrix-vector update,
//! as one op. Mirrors `pytensor/tensor/blas.py`'s `Gemv` (inputs `y`,
//! `alpha`, `A`, `x`, `beta`). PyTensor's rewrites bring it in for
//! `dot` nodes; oxtensor's `dot` runs the same kernel, so it is here for
//! graphs that name it.

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId};
use crate::kernels::elemwise::cast::cast;
use crate::kernels::elemwise::elemwise;
use crate::kernels::linalg::dot;
use crate::op_identity;
use crate::ops::{Dims, InferredShapes, IoMap, Op, Outs, PerformCtx};
use crate::scalar::{ScalarKind, ScalarOp};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `Gemv(inplace)`; `inplace` declares `y` destroyed (the output may take
/// its memory), as PyTensor's inplace `Gemv` does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gemv {
    /// Whether the op may overwrite `y`.
    pub inplace: bool,
}

impl Gemv {
    fn check_types(&self, inputs: &[&TensorType]) -> Result<TensorType> {
        let [y, alpha, a, x, beta] = inputs else {
            return Err(Error::Type(format!(
                "Gemv takes 5 inputs (y, alpha, A, x, beta), got {}",
                inputs.len()
            )));
        };
        let ranks = [(y, 1, "y"), (alpha, 0, "alpha"), (a, 2, "A"), (x, 1, "x")];
        for (t, ndim, name) in ranks.into_iter().chain([(beta, 0, "beta")]) {
            if t.ndim() != ndim {
                return Err(Error::Type(format!(
                    "Gemv's {name} must have {ndim} dimensions, got {t}"
                )));
            }
        }
        if [alpha, a, x, beta].iter().any(|t| t.dtype != y.dtype) || !y.dtype.is_continuous() {
            return Err(Error::Type(format!(
                "Gemv takes inputs of one float or complex dtype, got {y}, {alpha}, {a}, {x}, {beta}"
            )));
        }
        for (len, want, what) in [
            (a.shape[0], y.shape[0], "rows"),
            (a.shape[1], x.shape[0], "columns"),
        ] {
            if let (Some(n), Some(m)) = (len, want) {
                if n != m {
                    return Err(Error::Value(format!(
                        "Gemv: A has {n} {what} but the vector has length {m}"
                    )));
                }
            }
        }
        TensorType::new(y.dtype, [y.shape[0].or(a.shape[0])])
    }
}

impl Op for Gemv {
    op_identity!("Gemv");

    fn describe(&self) -> String {
        format!(
            "Gemv{{{}}}",
            if self.inplace {
                "inplace"
            } else {
                "no_inplace"
            }
        )
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let tensors = inputs
            .iter()
            .map(|t| t.expect_tensor("An input of Gemv"))
            .collect::<Result<Vec<_>>>()?;
        Ok(vec![self.check_types(&tensors)?.into()])
    }

    fn destroy_map(&self) -> IoMap {
        match self.inplace {
            true => vec![(0, vec![0])],
            false => Vec::new(),
        }
    }

    /// `beta == 0` ignores `y` (its NaNs too), as BLAS does.
    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let t = |i: usize| inputs[i].tensor();
        let (y, alpha, a, x, beta) = (t(0)?, t(1)?, t(2)?, t(3)?, t(4)?);
        if a.shape() != [y.shape()[0], x.shape()[0]] {
            return Err(Error::Value(format!(
                "Gemv: incompatible shapes: y {:?}, A {:?}, x {:?}",
                y.shape(),
                a.shape(),
                x.shape()
            )));
        }
        let dtype = y.dtype();
        let ax = dot(a, x, dtype, Some(&mut *ctx.pool))?;
        // The kernel broadcasts operands of one rank: the scalars as length 1.
        let as_vector = |s: &Tensor| s.view(&[1], &[0], s.offset());
        let (alpha, beta) = (as_vector(alpha)?, as_vector(beta)?);
        let flags = [vec![true], vec![false]];
        let mul = ScalarOp::Kind(ScalarKind::Mul);
        let scaled = elemwise(&mul, &[&alpha, &ax], &flags, dtype, Some(&mut *ctx.pool))?;
        let beta_is_zero = cast(&beta, crate::dtype::DType::Float64)?
            .as_slice::<f64>()
            .is_some_and(|b| b.first() == Some(&0.0));
        let out = if beta_is_zero {
            scaled
        } else {
            let by = elemwise(&mul, &[&beta, y], &flags, dtype, Some(&mut *ctx.pool))?;
            let add = ScalarOp::Kind(ScalarKind::Add);
            let both = [vec![false], vec![false]];
            elemwise(&add, &[&by, &scaled], &both, dtype, Some(&mut *ctx.pool))?
        };
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// `y`'s length.
    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        Ok(Some(vec![input_shapes[0].clone()]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn gemv_types() {
        let v = |n| TensorType::new(DType::Float64, [n]).unwrap();
        let s = TensorType::new(DType::Float64, []).unwrap();
        let m = TensorType::new(DType::Float64, [Some(3), None]).unwrap();
        let op = Gemv { inplace: false };
        let out = op
            .check_types(&[&v(None), &s, &m, &v(Some(4)), &s])
            .unwrap();
        assert_eq!(out.shape.as_slice(), &[Some(3)]);
        assert!(op
            .check_types(&[&v(Some(2)), &s, &m, &v(None), &s])
            .is_err());
        assert!(op
            .check_types(&[&v(None), &s, &v(None), &v(None), &s])
            .is_err());
        let f = TensorType::new(DType::Float32, []).unwrap();
        assert!(op.check_types(&[&v(None), &f, &m, &v(None), &s]).is_err());
        assert_eq!(Gemv { inplace: true }.describe(), "Gemv{inplace}");
    }
}
