//! The vectorize rules of the shape ops, as PyTensor's: `Shape` of a
//! batched tensor is its core lengths broadcast over its batch shape
//! (`broadcast_to(x.shape[nb:], (*x.shape[:nb], core_ndim))`); `Reshape`
//! puts the batch lengths in front of the new shape (or takes a new shape
//! that already has them); `SpecifyShape` leaves the batch lengths
//! unspecified. The nodes are the ones Python's `x.shape[1:]`,
//! `*v` and `reshape(x, [...])` build, so the graphs compare equal.

use crate::build::numpy_index::{getitem, IndexBound, IndexItem};
use crate::build::{int_constant, shape};
use crate::dtype::{autocast_int, DType};
use crate::error::{Error, Result};
use crate::graph::{Graph, Node, VarId};
use crate::ops::alloc::alloc;
use crate::ops::elemwise::Elemwise;
use crate::ops::known;
use crate::ops::make_vector::MakeVector;
use crate::ops::shape::{Reshape, Shape};
use crate::ops::specify_shape::SpecifyShape;
use crate::scalar::ScalarOp;
use crate::value::Value;
use std::sync::Arc;

/// The node rebuilt by its shape op's rule, or `None` for other ops.
/// `Reshape`'s rule also runs when nothing gained axes: a new shape of
/// the wrong length is an error there.
pub(super) fn rule(
    g: &mut Graph,
    n: &Node,
    inputs: &[VarId],
    batch: &[usize],
) -> Result<Option<Vec<VarId>>> {
    let any = n.op.as_any();
    let nb = batch[0];
    let out = if any.is::<Reshape>() {
        match reshape(g, n, inputs, nb)? {
            Some(out) => out,
            None => return Ok(None),
        }
    } else if batch.iter().all(|&b| b == 0) {
        return Ok(None);
    } else if any.is::<Shape>() {
        let core_ndim = ndim(g, n.inputs[0])?;
        broadcast_core_shape(g, inputs[0], nb, core_ndim)?
    } else if any.is::<SpecifyShape>() {
        specify_shape(g, n, inputs, batch)?
    } else {
        return Ok(None);
    };
    Ok(Some(vec![out]))
}

fn ndim(g: &Graph, v: VarId) -> Result<usize> {
    Ok(g.try_var(v)?.ty.expect_tensor("A shape op's input")?.ndim())
}

fn slice(start: Option<usize>, stop: Option<usize>) -> IndexItem {
    let bound = |k: usize| IndexBound::Int(k as i64);
    IndexItem::Slice {
        start: start.map(bound),
        stop: stop.map(bound),
        step: None,
    }
}

/// `[v[0], v[1], ...]`: the entries of a vector of static length `len`,
/// as Python's `*v` unpacks it.
fn entries(g: &mut Graph, v: VarId, len: usize) -> Result<Vec<VarId>> {
    (0..len as i64)
        .map(|k| {
            let dtype = autocast_int(k.into())?;
            getitem(g, v, &[IndexItem::Int { value: k, dtype }])
        })
        .collect()
}

/// `(*x.shape[:nb],)`: the batch lengths of `x`.
fn batch_lengths(g: &mut Graph, x: VarId, nb: usize) -> Result<Vec<VarId>> {
    let s = shape(g, x)?;
    let head = getitem(g, s, &[slice(None, Some(nb))])?;
    entries(g, head, nb)
}

/// `broadcast_to(x.shape[nb:], (*x.shape[:nb], core_ndim))`.
fn broadcast_core_shape(g: &mut Graph, x: VarId, nb: usize, core_ndim: usize) -> Result<VarId> {
    let s = shape(g, x)?;
    let core = getitem(g, s, &[slice(Some(nb), None)])?;
    let mut lengths = batch_lengths(g, x, nb)?;
    lengths.push(int_constant(g, core_ndim as i64)?);
    alloc(g, core, &lengths)
}

