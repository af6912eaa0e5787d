//! `PermuteRowElements` (`pytensor/tensor/basic.py`): the elements of each
//! row (last axis) of `x` reordered by the integer rows of `y`, the leading
//! axes of both broadcast against each other: `out[..., i] = x[..., y[..., i]]`,
//! or with `inverse` set, `out[..., y[..., i]] = x[..., i]`. Its gradient is
//! the inverse permutation of the output's gradient.

use crate::build;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::copy::copy_contiguous;
use crate::kernels::iter::{broadcast_shapes, broadcast_strides};
use crate::op_identity;
use crate::ops::known;
use crate::ops::scalar_grad::{disconnected, tensor};
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;
use std::sync::Arc;

/// `PermuteRowElements`: inputs are `x`, the integer permutations `y`
/// (same last length) and `inverse`, an integer scalar (nonzero: invert).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PermuteRowElements;

/// The static broadcast of two leading shapes (right-aligned): a length 1
/// (or a missing axis) takes the other's length.
fn broadcast_static(a: &[Option<u64>], b: &[Option<u64>]) -> Vec<Option<u64>> {
    let n = a.len().max(b.len());
    let at = |s: &[Option<u64>], i: usize| {
        let pad = n - s.len();
        if i < pad {
            Some(1)
        } else {
            s[i - pad]
        }
    };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (Some(1), other) | (other, Some(1)) => other,
            (Some(x), _) | (_, Some(x)) => Some(x),
            (None, None) => None,
        })
        .collect()
}

/// `t` broadcast to `shape` and copied to C order.
fn broadcast_copy(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let strides = broadcast_strides(t, shape);
    copy_contiguous(&t.view(shape, &strides, t.offset())?)
}

impl PermuteRowElements {
    /// The runtime shape both operands are broadcast to (leading axes
    /// broadcast, the rows' common length last).
    fn out_shape(x: &Tensor, y: &Tensor) -> Result<Vec<usize>> {
        let (xn, yn) = (x.shape().last(), y.shape().last());
        if xn != yn {
            return Err(Error::Value(format!(
                "PermuteRowElements: the rows of x ({:?}) and of the permutations y ({:?}) must have the same length",
                x.shape(),
                y.shape()
            )));
        }
        let lead = broadcast_shapes(&[&x.shape()[..x.ndim() - 1], &y.shape()[..y.ndim() - 1]])?;
        let mut shape = lead.to_vec();
        shape.push(xn.copied().unwrap_or(0));
        Ok(shape)
    }
}

