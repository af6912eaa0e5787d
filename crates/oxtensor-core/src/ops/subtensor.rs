//! Basic indexing: `Subtensor` (`x[1, ::2]`, a view of `x`) and
//! `IncSubtensor` (`set_subtensor`/`inc_subtensor` on such an index, which
//! copies `x` first unless `inplace`: see `kernels/alloc/granted.rs`). Integer indices and slice
//! bounds are 0-d integer inputs named by `idx_list`. Mirrors
//! `pytensor/tensor/subtensor.py`.

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId};
use crate::kernels::alloc::modifiable_copy;
use crate::kernels::elemwise::cast::cast;
use crate::kernels::index::{basic_view, broadcast_value, run_blocks, Blocks, Write};
use crate::op_identity;
use crate::ops::index_list::{
    check_positions, check_scalar_index, describe_basic, n_index_inputs, static_slice_len,
};
use crate::ops::subtensor_grad as grad;
use crate::ops::subtensor_shape;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{IoMap, Op, PerformCtx};
use crate::tensor::index::IdxEntry;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// The tensor types of a node's inputs, or a `TypeError` naming the op.
pub(crate) fn tensor_types<'a>(op: &str, inputs: &[&'a Type]) -> Result<Vec<&'a TensorType>> {
    inputs
        .iter()
        .map(|t| t.expect_tensor(&format!("An input of {op}")))
        .collect()
}

/// `x[idx_list]`'s type for basic indices; `consts` holds the index
/// inputs' values where they are constants (static slice lengths).
pub fn basic_output_type(
    x: &TensorType,
    idx_list: &[IdxEntry],
    idx: &[&TensorType],
    consts: &[Option<i64>],
) -> Result<TensorType> {
    if idx_list.len() > x.ndim() {
        return Err(Error::Index(format!(
            "too many indices for tensor: tensor is {}-dimensional, but {} were indexed",
            x.ndim(),
            idx_list.len()
        )));
    }
    if idx.len() != n_index_inputs(idx_list) {
        return Err(Error::Type(format!(
            "Subtensor{{{}}} needs {} index inputs, got {}",
            describe_basic(idx_list),
            n_index_inputs(idx_list),
            idx.len()
        )));
    }
    idx.iter().try_for_each(|t| check_scalar_index(t))?;
    let mut shape = Vec::new();
    for (d, &entry) in idx_list.iter().enumerate() {
        if matches!(entry, IdxEntry::Slice { .. }) {
            shape.push(static_slice_len(x.shape[d], entry, consts));
        }
    }
    shape.extend_from_slice(&x.shape[idx_list.len()..]);
    TensorType::new(x.dtype, shape)
}

/// `Subtensor{idx_list}`: basic indexing, a view of its input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Subtensor {
    /// The index entries, one per indexed axis.
    pub idx_list: Vec<IdxEntry>,
}

impl Subtensor {
    /// Checks that the positions in `idx_list` count up from 0.
    pub fn new(idx_list: Vec<IdxEntry>) -> Result<Self> {
        check_positions(&idx_list)?;
        Ok(Subtensor { idx_list })
    }

    /// The output type when some index inputs are known constants.
    pub fn output_type(
        &self,
        inputs: &[&TensorType],
        consts: &[Option<i64>],
    ) -> Result<TensorType> {
        read_type(
            "Subtensor",
            basic_output_type,
            &self.idx_list,
            inputs,
            consts,
        )
    }
}

impl Op for Subtensor {
    op_identity!("Subtensor", self => "{}", describe_basic(&self.idx_list));

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let types = tensor_types("Subtensor", inputs)?;
        Ok(vec![self.output_type(&types, &[])?.into()])
    }

    fn view_map(&self) -> IoMap {
        vec![(0, vec![0])]
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let idx = index_values(&inputs[1..])?;
        outputs[0] = Some(basic_view(x, &self.idx_list, &idx)?.into());
        Ok(())
    }

    /// NumPy's slice lengths over the input's shape.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let shape = subtensor_shape::basic_shape(g, node, &self.idx_list, input_shapes)?;
        Ok(Some(vec![shape]))
    }

    grad::read_grads!();
}

