//! `UnravelIndex{order}` and `RavelMultiIndex{mode, order}`: flat
//! positions to one coordinate array per axis and back (NumPy's
//! `unravel_index` and `ravel_multi_index`). Mirrors the ops of
//! `pytensor/tensor/extra_ops.py`.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId};
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast::cast;
pub use crate::kernels::index::OutOfRange;
use crate::kernels::index::{ravel, unravel};
use crate::kernels::iter::{broadcast_shapes, broadcast_strides};
use crate::op_identity;
use crate::ops::infer_shape::dim_constant;
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// `t`'s values as int64, in C order.
fn int64s(t: &Tensor) -> Result<Vec<i64>> {
    let c = to_contiguous(&cast(t, DType::Int64)?)?;
    Ok(c.as_slice::<i64>().expect("contiguous int64").to_vec())
}

/// The dims input's checks: an integer vector; its static length, which
/// is the number of coordinate arrays.
fn dims_length(dims: &Type, op: &str) -> Result<Option<u64>> {
    let d = dims.expect_tensor(&format!("The dims of {op}"))?;
    if !d.dtype.is_integer() {
        return Err(Error::Type(format!("{op}: dims must be integers, got {d}")));
    }
    if d.ndim() != 1 {
        return Err(Error::Type(format!(
            "{op}: dims must be a 1-d sequence, got {d}"
        )));
    }
    Ok(d.shape[0])
}

/// `order='F'` (else `'C'`), for messages and props.
fn order_name(fortran: bool) -> &'static str {
    if fortran {
        "F"
    } else {
        "C"
    }
}

/// `UnravelIndex{order}`: inputs are integer indices and the integer
/// vector of dims (of statically known length `n`); the outputs are `n`
/// int64 tensors of the indices' shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UnravelIndex {
    /// Fortran (column-major) order, else C order.
    pub fortran: bool,
}

impl Op for UnravelIndex {
    op_identity!("UnravelIndex", self => "order={}", order_name(self.fortran));

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [indices, dims] = super::arity::exactly("UnravelIndex", inputs)?;
        let idx = indices.expect_tensor("The indices of unravel_index")?;
        if !idx.dtype.is_integer() {
            return Err(Error::Type(format!(
                "unravel_index: indices must be integers, got {idx}"
            )));
        }
        let n = dims_length(dims, "unravel_index")?.ok_or_else(|| {
            Error::Value(
                "unravel_index: the length of dims must be known statically (a constant, a tuple, or a variable of static shape)".into(),
            )
        })?;
        let out = Type::from(TensorType::new(DType::Int64, idx.shape.clone())?);
        Ok(vec![out; n as usize])
    }

    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(None)
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let indices = inputs[0].tensor()?;
        let dims = int64s(inputs[1].tensor()?)?;
        if dims.len() != outputs.len() {
            return Err(Error::Value(format!(
                "unravel_index: dims has {} entries, the node {} outputs",
                dims.len(),
                outputs.len()
            )));
        }
        let coords = unravel(&int64s(indices)?, &dims, self.fortran)?;
        for (slot, c) in outputs.iter_mut().zip(coords) {
            *slot = Some(Tensor::from_vec(indices.shape().to_vec(), c)?.into());
        }
        Ok(())
    }

    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let n = g.node(node).outputs.len();
        Ok(Some(vec![input_shapes[0].clone(); n]))
    }

    // Integer outputs: no gradient flows.
    super::constant_grads::disconnected_pullback!();
}

/// `RavelMultiIndex{mode, order}`: inputs are `n` integer coordinate
/// arrays and the integer vector of `n` dims; the output is the int64 flat
/// positions, in the coordinates' broadcast shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RavelMultiIndex {
    /// What to do with coordinates outside their axis.
    pub mode: OutOfRange,
    /// Fortran (column-major) order, else C order.
    pub fortran: bool,
}

impl RavelMultiIndex {
    /// PyTensor's `mode` prop.
    pub fn mode_name(&self) -> &'static str {
        match self.mode {
            OutOfRange::Raise => "raise",
            OutOfRange::Wrap => "wrap",
            OutOfRange::Clip => "clip",
        }
    }
}

/// The static broadcast shape of `types` (a length known when some
/// input's is, 1 when all are 1).
fn static_broadcast(types: &[&TensorType]) -> Vec<Option<u64>> {
    let ndim = types.iter().map(|t| t.ndim()).max().unwrap_or(0);
    (0..ndim)
        .map(|d| {
            let lens = types.iter().filter_map(|t| {
                let pad = ndim - t.ndim();
                d.checked_sub(pad).map(|i| t.shape[i])
            });
            let mut out = Some(1);
            for len in lens {
                match len {
                    Some(1) => {}
                    Some(n) => return Some(n),
                    None => out = None,
                }
            }
            out
        })
        .collect()
}