/// The static length of a shape vector, if it is a vector.
fn vector_length(g: &Graph, v: VarId) -> Result<Option<Option<u64>>> {
    let t = g.try_var(v)?.ty.expect_tensor("Reshape's shape")?;
    Ok((t.ndim() == 1).then(|| t.shape[0]))
}

/// `reshape(x, [*x.shape[:nb], *shape])` for a new shape of the old
/// length, `reshape(x, shape)` for one that already holds the batch
/// lengths; a batched (matrix) shape goes to `Blockwise` (`None`).
fn reshape(g: &mut Graph, n: &Node, inputs: &[VarId], nb: usize) -> Result<Option<VarId>> {
    let (x, new_shape) = (inputs[0], inputs[1]);
    let old_len = vector_length(g, n.inputs[1])?.flatten();
    let Some(new_len) = vector_length(g, new_shape)? else {
        return Ok(None);
    };
    let shape_vec = match (old_len, new_len) {
        (Some(old), Some(new)) if old == new => {
            let mut lengths = batch_lengths(g, x, nb)?;
            lengths.extend(entries(g, new_shape, new as usize)?);
            let node = Arc::new(MakeVector {
                dtype: DType::Int64,
            });
            g.apply_out(node, &lengths)?
        }
        (Some(old), Some(new)) if old + nb as u64 == new => new_shape,
        _ => {
            return Err(Error::Value(
                "Invalid shape length passed into vectorize node of Reshape".into(),
            ))
        }
    };
    let ndim = vector_length(g, shape_vec)?.flatten().unwrap_or_default() as usize;
    // Static lengths read from constant entries, as Python's reshape does.
    let op = Reshape { ndim };
    let input = g.try_var(x)?.ty.expect_tensor("Reshape's input")?.clone();
    let known = known_entries(g, shape_vec);
    let ty = op.output_type_with_lengths(&input, known.as_deref(), &vec![None; ndim])?;
    let node = g.add_node(Arc::new(op), vec![x, shape_vec], vec![ty.into()])?;
    Ok(Some(g.node(node).outputs[0]))
}

/// The entries of a shape vector known now: a constant vector's, or a
/// `MakeVector`'s inputs that are integer constants (perhaps cast).
fn known_entries(g: &Graph, shape_vec: VarId) -> Option<Vec<Option<i64>>> {
    let int_of = |v: VarId| -> Option<i64> {
        let mut v = v;
        if let Some(node) = g.var(v).owner() {
            let n = g.node(node);
            let cast = n.op.as_any().downcast_ref::<Elemwise>();
            if !matches!(cast.map(|e| &e.scalar_op), Some(ScalarOp::Cast(_))) {
                return None;
            }
            v = n.inputs[0];
        }
        let Value::Tensor(t) = &g.var(v).constant()?.value else {
            return None;
        };
        known::int_scalar(t, "a length").ok()
    };
    if let Some(Value::Tensor(t)) = g.var(shape_vec).constant().map(|c| &c.value) {
        return Some(
            (0..t.len())
                .map(|i| known::int_at(t, i, "a length").ok())
                .collect(),
        );
    }
    let n = g.node(g.var(shape_vec).owner()?);
    n.op.as_any()
        .is::<MakeVector>()
        .then(|| n.inputs.iter().map(|&v| int_of(v)).collect())
}

/// `specify_shape(x, (None,) * nb + lengths)`; batched lengths are out of
/// scope (PyTensor raises `NotImplementedError` too).
fn specify_shape(g: &mut Graph, n: &Node, inputs: &[VarId], batch: &[usize]) -> Result<VarId> {
    if batch[1..].iter().any(|&b| b != 0) {
        return Err(Error::NotImplemented(format!(
            "vectorize of {} with batched shape lengths",
            n.op.describe()
        )));
    }
    let mut args = vec![inputs[0]];
    for _ in 0..batch[0] {
        args.push(int_constant(g, -1)?);
    }
    args.extend_from_slice(&inputs[1..]);
    known::apply_out(g, Arc::new(SpecifyShape), &args)
}
