//! NumPy index expressions (`x[1, ::2]`, `x[..., None]`, `x[mask]`,
//! `x[i, [0, 2]]`) turned into the nodes PyTensor builds for them: an
//! `ExpandDims` for each `newaxis`, then a `Subtensor` (a view) when every
//! index is an integer or a slice, else an `AdvancedSubtensor`; and
//! `inc_subtensor`/`set_subtensor` of such a result. The slice arithmetic
//! itself is in `ops/index_list.rs`; Python translates its index objects
//! into [`IndexItem`]s and calls [`getitem`].

use crate::build::{dimshuffle, int_constant};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Graph, VarId};
use crate::ops::advanced_inc_subtensor::{AdvancedIncSubtensor, AdvancedIncSubtensor1};
use crate::ops::advanced_subtensor::{AdvancedSubtensor, AdvancedSubtensor1};
use crate::ops::dimshuffle::Axis;
use crate::ops::shape::Reshape;
use crate::ops::subtensor::{IncSubtensor, Subtensor};
use crate::ops::OpRef;
use crate::tensor::index::{index_constant, IdxEntry};
use crate::tensor::Tensor;
use crate::types::TensorType;
use crate::value::Value;
use std::sync::Arc;

/// PyTensor's refusal of `x[[True, False]]`.
const PYTHON_BOOLS: &str = "TensorType does not support Python bools for indexing, such as \
    tensor[[True, False]]. To use a boolean mask, convert the mask to a NumPy array first, \
    e.g., tensor[numpy.array([True, False])].";

/// A slice bound or a basic index known when the graph is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexBound {
    /// An integer: a constant of the dtype a Python int gets.
    Int(i64),
    /// A variable, which must be a 0-d integer.
    Var(VarId),
    /// Something that is no integer (a float, a string, ...).
    NotInteger,
}

/// One item of an index expression, as Python's `x[...]` receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexItem {
    /// An integer known now; `dtype` is the constant's dtype when it stands
    /// among index arrays (NumPy's own; a Python int's autocast one).
    Int {
        /// The value.
        value: i64,
        /// Its dtype as an index array.
        dtype: DType,
    },
    /// `start:stop:step`.
    Slice {
        /// The start, if given.
        start: Option<IndexBound>,
        /// The stop, if given.
        stop: Option<IndexBound>,
        /// The step, if given.
        step: Option<IndexBound>,
    },
    /// `...`: as many full slices as the other items leave axes.
    Ellipsis,
    /// `None` (`numpy.newaxis`): a new length-1 axis.
    NewAxis,
    /// A variable: a 0-d integer (a basic index), an integer array or a
    /// boolean mask (advanced indices).
    Var(VarId),
    /// A Python bool, or a list holding one, which NumPy reads as a mask
    /// and PyTensor refuses.
    PythonBool,
}

impl IndexItem {
    /// The full slice `:`.
    pub const FULL: IndexItem = IndexItem::Slice {
        start: None,
        stop: None,
        step: None,
    };
}

fn tensor_type(g: &Graph, v: VarId) -> Result<TensorType> {
    Ok(g.try_var(v)?.ty.expect_tensor("An index")?.clone())
}

/// Whether `item` is a boolean mask (it then uses up as many axes as it has).
fn mask_ndim(g: &Graph, item: &IndexItem) -> Result<Option<usize>> {
    match item {
        IndexItem::Var(v) => {
            let ty = tensor_type(g, *v)?;
            Ok((ty.dtype == DType::Bool).then_some(ty.ndim()))
        }
        _ => Ok(None),
    }
}

/// How many axes of the indexed tensor the items use up.
fn consumed(g: &Graph, items: &[IndexItem]) -> Result<usize> {
    let mut count = 0;
    for item in items {
        count += match item {
            IndexItem::NewAxis | IndexItem::Ellipsis => 0,
            IndexItem::PythonBool => return Err(Error::Type(PYTHON_BOOLS.into())),
            _ => mask_ndim(g, item)?.unwrap_or(1),
        };
    }
    Ok(count)
}

