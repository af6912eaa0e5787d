//! `set_subtensor`/`inc_subtensor` on advanced indices:
//! `AdvancedIncSubtensor1` (one integer vector on axis 0) and
//! `AdvancedIncSubtensor` (any advanced index). Both work on a copy of `x`;
//! repeated indices accumulate when incrementing (as `np.add.at`) and the
//! last one wins when setting.

use crate::error::{Error, Result};
use crate::kernels::alloc::modifiable_copy;
use crate::kernels::index::leading_mask;
use crate::kernels::index::mask_update;
use crate::kernels::index::scatter_rows;
use crate::kernels::index::{plan, scatter};
use crate::op_identity;
use crate::ops::advanced_subtensor::{advanced_output_type, take_rows_type};
use crate::ops::index_list::{check_positions, repr_idx_list};
use crate::ops::subtensor::{check_value_rank, index_values, set_or_inc, tensor_types, write_of};
use crate::ops::subtensor_grad as grad;
use crate::ops::Outs;
use crate::ops::{Op, PerformCtx};
use crate::tensor::index::IdxEntry;
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;

/// Copies `x` and writes `y` at the index (shared by both ops).
fn perform_inc(
    ctx: &mut PerformCtx<'_>,
    inputs: &[&Value],
    idx_list: &[IdxEntry],
    set: bool,
    what: &str,
) -> Result<Tensor> {
    let x = inputs[0].tensor()?;
    let y_bcast = ctx.input_bcast.get(1).cloned().unwrap_or_default();
    let indices = index_values(&inputs[2..])?;
    let (y, write) = (inputs[1].tensor()?, write_of(set));
    if let Some(mask) = leading_mask(idx_list, &indices, x.ndim()) {
        if let Some(out) = mask_update(ctx.pool, x, mask, y, &y_bcast, write, what)? {
            return Ok(out);
        }
    }
    let mut out = modifiable_copy(ctx.pool, x)?;
    if let ([IdxEntry::Index(0)], [idx]) = (idx_list, &indices[..]) {
        if scatter_rows(&mut out, idx, y, &y_bcast, write, what)? {
            return Ok(out);
        }
    }
    let mut p = plan(&out, idx_list, &indices)?;
    scatter(&mut p, y, &y_bcast, write, what)?;
    drop(p);
    Ok(out)
}

/// As PyTensor's `AdvancedIncSubtensor1`: `y` is not broadcast along an
/// axis whose length is 1 only at run time (its type does not say so),
/// which usually means a `y` of the wrong shape. Other mismatches are the
/// kernel's to report.
fn refuse_runtime_broadcast(
    target: &[usize],
    y: &Tensor,
    y_bcast: &[bool],
    what: &str,
) -> Result<()> {
    let Some(pad) = target.len().checked_sub(y.ndim()) else {
        return Ok(());
    };
    let axis = (0..y.ndim()).find(|&d| {
        y.shape()[d] == 1 && target[pad + d] != 1 && !y_bcast.get(d).copied().unwrap_or(true)
    });
    match axis {
        Some(d) => Err(Error::Shape(format!(
            "Runtime broadcasting not allowed. AdvancedIncSubtensor1 was asked to broadcast \
             the y input along axis {d}, which has length 1 at run time but is not marked \
             broadcastable (y has shape {:?}, the rows written have shape {target:?}; {what}). \
             If broadcasting was intended, use `specify_broadcastable` on y.",
            y.shape()
        ))),
        None => Ok(()),
    }
}

/// `AdvancedIncSubtensor1{no_inplace,inc}` / `{no_inplace,set}`: inputs `x`, `y`, `ilist`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AdvancedIncSubtensor1 {
    /// Set instead of increment.
    pub set_instead_of_inc: bool,
    /// Writes into `x` itself (`destroy_map = {0: [0]}`).
    pub inplace: bool,
}

impl Op for AdvancedIncSubtensor1 {
    op_identity!("AdvancedIncSubtensor1");

    fn describe(&self) -> String {
        let kind = set_or_inc(self.set_instead_of_inc).to_lowercase();
        let inplace = if self.inplace {
            "inplace"
        } else {
            "no_inplace"
        };
        format!("AdvancedIncSubtensor1{{{inplace},{kind}}}")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let [x, y, ilist] = tensor_types("AdvancedIncSubtensor1", inputs)?[..] else {
            return Err(Error::Type(format!(
                "{} takes x, y and ilist",
                self.describe()
            )));
        };
        check_value_rank(take_rows_type(x, ilist)?.ndim(), y)?;
        Ok(vec![x.clone().into()])
    }

    crate::ops::subtensor::write_in_place!();

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let (x, y, ilist) = (
            inputs[0].tensor()?,
            inputs[1].tensor()?,
            inputs[2].tensor()?,
        );
        let rows = std::iter::once(ilist.len());
        let target: Vec<usize> = rows.chain(x.shape().iter().skip(1).copied()).collect();
        let y_bcast = ctx.input_bcast.get(1).map_or(&[][..], Vec::as_slice);
        refuse_runtime_broadcast(&target, y, y_bcast, &self.describe())?;
        let list = [IdxEntry::Index(0)];
        let out = perform_inc(
            ctx,
            inputs,
            &list,
            self.set_instead_of_inc,
            &self.describe(),
        )?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    super::shape_rules::shape_of_input!(0);

    grad::write_grads!();
}

/// `AdvancedIncSubtensor` / `AdvancedSetSubtensor`: inputs `x`, `y`, then the index inputs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AdvancedIncSubtensor {
    /// The index entries: arrays (`Index`) and slices.
    pub idx_list: Vec<IdxEntry>,
    /// Set instead of increment.
    pub set_instead_of_inc: bool,
    /// Writes into `x` itself (`destroy_map = {0: [0]}`).
    pub inplace: bool,
}

impl AdvancedIncSubtensor {
    /// Checks that the positions in `idx_list` count up from 0.
    pub fn new(idx_list: Vec<IdxEntry>, set_instead_of_inc: bool) -> Result<Self> {
        check_positions(&idx_list)?;
        Ok(AdvancedIncSubtensor {
            idx_list,
            set_instead_of_inc,
            inplace: false,
        })
    }

    /// The output type (that of `x`), after checking `y` against `x[idx]`.
    pub fn output_type(&self, inputs: &[&TensorType]) -> Result<TensorType> {
        let rule = advanced_output_type;
        super::subtensor::write_type(self, rule, &self.idx_list, inputs)
    }
}

impl Op for AdvancedIncSubtensor {
    op_identity!("AdvancedIncSubtensor");

    /// PyTensor shows neither the index list nor the inplace flag.
    fn describe(&self) -> String {
        let kind = set_or_inc(self.set_instead_of_inc);
        format!("Advanced{kind}Subtensor")
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let types = tensor_types("AdvancedIncSubtensor", inputs)?;
        Ok(vec![self.output_type(&types)?.into()])
    }

    crate::ops::subtensor::write_in_place!();

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let what = format!(
            "{}{{idx_list={}}}",
            self.describe(),
            repr_idx_list(&self.idx_list)
        );
        let out = perform_inc(ctx, inputs, &self.idx_list, self.set_instead_of_inc, &what)?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    super::shape_rules::shape_of_input!(0);

    grad::write_grads!();
}