impl Op for RavelMultiIndex {
    op_identity!(
        "RavelMultiIndex",
        self => "mode={}, order={}",
        self.mode_name(),
        order_name(self.fortran)
    );

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let Some((dims, coords)) = inputs.split_last().filter(|(_, c)| !c.is_empty()) else {
            return Err(Error::Type(
                "RavelMultiIndex takes at least one coordinate array and the dims".into(),
            ));
        };
        let coords = coords
            .iter()
            .map(|c| {
                let c = c.expect_tensor("A coordinate array of ravel_multi_index")?;
                if c.dtype.is_integer() {
                    Ok(c)
                } else {
                    Err(Error::Type(format!(
                        "ravel_multi_index: coordinates must be integers, got {c}"
                    )))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        if let Some(n) = dims_length(dims, "ravel_multi_index")? {
            if n as usize != coords.len() {
                return Err(Error::Value(format!(
                    "ravel_multi_index: {} coordinate arrays for {n} dims",
                    coords.len()
                )));
            }
        }
        Ok(vec![TensorType::new(
            DType::Int64,
            static_broadcast(&coords),
        )?
        .into()])
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (dims, coords) = inputs.split_last().expect("checked by output_types");
        let coords = coords
            .iter()
            .map(|c| c.tensor())
            .collect::<Result<Vec<_>>>()?;
        let shapes: Vec<&[usize]> = coords.iter().map(|c| c.shape()).collect();
        let shape = broadcast_shapes(&shapes)?;
        let lists = coords
            .iter()
            .map(|c| {
                let spread = c.view(&shape, &broadcast_strides(c, &shape), c.offset())?;
                int64s(&spread)
            })
            .collect::<Result<Vec<_>>>()?;
        let flat = ravel(&lists, &int64s(dims.tensor()?)?, self.mode, self.fortran)?;
        outputs[0] = Some(Tensor::from_vec(shape.to_vec(), flat)?.into());
        Ok(())
    }

    /// Each axis' length from a coordinate array not statically 1 there
    /// (the broadcast's length), else 1.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let inputs = g.node(node).inputs.clone();
        let n = inputs.len() - 1;
        let out_ty = crate::ops::scalar_grad::tensor(g, g.node(node).outputs[0])?;
        let ndim = out_ty.ndim();
        let mut shape = Vec::with_capacity(ndim);
        for d in 0..ndim {
            let mut pick = None;
            for (k, &c) in inputs[..n].iter().enumerate() {
                let ty = crate::ops::scalar_grad::tensor(g, c)?;
                let Some(i) = d.checked_sub(ndim - ty.ndim()) else {
                    continue;
                };
                if ty.shape[i] != Some(1) {
                    pick = Some(input_shapes[k][i]);
                    break;
                }
            }
            shape.push(match pick {
                Some(v) => v,
                None => dim_constant(g, 1),
            });
        }
        Ok(Some(vec![shape]))
    }

    // Integer output: no gradient flows.
    super::constant_grads::disconnected_pullback!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(dtype: DType, shape: &[Option<u64>]) -> Type {
        TensorType::new(dtype, shape.to_vec()).unwrap().into()
    }

    #[test]
    fn unravel_types() {
        let op = UnravelIndex { fortran: false };
        let idx = ty(DType::Int32, &[None, Some(1)]);
        let dims = ty(DType::Int64, &[Some(3)]);
        let out = op.output_types(&[&idx, &dims]).unwrap();
        assert_eq!(out.len(), 3);
        let err = op
            .output_types(&[&idx, &ty(DType::Int64, &[None])])
            .unwrap_err();
        assert!(matches!(err, Error::Value(_)), "{err}");
        let err = op
            .output_types(&[&ty(DType::Float32, &[None]), &dims])
            .unwrap_err();
        assert!(matches!(err, Error::Type(_)), "{err}");
        let err = op
            .output_types(&[&idx, &ty(DType::Int64, &[])])
            .unwrap_err();
        assert!(matches!(err, Error::Type(_)), "{err}");
    }

    #[test]
    fn ravel_types_and_broadcast() {
        let op = RavelMultiIndex {
            mode: OutOfRange::Clip,
            fortran: true,
        };
        assert_eq!(op.describe(), "RavelMultiIndex{mode=clip, order=F}");
        let a = ty(DType::Int8, &[Some(1), Some(4)]);
        let b = ty(DType::Int64, &[None, Some(1)]);
        let dims = ty(DType::Int64, &[Some(2)]);
        let out = op.output_types(&[&a, &b, &dims]).unwrap();
        assert_eq!(
            out[0].as_tensor().unwrap().shape.to_vec(),
            vec![None, Some(4)]
        );
        assert!(op.output_types(&[&a, &dims]).is_err());
        assert!(op
            .output_types(&[&ty(DType::Float32, &[None]), &b, &dims])
            .is_err());
    }
}
