//! Advanced indexing (NumPy's rules): `AdvancedSubtensor1` (one integer
//! vector on axis 0, `take`'s op) and `AdvancedSubtensor` (integer arrays
//! and boolean masks mixed with slices). Both copy. Mirrors the advanced
//! ops of `pytensor/tensor/subtensor.py`.

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId};
use crate::kernels::index::{gather, plan};
use crate::kernels::index::{leading_mask, mask_gather};
use crate::op_identity;
use crate::ops::index_list::{
    check_positions, check_scalar_index, n_index_inputs, repr_idx_list, static_slice_len,
};
use crate::ops::subtensor::{index_values, tensor_types};
use crate::ops::subtensor_grad as grad;
use crate::ops::subtensor_shape;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{Op, PerformCtx};
use crate::tensor::index::IdxEntry;
use crate::types::{StaticShape, TensorType, Type};
use crate::value::Value;

/// A static shape as Python writes the tuple: `(10,)`, `(3, None)`.
fn py_tuple(shape: &StaticShape) -> String {
    let dims = shape
        .iter()
        .map(|d| d.map_or("None".to_string(), |d| d.to_string()));
    crate::types::fmt_tuple(dims)
}

/// NumPy's broadcast of the index arrays' static shapes.
fn static_broadcast(shapes: &[StaticShape]) -> Result<Vec<Option<u64>>> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![Some(1); ndim];
    for s in shapes {
        let pad = ndim - s.len();
        for (d, &n) in s.iter().enumerate() {
            out[pad + d] = match (out[pad + d], n) {
                (Some(1), n) | (n, Some(1)) => n,
                (Some(a), Some(b)) if a != b => {
                    // PyTensor's message, the static shapes as Python tuples.
                    let list: Vec<String> = shapes.iter().map(py_tuple).collect();
                    return Err(Error::Index(format!(
                        "shape mismatch: indexing tensors could not be broadcast together with shapes [{}]",
                        list.join(", ")
                    )));
                }
                (Some(a), _) | (_, Some(a)) => Some(a),
                (None, None) => None,
            };
        }
    }
    Ok(out)
}

/// `x[idx_list]`'s type for an advanced index; `consts` holds the index
/// inputs' values where they are integer constants (slice bounds).
pub fn advanced_output_type(
    x: &TensorType,
    idx_list: &[IdxEntry],
    idx: &[&TensorType],
    consts: &[Option<i64>],
) -> Result<TensorType> {
    if idx.len() != n_index_inputs(idx_list) {
        return Err(Error::Type(format!(
            "AdvancedSubtensor{{idx_list={}}} needs {} index inputs, got {}",
            repr_idx_list(idx_list),
            n_index_inputs(idx_list),
            idx.len()
        )));
    }
    let (mut rest, mut arrays, mut entries) = (Vec::new(), Vec::new(), Vec::new());
    let mut axis = 0;
    for (k, &entry) in idx_list.iter().enumerate() {
        match entry {
            IdxEntry::Slice { start, stop, step } => {
                for p in [start, stop, step].into_iter().flatten() {
                    check_scalar_index(idx[p])?;
                }
                let first = arrays.is_empty();
                rest.push((
                    first,
                    static_slice_len(x.shape.get(axis).copied().flatten(), entry, consts),
                ));
                axis += 1;
            }
            IdxEntry::Index(p) => {
                let t = idx[p];
                if t.dtype == crate::dtype::DType::Bool {
                    if t.ndim() == 0 {
                        return Err(Error::OutOfScope("0-d boolean indices".into()));
                    }
                    // A constant mask selects as many as it has `true`s.
                    let selected = consts.get(p).copied().flatten();
                    arrays.push(StaticShape::from_elem(selected.map(|n| n as u64), 1));
                    axis += t.ndim();
                } else if t.dtype.is_integer() {
                    arrays.push(t.shape.clone());
                    axis += 1;
                } else {
                    return Err(Error::Type(format!(
                        "index must be integers or a boolean mask, got {t}"
                    )));
                }
                entries.push(k);
            }
        }
    }
    if axis > x.ndim() {
        return Err(Error::Index(format!(
            "too many indices for tensor: tensor is {}-dimensional, but {axis} were indexed",
            x.ndim()
        )));
    }
    let adjacent = entries.windows(2).all(|w| w[1] == w[0] + 1);
    let pre = if adjacent {
        rest.iter().filter(|(before, _)| *before).count()
    } else {
        0
    };
    let mut dims: Vec<Option<u64>> = rest.iter().map(|(_, n)| *n).collect();
    dims.extend_from_slice(&x.shape[axis..]);
    let b = static_broadcast(&arrays)?;
    let mut shape = dims[..pre].to_vec();
    shape.extend(b);
    shape.extend_from_slice(&dims[pre..]);
    TensorType::new(x.dtype, shape)
}

/// `AdvancedSubtensor1`: `x[ilist]` for one integer vector on axis 0.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AdvancedSubtensor1;

/// The type of `x[ilist]` (also checks the inputs as PyTensor does).
pub fn take_rows_type(x: &TensorType, ilist: &TensorType) -> Result<TensorType> {
    if !ilist.dtype.is_integer() {
        return Err(Error::Type(format!("index must be integers, got {ilist}")));
    }
    if ilist.ndim() != 1 {
        return Err(Error::Type(format!("index must be vector, got {ilist}")));
    }
    if x.ndim() == 0 {
        return Err(Error::Type("cannot index into a scalar".into()));
    }
    let shape = std::iter::once(ilist.shape[0]).chain(x.shape[1..].iter().copied());
    TensorType::new(x.dtype, shape)
}

