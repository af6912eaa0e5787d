//! Dense linear algebra ops (`pytensor/tensor/linalg`): `MatrixInverse`,
//! `Det`, `SLogDet`, `Solve`, `SolveTriangular`, `LUFactor` (with
//! `PivotToPermutations`), `Cholesky`, `Eigh`, `Eigvalsh`, `SVD`, `QR`
//! and the gradient ops of some of them. Each takes single matrices
//! (PyTensor wraps them in `Blockwise` for stacks; here stacks are out of
//! scope) and computes in float32 or float64 through `faer` or the host's
//! LAPACK ([`crate::kernels::linalg`], routed by
//! [`crate::kernels::linalg::engine`]). This module holds the shared
//! type rules.

pub mod cholesky;
pub mod det;
pub mod eigh;
pub mod expm;
pub mod inverse;
pub mod lu;
pub mod qr;
pub mod solve;
pub mod solve_triangular;
pub mod svd;

use crate::dtype::{upcast, DType};
use crate::error::{Error, Result};
use crate::types::{TensorType, Type};

/// The dtype `op` computes in: integers and float16 upcast with float32
/// (int8 → float32, int64 → float64), as PyTensor's linalg ops do.
pub fn float_dtype(op: &str, ty: &TensorType) -> Result<DType> {
    if ty.dtype.is_complex() {
        return Err(Error::Type(format!(
            "{op} does not support complex inputs yet, got {ty}"
        )));
    }
    upcast(&[ty.dtype, DType::Float32])
}

/// Checks that `ty` (input `i` of `op`) is a matrix, square when `square`.
pub fn check_matrix(op: &str, i: usize, ty: &TensorType, square: bool) -> Result<()> {
    match ty.ndim() {
        2 => {}
        n if n > 2 => {
            return Err(Error::OutOfScope(format!(
                "{op} on stacked (batched) matrices is not supported: input {i} is a {ty}"
            )))
        }
        _ => {
            return Err(Error::Value(format!(
                "{op} takes a matrix, but input {i} is a {ty}"
            )))
        }
    }
    if let (true, Some(r), Some(c)) = (square, ty.shape[0], ty.shape[1]) {
        if r != c {
            return Err(Error::Value(format!(
                "{op} takes a square matrix, but input {i} has shape {}",
                ty.repr_shape()
            )));
        }
    }
    Ok(())
}

/// The tensor inputs of `op`, checked to be exactly `n`.
pub fn tensor_inputs<'a>(op: &str, inputs: &[&'a Type], n: usize) -> Result<Vec<&'a TensorType>> {
    if inputs.len() != n {
        return Err(Error::Type(format!(
            "{op} takes {n} input(s), got {}",
            inputs.len()
        )));
    }
    inputs
        .iter()
        .enumerate()
        .map(|(i, t)| t.expect_tensor(&format!("Input {i} of {op}")))
        .collect()
}

/// The type of a square matrix input's float version.
pub fn square_float(op: &str, inputs: &[&Type]) -> Result<TensorType> {
    let x = tensor_inputs(op, inputs, 1)?[0];
    check_matrix(op, 0, x, true)?;
    let n = x.shape[0].or(x.shape[1]);
    TensorType::new(float_dtype(op, x)?, [n, n])
}

/// The output type of a gradient op: input `like`'s type (a square
/// matrix) in the dtype the inputs `from` upcast to.
pub fn grad_type(
    op: &str,
    inputs: &[&Type],
    n: usize,
    like: usize,
    from: &[usize],
) -> Result<Type> {
    let t = tensor_inputs(op, inputs, n)?;
    let dtypes: Vec<DType> = from.iter().map(|&i| t[i].dtype).collect();
    Ok(square_float(op, &[inputs[like]])?
        .with_dtype(upcast(&dtypes)?)
        .into())
}

/// Writes the methods of an op from one square matrix to one of its
/// shape (`(m,m)->(m,m)`): its float type, and `perform` as `$kernel`,
/// which sees the input tensor and the output dtype under the names given
/// (`self` too, passed in for the kernel's props).
macro_rules! square_to_square {
    ($name:literal, $self:ident, $x:ident, $dtype:ident => $kernel:expr) => {
        fn gufunc_signature(&self) -> Option<&'static str> {
            Some("(m,m)->(m,m)")
        }

        fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
            Ok(vec![super::square_float($name, inputs)?.into()])
        }

        $crate::ops::perform_one!($self, ctx, inputs => {
            let ($x, $dtype) = (inputs[0].tensor()?, ctx.output_dtype(0)?);
            $kernel
        });

        $crate::ops::shape_rules::shape_of_input!(0);
    };
}
pub(crate) use square_to_square;

/// A float matrix input (of any shape) and the dtype `op` computes it in.
pub fn float_matrix<'a>(op: &str, inputs: &[&'a Type]) -> Result<(&'a TensorType, DType)> {
    let x = tensor_inputs(op, inputs, 1)?[0];
    check_matrix(op, 0, x, false)?;
    Ok((x, float_dtype(op, x)?))
}

/// A decomposition's factors, one per output, in order.
pub(crate) fn set_outputs(
    outputs: &mut [Option<crate::value::Value>],
    factors: impl IntoIterator<Item = crate::tensor::Tensor>,
) {
    for (slot, t) in outputs.iter_mut().zip(factors) {
        *slot = Some(t.into());
    }
}

/// A gradient term `gx` cast to the dtype of the input `x` it is for.
pub(crate) fn in_dtype_of(
    g: &mut crate::graph::Graph,
    gx: crate::graph::VarId,
    x: crate::graph::VarId,
) -> Result<crate::graph::VarId> {
    let dtype = crate::ops::scalar_grad::tensor(g, x)?.dtype;
    crate::ops::scalar_grad::match_dtype(g, gx, dtype)
}

/// The output gradients of a decomposition, zeros in place of those the
/// cost does not depend on: its gradient op reads them all.
pub(crate) fn zeros_if_disconnected(
    g: &mut crate::graph::Graph,
    outs: &[crate::graph::VarId],
    output_grads: &[crate::graph::VarId],
) -> Result<Vec<crate::graph::VarId>> {
    let mut grads = Vec::with_capacity(outs.len());
    for (&out, &gz) in outs.iter().zip(output_grads) {
        grads.push(if matches!(g.var(gz).ty, Type::Disconnected) {
            let dtype = crate::ops::scalar_grad::tensor(g, out)?.dtype;
            crate::build::zeros_like(g, out, dtype)?
        } else {
            gz
        });
    }
    Ok(grads)
}