/// The tensors of the index inputs.
pub(crate) fn index_values<'a>(inputs: &[&'a Value]) -> Result<Vec<&'a crate::tensor::Tensor>> {
    inputs.iter().map(|v| v.tensor()).collect()
}

/// `IncSubtensor{idx_list}` (`SetSubtensor{...}` when it sets): `x` with
/// `x[idx_list]` incremented by (or set to) `y`, in a copy of `x`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IncSubtensor {
    /// The index entries, one per indexed axis.
    pub idx_list: Vec<IdxEntry>,
    /// Set instead of increment.
    pub set_instead_of_inc: bool,
    /// Writes into `x` itself (`destroy_map = {0: [0]}`), put there by the
    /// inplace phase (`rewrite/families/inplace_subtensor.rs`).
    pub inplace: bool,
    /// `(destroyed, other)` input pairs the destroy handler lets alias
    /// (PyTensor's `destroyhandler_tolerate_aliased`); part of the op's
    /// identity, as in PyTensor.
    pub tolerate_aliased: Vec<(usize, usize)>,
}

impl IncSubtensor {
    /// Checks that the positions in `idx_list` count up from 0.
    pub fn new(idx_list: Vec<IdxEntry>, set_instead_of_inc: bool) -> Result<Self> {
        check_positions(&idx_list)?;
        Ok(IncSubtensor {
            idx_list,
            set_instead_of_inc,
            inplace: false,
            tolerate_aliased: Vec::new(),
        })
    }

    /// The output type (that of `x`), after checking `y` against `x[idx]`.
    pub fn output_type(&self, inputs: &[&TensorType]) -> Result<TensorType> {
        write_type(self, basic_output_type, &self.idx_list, inputs)
    }
}

/// A rule giving `x[idx_list]`'s type from `x`, the index inputs' types
/// and their constant values: [`basic_output_type`] or
/// [`super::advanced_subtensor::advanced_output_type`].
pub(crate) type RegionType =
    fn(&TensorType, &[IdxEntry], &[&TensorType], &[Option<i64>]) -> Result<TensorType>;

/// A reading op's output type: `x[idx_list]`'s, by `rule`.
pub(crate) fn read_type(
    op: &str,
    rule: RegionType,
    idx_list: &[IdxEntry],
    inputs: &[&TensorType],
    consts: &[Option<i64>],
) -> Result<TensorType> {
    let (x, idx) = inputs
        .split_first()
        .ok_or_else(|| Error::Type(format!("{op} needs an input")))?;
    rule(x, idx_list, idx, consts)
}

/// A writing op's output type, `x`'s, after checking `y` against
/// `x[idx_list]` (whose type `rule` gives).
pub(crate) fn write_type(
    op: &dyn Op,
    rule: RegionType,
    idx_list: &[IdxEntry],
    inputs: &[&TensorType],
) -> Result<TensorType> {
    let [x, y, idx @ ..] = inputs else {
        return Err(Error::Type(format!(
            "{} takes x, y and the index inputs",
            op.describe()
        )));
    };
    let region = rule(x, idx_list, idx, &[])?;
    check_value_rank(region.ndim(), y)?;
    Ok((*x).clone())
}

/// PyTensor's check that `y` does not have more dimensions than `x[idx]`.
pub(crate) fn check_value_rank(region_ndim: usize, y: &TensorType) -> Result<()> {
    if y.ndim() > region_ndim {
        return Err(Error::Type(format!(
            "Trying to increment a {region_ndim}-dimensional subtensor with a {}-dimensional value.",
            y.ndim()
        )));
    }
    Ok(())
}

/// `Set` or `Inc`: how the increment ops name what they do.
pub(crate) fn set_or_inc(set_instead_of_inc: bool) -> &'static str {
    if set_instead_of_inc {
        "Set"
    } else {
        "Inc"
    }
}

impl Op for IncSubtensor {
    op_identity!("IncSubtensor");