impl Op for AdvancedSubtensor1 {
    op_identity!("AdvancedSubtensor1");

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, ilist] = tensor_types("AdvancedSubtensor1", inputs)?[..] else {
            return Err(Error::Type("AdvancedSubtensor1 takes x and ilist".into()));
        };
        Ok(vec![take_rows_type(x, ilist)?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let p = plan(x, &[IdxEntry::Index(0)], &[inputs[1].tensor()?])?;
        let mut out = ctx.pool.take(x.dtype(), &p.out_shape())?;
        gather(&p, &mut out)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// The index vector's length, then `x`'s other axes.
    fn infer_shape(&self, _g: &mut Graph, _node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let mut shape = vec![input_shapes[1][0]];
        shape.extend_from_slice(&input_shapes[0][1..]);
        Ok(Some(vec![shape]))
    }

    grad::read_grads!();
}

/// `AdvancedSubtensor{idx_list}`: integer arrays and boolean masks, with slices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AdvancedSubtensor {
    /// The index entries: arrays (`Index`) and slices.
    pub idx_list: Vec<IdxEntry>,
}

impl AdvancedSubtensor {
    /// Checks that the positions in `idx_list` count up from 0.
    pub fn new(idx_list: Vec<IdxEntry>) -> Result<Self> {
        check_positions(&idx_list)?;
        Ok(AdvancedSubtensor { idx_list })
    }

    /// The output type when some index inputs are known constants.
    pub fn output_type(
        &self,
        inputs: &[&TensorType],
        consts: &[Option<i64>],
    ) -> Result<TensorType> {
        let rule = advanced_output_type;
        super::subtensor::read_type("AdvancedSubtensor", rule, &self.idx_list, inputs, consts)
    }
}

impl Op for AdvancedSubtensor {
    op_identity!("AdvancedSubtensor", self => "idx_list={}", repr_idx_list(&self.idx_list));

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let types = tensor_types("AdvancedSubtensor", inputs)?;
        Ok(vec![self.output_type(&types, &[])?.into()])
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let indices = index_values(&inputs[1..])?;
        if let Some(mask) = leading_mask(&self.idx_list, &indices, x.ndim()) {
            outputs[0] = Some(mask_gather(x, mask, ctx.pool)?.into());
            return Ok(());
        }
        let p = plan(x, &self.idx_list, &indices)?;
        let mut out = ctx.pool.take(x.dtype(), &p.out_shape())?;
        gather(&p, &mut out)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    /// NumPy's result shape over the inputs' shapes.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let shape = subtensor_shape::advanced_shape(g, node, &self.idx_list, input_shapes)?;
        Ok(Some(vec![shape]))
    }

    grad::read_grads!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::graph::testing::tt;

    #[test]
    fn unbroadcastable_index_arrays_name_their_shapes() {
        let x = tt(DType::Float64, &[None, None]);
        let (a, b) = (
            tt(DType::Int64, &[Some(10)]),
            tt(DType::Int64, &[None, Some(9)]),
        );
        let op = AdvancedSubtensor::new(vec![IdxEntry::Index(0), IdxEntry::Index(1)]).unwrap();
        let err = op.output_type(&[&x, &a, &b], &[]).unwrap_err().to_string();
        assert!(
            err.contains(
                "indexing tensors could not be broadcast together with shapes [(10,), (None, 9)]"
            ),
            "{err}"
        );
    }

    #[test]
    fn numpy_result_shapes() {
        let x = tt(DType::Float64, &[Some(5), Some(3), Some(4)]);
        let v = tt(DType::Int64, &[Some(2)]);
        let m = tt(DType::Int64, &[Some(2), Some(1)]);
        let i = TensorType::scalar(DType::Int64);
        let full = IdxEntry::FULL;
        let op = |l: Vec<IdxEntry>| AdvancedSubtensor::new(l).unwrap();
        let shape = |t: TensorType| t.shape.to_vec();
        // x[v, :, v] (separated arrays go first), x[:, v, m] (adjacent stay).
        let a = op(vec![IdxEntry::Index(0), full, IdxEntry::Index(1)]);
        assert_eq!(
            shape(a.output_type(&[&x, &v, &v], &[]).unwrap()),
            vec![Some(2), Some(3)]
        );
        let b = op(vec![full, IdxEntry::Index(0), IdxEntry::Index(1)]);
        assert_eq!(
            shape(b.output_type(&[&x, &v, &m], &[]).unwrap()),
            vec![Some(5), Some(2), Some(2)]
        );
        let c = op(vec![IdxEntry::Index(0), IdxEntry::Index(1)]);
        assert_eq!(
            shape(c.output_type(&[&x, &v, &i], &[]).unwrap()),
            vec![Some(2), Some(4)]
        );
        let bad = tt(DType::Int64, &[Some(3)]);
        assert!(matches!(
            c.output_type(&[&x, &v, &bad], &[]),
            Err(Error::Index(_))
        ));
        let f = tt(DType::Float64, &[Some(2)]);
        assert!(matches!(
            c.output_type(&[&x, &v, &f], &[]),
            Err(Error::Type(_))
        ));
        assert_eq!(
            a.describe(),
            "AdvancedSubtensor{idx_list=(0, slice(None, None, None), 1)}"
        );
        let r = take_rows_type(&x, &v).unwrap();
        assert_eq!(shape(r), vec![Some(2), Some(3), Some(4)]);
    }
}