impl Op for PermuteRowElements {
    op_identity!("PermuteRowElements");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let names = ["input x", "permutations y", "inverse flag"];
        let [x, y, inverse] = super::arity::tensors("PermuteRowElements", inputs, names)?;
        if x.ndim() == 0 || y.ndim() == 0 || !y.dtype.is_integer() {
            return Err(Error::Type(format!(
                "PermuteRowElements: x must have at least 1 dimension and y must be integers with at least 1, got x {x} and y {y}"
            )));
        }
        if inverse.ndim() != 0 || !(inverse.dtype.is_integer() || inverse.dtype == DType::Bool) {
            return Err(Error::Type(format!(
                "PermuteRowElements: inverse must be an integer scalar, got {inverse}"
            )));
        }
        let (xs, ys) = (&x.shape[..x.ndim() - 1], &y.shape[..y.ndim() - 1]);
        let mut shape = broadcast_static(xs, ys);
        let n = x.shape[x.ndim() - 1].or(y.shape[y.ndim() - 1]);
        shape.push(n);
        Ok(vec![TensorType::new(x.dtype, shape)?.into()])
    }

    /// `y` and `inverse` only choose positions.
    fn connection_pattern(&self, n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(Some((0..n_inputs).map(|i| vec![i == 0]).collect()))
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (x, y) = (inputs[0].tensor()?, inputs[1].tensor()?);
        let inverse = known::int_scalar(inputs[2].tensor()?, "PermuteRowElements' inverse")? != 0;
        let shape = Self::out_shape(x, y)?;
        let xb = broadcast_copy(x, &shape)?.to_c_bytes()?;
        let yb = broadcast_copy(y, &shape)?;
        let n = shape.last().copied().unwrap_or(0);
        let size = x.dtype().itemsize();
        let mut out = vec![0u8; xb.len()];
        for (row, (src, dst)) in xb
            .chunks_exact((n * size).max(1))
            .zip(out.chunks_exact_mut((n * size).max(1)))
            .enumerate()
        {
            for i in 0..n {
                let p = known::int_at(&yb, row * n + i, "A permutation entry")?;
                let p = usize::try_from(p).ok().filter(|&p| p < n).ok_or_else(|| {
                    Error::Index(format!(
                        "PermuteRowElements: permutation entry {p} is out of bounds for rows of length {n}"
                    ))
                })?;
                let (from, to) = if inverse { (i, p) } else { (p, i) };
                dst[to * size..(to + 1) * size]
                    .copy_from_slice(&src[from * size..(from + 1) * size]);
            }
        }
        outputs[0] = Some(Tensor::from_bytes(x.dtype(), shape, out)?.into());
        Ok(())
    }

    /// Leading axes: `y`'s where `x` has a length-1 (or no) axis, else
    /// `x`'s; the rows keep `x`'s length.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let inputs = g.node(node).inputs.clone();
        let (xt, yt) = (tensor(g, inputs[0])?, tensor(g, inputs[1])?);
        let (xd, yd) = (&input_shapes[0], &input_shapes[1]);
        let n = xd.len().max(yd.len());
        let (xpad, ypad) = (n - xd.len(), n - yd.len());
        let mut out = Vec::with_capacity(n);
        for i in 0..n - 1 {
            // n is the larger rank, so at least one operand has axis i.
            let x_one = i < xpad || xt.shape[i - xpad] == Some(1);
            let y_has = i >= ypad && yt.shape[i - ypad] != Some(1);
            out.push(if x_one && y_has {
                yd[i - ypad]
            } else if i >= xpad {
                xd[i - xpad]
            } else {
                yd[i - ypad]
            });
        }
        out.push(xd[xd.len() - 1]);
        Ok(Some(vec![out]))
    }

    /// `x`'s gradient is the output's gradient permuted back (`inverse`
    /// flipped), summed over the axes along which `x` was broadcast.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        let x_ty = tensor(g, inputs[0])?;
        let one = build::scalar_constant(g, tensor(g, inputs[2])?.dtype, 1.0);
        let flipped = build::sub(g, one, inputs[2])?;
        let back = g.apply_out(
            Arc::new(PermuteRowElements),
            &[output_grads[0], inputs[1], flipped],
        )?;
        let pad = tensor(g, back)?.ndim() - x_ty.ndim();
        let lead: Vec<i64> = (0..pad as i64).collect();
        let trimmed = if lead.is_empty() {
            back
        } else {
            build::sum(g, back, Some(&lead))?
        };
        let gx = build::sum_to(g, trimmed, &x_ty)?;
        let gx = build::cast(g, gx, x_ty.dtype)?;
        Ok(vec![gx, disconnected(g), disconnected(g)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(inputs: &[&Value]) -> Result<Tensor> {
        crate::ops::test_support::perform_first(&PermuteRowElements, inputs)
    }

    fn floats(t: &Tensor) -> Vec<f64> {
        t.as_slice::<f64>().unwrap().to_vec()
    }

    #[test]
    fn permutes_and_inverts_rows_with_broadcasting() {
        let x: Value = Tensor::from_vec(vec![3], vec![10.0f64, 20.0, 30.0])
            .unwrap()
            .into();
        let y: Value = Tensor::from_vec(vec![2, 3], vec![2i32, 0, 1, 1, 2, 0])
            .unwrap()
            .into();
        let (fwd, inv): (Value, Value) = (Tensor::scalar(0i8).into(), Tensor::scalar(1i8).into());
        let got = run(&[&x, &y, &fwd]).unwrap();
        assert_eq!(got.shape(), &[2, 3]);
        assert_eq!(floats(&got), vec![30.0, 10.0, 20.0, 20.0, 30.0, 10.0]);
        let got = run(&[&x, &y, &inv]).unwrap();
        // out[y[i]] = x[i]: row [2, 0, 1] puts 10 at 2, 20 at 0, 30 at 1.
        assert_eq!(floats(&got), vec![20.0, 30.0, 10.0, 30.0, 10.0, 20.0]);
    }

    #[test]
    fn refuses_bad_permutations_and_types() {
        let x: Value = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap().into();
        let y: Value = Tensor::from_vec(vec![2], vec![0i64, 2]).unwrap().into();
        let fwd: Value = Tensor::scalar(0i8).into();
        let err = run(&[&x, &y, &fwd]).unwrap_err();
        assert!(err.to_string().contains("out of bounds"), "{err}");
        let short: Value = Tensor::from_vec(vec![1], vec![0i64]).unwrap().into();
        assert!(run(&[&x, &short, &fwd]).is_err());
        let f: Type = TensorType::new(DType::Float64, [None]).unwrap().into();
        let i: Type = TensorType::new(DType::Int8, []).unwrap().into();
        assert!(PermuteRowElements.output_types(&[&f, &f, &i]).is_err());
        let m: Type = TensorType::new(DType::Int32, [Some(4), Some(1), None])
            .unwrap()
            .into();
        let x2: Type = TensorType::new(DType::Float32, [Some(1), Some(3), Some(5)])
            .unwrap()
            .into();
        let ty = PermuteRowElements.output_types(&[&x2, &m, &i]).unwrap();
        assert_eq!(
            ty[0].as_tensor().unwrap().shape.to_vec(),
            vec![Some(4), Some(3), Some(5)]
        );
    }
}