/// The items with the `Ellipsis` replaced by full slices, after checking
/// that they do not index more axes than `ndim`.
fn expand_ellipsis(g: &Graph, ndim: usize, items: &[IndexItem]) -> Result<Vec<IndexItem>> {
    let used = consumed(g, items)?;
    if used > ndim {
        return Err(Error::Index(format!(
            "too many indices for tensor: tensor is {ndim}-dimensional, but {used} were indexed"
        )));
    }
    let ellipses: Vec<usize> = (0..items.len())
        .filter(|&i| items[i] == IndexItem::Ellipsis)
        .collect();
    match ellipses[..] {
        [] => Ok(items.to_vec()),
        [k] => {
            let mut out = items[..k].to_vec();
            out.extend(std::iter::repeat_n(IndexItem::FULL, ndim - used));
            out.extend_from_slice(&items[k + 1..]);
            Ok(out)
        }
        _ => Err(Error::Index(
            "an index can only have a single Ellipsis (`...`)".into(),
        )),
    }
}

/// Inserts the `newaxis` axes with one `ExpandDims`; they become full slices.
fn expand_newaxes(g: &mut Graph, x: VarId, items: &[IndexItem]) -> Result<(VarId, Vec<IndexItem>)> {
    let (mut axes, mut rest, mut used) = (Vec::new(), Vec::new(), 0);
    for item in items {
        if *item == IndexItem::NewAxis {
            axes.push(used + axes.len());
            rest.push(IndexItem::FULL);
        } else {
            used += mask_ndim(g, item)?.unwrap_or(1);
            rest.push(*item);
        }
    }
    let ndim = tensor_type(g, x)?.ndim();
    let mut source = 0..ndim;
    let order: Vec<Axis> = (0..ndim + axes.len())
        .map(|d| {
            if axes.contains(&d) {
                None
            } else {
                source.next()
            }
        })
        .collect();
    Ok((dimshuffle(g, x, order)?, rest))
}

/// `x[items]`: the graph NumPy's indexing rules give, as PyTensor builds it.
pub fn getitem(g: &mut Graph, x: VarId, items: &[IndexItem]) -> Result<VarId> {
    let items = expand_ellipsis(g, tensor_type(g, x)?.ndim(), items)?;
    if items.contains(&IndexItem::NewAxis) {
        let (expanded, rest) = expand_newaxes(g, x, &items)?;
        if rest.iter().all(|i| *i == IndexItem::FULL) {
            return Ok(expanded);
        }
        return getitem(g, expanded, &rest);
    }
    let basic = all_basic(g, &items)?;
    index(g, x, &items, basic)
}