    fn describe(&self) -> String {
        let kind = set_or_inc(self.set_instead_of_inc);
        format!("{kind}Subtensor{{{}}}", describe_basic(&self.idx_list))
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let types = tensor_types("IncSubtensor", inputs)?;
        Ok(vec![self.output_type(&types)?.into()])
    }

    write_in_place!();

    fn destroyhandler_tolerate_aliased(&self) -> Vec<(usize, usize)> {
        self.tolerate_aliased.clone()
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let x = inputs[0].tensor()?;
        let y = cast(inputs[1].tensor()?, x.dtype())?;
        let out = modifiable_copy(ctx.pool, x)?;
        let idx = index_values(&inputs[2..])?;
        let mut region = basic_view(&out, &self.idx_list, &idx)?;
        let y_bcast = ctx.input_bcast.get(1).cloned().unwrap_or_default();
        let blocks = Blocks {
            shape: region.shape().to_vec(),
            src_strides: broadcast_value(&y, &y_bcast, region.shape(), &self.describe())?,
            dst_strides: region.strides().into(),
            pairs: vec![(0, 0)],
        };
        // SAFETY: one block at offset 0 on both sides: the destination walks
        // `region`, a view of `out` whose layout `Tensor::view` checked
        // (`layout::extent` inside the buffer, indices through `wrap_index`
        // and `resolve_slice`); the source walks `y` with the strides
        // `broadcast_value` gave after checking the shapes (`y`'s checked
        // layout with zero strides added). `out` is a fresh copy or a loan
        // no other handle sees, so it does not overlap `y`.
        unsafe { run_blocks(&blocks, &y, &mut region, write_of(self.set_instead_of_inc))? };
        drop(region);
        outputs[0] = Some(out.into());
        Ok(())
    }

    super::shape_rules::shape_of_input!(0);

    grad::write_grads!();
}

/// The methods of a writing op with an `inplace` field: it writes into
/// `x` itself when `inplace` (`destroy_map = {0: [0]}`, put there by the
/// inplace phase), and otherwise into a copy, which may be `x`'s buffer
/// when the program lends it.
macro_rules! write_in_place {
    () => {
        fn destroy_map(&self) -> $crate::ops::IoMap {
            if self.inplace {
                vec![(0, vec![0])]
            } else {
                Vec::new()
            }
        }

        fn overwritable_input(&self) -> Option<usize> {
            Some(0)
        }
    };
}
pub(crate) use write_in_place;

/// The block write of an increment op.
pub(crate) fn write_of(set_instead_of_inc: bool) -> Write {
    if set_instead_of_inc {
        Write::Set
    } else {
        Write::Inc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn types_and_names() {
        let x = TensorType::new(DType::Float64, [Some(5), Some(3)]).unwrap();
        let i = TensorType::scalar(DType::Int64);
        let s = Subtensor::new(vec![IdxEntry::Slice {
            start: Some(0),
            stop: None,
            step: None,
        }])
        .unwrap();
        assert_eq!(s.describe(), "Subtensor{start:}");
        let known = s.output_type(&[&x, &i], &[Some(1)]).unwrap();
        assert_eq!(known.shape.as_slice(), &[Some(4), Some(3)]);
        let unknown = s.output_type(&[&x, &i], &[None]).unwrap();
        assert_eq!(unknown.shape.as_slice(), &[None, Some(3)]);
        let f = TensorType::scalar(DType::Float64);
        assert!(matches!(
            s.output_type(&[&x, &f], &[None]),
            Err(Error::Type(_))
        ));
        let too_many = Subtensor::new(vec![
            IdxEntry::Index(0),
            IdxEntry::Index(1),
            IdxEntry::Index(2),
        ]);
        let err = too_many
            .unwrap()
            .output_type(&[&x, &i, &i, &i], &[])
            .unwrap_err();
        assert!(matches!(err, Error::Index(_)));
        let inc = IncSubtensor::new(vec![IdxEntry::Index(0)], true).unwrap();
        assert_eq!(inc.describe(), "SetSubtensor{i}");
        let m = TensorType::with_ndim(DType::Float64, 2);
        assert!(inc.output_type(&[&x, &m, &i]).is_err());
    }
}
