//! `infer_shape` of the indexing ops as int64 scalar graphs: NumPy's slice
//! length from the symbolic bounds, the broadcast of index arrays' lengths
//! (a boolean mask contributes its number of `True`s), and NumPy's placement
//! of the array dimensions. The increment ops keep `x`'s shape.

use crate::build;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, NodeId, VarId, VarKind};
use crate::ops::infer_shape::dim_constant;
use crate::ops::scalar_grad::tensor;
use crate::ops::Dims;
use crate::scalar::ScalarKind;
use crate::tensor::index::{scalar_index, IdxEntry};

pub(crate) fn int64(g: &mut Graph, v: VarId) -> Result<VarId> {
    build::cast(g, v, DType::Int64)
}

pub(crate) fn op2(g: &mut Graph, kind: ScalarKind, a: VarId, b: VarId) -> Result<VarId> {
    build::elemwise(g, kind, &[a, b])
}

/// The value of a constant 0-d integer input.
pub(crate) fn constant_of(g: &Graph, v: VarId) -> Option<i64> {
    match &g.var(v).kind {
        VarKind::Constant(c) => c.value.tensor().ok().and_then(|t| scalar_index(t).ok()),
        _ => None,
    }
}

/// `v` made non-negative against `n` and clipped to `[lo, n + hi_off]`.
pub(crate) fn normalize(g: &mut Graph, v: VarId, n: VarId, lo: i64, hi_off: i64) -> Result<VarId> {
    let zero = dim_constant(g, 0);
    let neg = op2(g, ScalarKind::Lt, v, zero)?;
    let wrapped = build::add(g, v, n)?;
    let v = build::switch(g, neg, wrapped, v)?;
    let lo = dim_constant(g, lo);
    let off = dim_constant(g, hi_off);
    let hi = build::add(g, n, off)?;
    let v = op2(g, ScalarKind::Maximum, v, lo)?;
    op2(g, ScalarKind::Minimum, v, hi)
}

/// The count of one step direction: `max(0, ceil((to - from) / step))`.
pub(crate) fn count(
    g: &mut Graph,
    first: VarId,
    last: VarId,
    step: VarId,
    up: bool,
) -> Result<VarId> {
    let (span, step) = if up {
        (build::sub(g, last, first)?, step)
    } else {
        (build::sub(g, first, last)?, build::neg(g, step)?)
    };
    let one = dim_constant(g, 1);
    let rounded = build::add(g, span, step)?;
    let rounded = build::sub(g, rounded, one)?;
    let c = build::int_div(g, rounded, step)?;
    let zero = dim_constant(g, 0);
    op2(g, ScalarKind::Maximum, c, zero)
}

/// NumPy's length of `x[start:stop:step]` along an axis of length `n`.
fn slice_len(g: &mut Graph, n: VarId, bounds: [Option<VarId>; 3]) -> Result<VarId> {
    let [start, stop, step] = bounds;
    let step_value = match step {
        None => Some(1),
        Some(s) => constant_of(g, s),
    };
    let step = match step {
        Some(s) => int64(g, s)?,
        None => dim_constant(g, 1),
    };
    let direction = |g: &mut Graph, up: bool| -> Result<VarId> {
        let (lo, hi_off) = if up { (0, 0) } else { (-1, -1) };
        let first = match start {
            Some(s) => {
                let s = int64(g, s)?;
                normalize(g, s, n, lo, hi_off)?
            }
            None if up => dim_constant(g, 0),
            None => {
                let minus_one = dim_constant(g, -1);
                build::add(g, n, minus_one)?
            }
        };
        let last = match stop {
            Some(s) => {
                let s = int64(g, s)?;
                normalize(g, s, n, lo, hi_off)?
            }
            None if up => n,
            None => dim_constant(g, -1),
        };
        count(g, first, last, step, up)
    };
    match step_value {
        Some(v) => direction(g, v > 0),
        None => {
            let up = direction(g, true)?;
            let down = direction(g, false)?;
            let zero = dim_constant(g, 0);
            let positive = op2(g, ScalarKind::Gt, step, zero)?;
            build::switch(g, positive, up, down)
        }
    }
}