/// Whether every item is an integer or a slice (a `Subtensor` then).
fn all_basic(g: &Graph, items: &[IndexItem]) -> Result<bool> {
    for item in items {
        if let IndexItem::Var(v) = item {
            let ty = tensor_type(g, *v)?;
            if ty.ndim() != 0 || ty.dtype == DType::Bool {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// `x[items]` as a `Subtensor` (`basic`) or an `AdvancedSubtensor`, with
/// no `Ellipsis` or `newaxis` among the items (`basic_subtensor` and
/// `advanced_subtensor`, and the last step of [`getitem`]).
pub fn index(g: &mut Graph, x: VarId, items: &[IndexItem], basic: bool) -> Result<VarId> {
    let mut idx = IndexInputs::default();
    let idx_list = items
        .iter()
        .map(|item| idx.entry(g, item, basic))
        .collect::<Result<Vec<_>>>()?;
    let op: OpRef = if basic {
        Arc::new(Subtensor::new(idx_list)?)
    } else {
        Arc::new(AdvancedSubtensor::new(idx_list)?)
    };
    indexing_node(g, op, x, idx.inputs)
}

/// The index inputs of a node being built, in `idx_list` order.
#[derive(Default)]
struct IndexInputs {
    inputs: Vec<VarId>,
}

impl IndexInputs {
    fn push(&mut self, v: VarId) -> usize {
        self.inputs.push(v);
        self.inputs.len() - 1
    }

    /// A slice bound or basic index: a 0-d integer input.
    fn scalar(&mut self, g: &mut Graph, bound: IndexBound) -> Result<usize> {
        let v = match bound {
            IndexBound::Int(i) => int_constant(g, i)?,
            IndexBound::Var(v) => v,
            IndexBound::NotInteger => return Err(not_integer()),
        };
        let ty = tensor_type(g, v)?;
        if ty.ndim() != 0 || !ty.dtype.is_integer() || ty.dtype == DType::Bool {
            return Err(not_integer());
        }
        Ok(self.push(v))
    }

    fn bound(&mut self, g: &mut Graph, b: Option<IndexBound>) -> Result<Option<usize>> {
        b.map(|b| self.scalar(g, b)).transpose()
    }

    /// The `idx_list` entry of one item (no `Ellipsis` or `newaxis` left).
    fn entry(&mut self, g: &mut Graph, item: &IndexItem, basic: bool) -> Result<IdxEntry> {
        match *item {
            IndexItem::Slice { start, stop, step } => Ok(IdxEntry::Slice {
                start: self.bound(g, start)?,
                stop: self.bound(g, stop)?,
                step: self.bound(g, step)?,
            }),
            IndexItem::Int { value, .. } if basic => {
                Ok(IdxEntry::Index(self.scalar(g, IndexBound::Int(value))?))
            }
            IndexItem::Var(v) if basic => Ok(IdxEntry::Index(self.scalar(g, IndexBound::Var(v))?)),
            IndexItem::Int { value, dtype } => {
                let c = g.tensor_constant(crate::kernels::elemwise::cast::scalar_as(value, dtype));
                Ok(IdxEntry::Index(self.push(c)))
            }
            IndexItem::Var(v) => {
                let dtype = tensor_type(g, v)?.dtype;
                if !(dtype.is_integer() || dtype == DType::Bool) {
                    return Err(Error::Type(
                        "index must be integers or a boolean mask".into(),
                    ));
                }
                Ok(IdxEntry::Index(self.push(v)))
            }
            IndexItem::PythonBool => Err(Error::Type(PYTHON_BOOLS.into())),
            IndexItem::Ellipsis | IndexItem::NewAxis if basic => Err(not_integer()),
            IndexItem::Ellipsis | IndexItem::NewAxis => Err(Error::Type(
                "index must be integers or a boolean mask".into(),
            )),
        }
    }
}

fn not_integer() -> Error {
    Error::Type("basic indices must be integers".into())
}

/// The values of the 0-d integer constants among `inputs`.
fn constant_indices(g: &Graph, inputs: &[VarId]) -> Vec<Option<i64>> {
    inputs
        .iter()
        .map(|&v| match g.var(v).constant().map(|c| &c.value) {
            Some(Value::Tensor(t)) => index_constant(t),
            _ => None,
        })
        .collect()
}

/// A node of an indexing op on `x` and its index inputs, typed with the
/// values of constant indices (a constant slice has a static length).
fn indexing_node(g: &mut Graph, op: OpRef, x: VarId, idx: Vec<VarId>) -> Result<VarId> {
    let mut inputs = vec![x];
    inputs.extend(&idx);
    let types: Vec<TensorType> = inputs
        .iter()
        .map(|&v| tensor_type(g, v))
        .collect::<Result<_>>()?;
    let refs: Vec<&TensorType> = types.iter().collect();
    let consts = constant_indices(g, &idx);
    let any = op.as_any();
    let out = if let Some(s) = any.downcast_ref::<Subtensor>() {
        s.output_type(&refs, &consts)?
    } else if let Some(s) = any.downcast_ref::<AdvancedSubtensor>() {
        s.output_type(&refs, &consts)?
    } else {
        return g.apply_out(op, &inputs);
    };
    let node = g.add_node(op, inputs, vec![out.into()])?;
    g.default_output(node)
}

/// How `inc_subtensor` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IncOptions {
    /// Build the inplace version (`destroy_map = {0: [0]}`).
    pub inplace: bool,
    /// Set instead of increment (`set_subtensor`).
    pub set_instead_of_inc: bool,
    /// PyTensor's `ignore_duplicates`: an increment by an advanced index
    /// is NumPy's `t[idx] += y` (a repeated index gets one increment, the
    /// last write winning), built as `set_subtensor(t[idx], t[idx] + y)`.
    pub ignore_duplicates: bool,
}

/// `inc_subtensor(x, y)`: `x` must be the output of an indexing node
/// `t[idx]`; the result is `t` with `t[idx]` incremented by (or set to) `y`.
pub fn inc_subtensor(g: &mut Graph, x: VarId, y: VarId, opts: IncOptions) -> Result<VarId> {
    let (x_ndim, y_ndim) = (tensor_type(g, x)?.ndim(), tensor_type(g, y)?.ndim());
    if y_ndim > x_ndim {
        return Err(Error::Type(format!(
            "Trying to increment a {x_ndim}-dimensional subtensor with a {y_ndim}-dimensional value."
        )));
    }
    let not_indexing = || Error::Type("x must be the result of a subtensor operation".into());
    let owner = g.var(x).owner().ok_or_else(not_indexing)?;
    let advanced = {
        let any = g.node(owner).op.as_any();
        any.is::<AdvancedSubtensor1>() || any.is::<AdvancedSubtensor>()
    };
    if opts.ignore_duplicates && advanced && !opts.set_instead_of_inc {
        let sum = crate::build::add(g, x, y)?;
        let opts = IncOptions {
            set_instead_of_inc: true,
            ignore_duplicates: false,
            ..opts
        };
        return inc_subtensor(g, x, sum, opts);
    }
    let node = g.node(owner);
    let any = node.op.as_any();
    let set = opts.set_instead_of_inc;
    let op: OpRef = if let Some(s) = any.downcast_ref::<Subtensor>() {
        let mut op = IncSubtensor::new(s.idx_list.clone(), set)?;
        op.inplace = opts.inplace;
        Arc::new(op)
    } else if any.is::<AdvancedSubtensor1>() {
        Arc::new(AdvancedIncSubtensor1 {
            set_instead_of_inc: set,
            inplace: opts.inplace,
        })
    } else if let Some(s) = any.downcast_ref::<AdvancedSubtensor>() {
        let mut op = AdvancedIncSubtensor::new(s.idx_list.clone(), set)?;
        op.inplace = opts.inplace;
        Arc::new(op)
    } else {
        return Err(not_indexing());
    };
    let (real_x, idx) = node.inputs.split_first().ok_or_else(not_indexing)?;
    let mut inputs = vec![*real_x, y];
    inputs.extend_from_slice(idx);
    g.apply_out(op, &inputs)
}

/// `x.flatten()`: a `Reshape` to one axis by the constant shape `[-1]`.
pub fn flatten(g: &mut Graph, x: VarId) -> Result<VarId> {
    let shape = g.tensor_constant(Tensor::from_vec(vec![1], vec![-1i64])?);
    let op = Reshape { ndim: 1 };
    let ty = op.output_type(&tensor_type(g, x)?, Some(&[-1]))?;
    let node = g.add_node(Arc::new(op), vec![x, shape], vec![ty.into()])?;
    g.default_output(node)
}

/// `take(a, indices, axis)`: `a.flatten()[indices]` when `axis` is `None`,
/// else `a[:, ..., :, indices]` with `axis` full slices before.
pub fn take(g: &mut Graph, a: VarId, indices: VarId, axis: Option<i64>) -> Result<VarId> {
    let Some(axis) = axis else {
        let flat = flatten(g, a)?;
        return getitem(g, flat, &[IndexItem::Var(indices)]);
    };
    let ndim = tensor_type(g, a)?.ndim() as i64;
    if !(-ndim..ndim).contains(&axis) {
        return Err(Error::Value(format!(
            "axis {axis} is out of bounds for a {ndim}-d tensor"
        )));
    }
    let mut items = vec![IndexItem::FULL; axis.rem_euclid(ndim) as usize];
    items.push(IndexItem::Var(indices));
    getitem(g, a, &items)
}

#[cfg(test)]
#[path = "numpy_index_tests.rs"]
mod tests;