/// One indexed axis's length, or its static length when the output type knows it.
fn axis_len(
    g: &mut Graph,
    entry: IdxEntry,
    n: VarId,
    idx: &[VarId],
    known: Option<u64>,
) -> Result<VarId> {
    if let Some(k) = known {
        return Ok(dim_constant(g, k as i64));
    }
    let IdxEntry::Slice { start, stop, step } = entry else {
        return Ok(n);
    };
    if start.is_none() && stop.is_none() && step.is_none() {
        return Ok(n);
    }
    let at = |p: Option<usize>| p.map(|p| idx[p]);
    slice_len(g, n, [at(start), at(stop), at(step)])
}

/// `Subtensor`'s output shape.
pub fn basic_shape(
    g: &mut Graph,
    node: NodeId,
    idx_list: &[IdxEntry],
    input_shapes: &[Dims],
) -> Result<Dims> {
    let n = g.node(node).clone();
    let out = tensor(g, n.outputs[0])?;
    let x_shape = &input_shapes[0];
    let mut shape = Vec::with_capacity(out.ndim());
    for (axis, &entry) in idx_list.iter().enumerate() {
        if matches!(entry, IdxEntry::Slice { .. }) {
            let known = out.shape[shape.len()];
            shape.push(axis_len(g, entry, x_shape[axis], &n.inputs[1..], known)?);
        }
    }
    shape.extend_from_slice(&x_shape[idx_list.len()..]);
    Ok(shape)
}

/// The broadcast of two lengths (index arrays follow NumPy's rules at run
/// time, so a length-1 array broadcasts whatever its static type says).
fn broadcast_len(g: &mut Graph, a: VarId, b: VarId) -> Result<VarId> {
    if a == b || constant_of(g, b) == Some(1) {
        return Ok(a);
    }
    if constant_of(g, a) == Some(1) {
        return Ok(b);
    }
    let one = dim_constant(g, 1);
    let a_is_one = build::eq(g, a, one)?;
    build::switch(g, a_is_one, b, a)
}

/// The lengths an index input contributes to the broadcast: its shape, or
/// a mask's number of `True`s.
fn array_shape(g: &mut Graph, v: VarId, shape: &[VarId]) -> Result<Dims> {
    if tensor(g, v)?.dtype != DType::Bool {
        return Ok(shape.to_vec());
    }
    let ints = build::cast(g, v, DType::Int64)?;
    let count = build::sum(g, ints, None)?;
    Ok(vec![int64(g, count)?])
}

/// `AdvancedSubtensor`'s output shape (NumPy's placement of the array block).
pub fn advanced_shape(
    g: &mut Graph,
    node: NodeId,
    idx_list: &[IdxEntry],
    input_shapes: &[Dims],
) -> Result<Dims> {
    let n = g.node(node).clone();
    let idx = &n.inputs[1..];
    let x_shape = input_shapes[0].clone();
    let (mut rest, mut arrays, mut entries) = (Vec::new(), Vec::new(), Vec::new());
    let mut axis = 0;
    for (k, &entry) in idx_list.iter().enumerate() {
        match entry {
            IdxEntry::Slice { .. } => {
                let len = axis_len(g, entry, x_shape[axis], idx, None)?;
                rest.push((arrays.is_empty(), len));
                axis += 1;
            }
            IdxEntry::Index(p) => {
                let consumed = match tensor(g, idx[p])?.dtype {
                    DType::Bool => tensor(g, idx[p])?.ndim(),
                    _ => 1,
                };
                arrays.push(array_shape(g, idx[p], &input_shapes[1 + p])?);
                entries.push(k);
                axis += consumed;
            }
        }
    }
    let ndim = arrays.iter().map(Vec::len).max().unwrap_or(0);
    let mut b = vec![dim_constant(g, 1); ndim];
    for a in &arrays {
        let pad = ndim - a.len();
        for (d, &len) in a.iter().enumerate() {
            b[pad + d] = broadcast_len(g, b[pad + d], len)?;
        }
    }
    let adjacent = entries.windows(2).all(|w| w[1] == w[0] + 1);
    let pre = if adjacent {
        rest.iter().filter(|(before, _)| *before).count()
    } else {
        0
    };
    let mut dims: Vec<VarId> = rest.into_iter().map(|(_, len)| len).collect();
    dims.extend_from_slice(&x_shape[axis..]);
    let mut shape = dims[..pre].to_vec();
    shape.extend(b);
    shape.extend_from_slice(&dims[pre..]);
    Ok(shape)
}
