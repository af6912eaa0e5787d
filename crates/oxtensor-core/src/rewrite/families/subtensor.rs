//! Basic indexing (PyTensor's `tensor/rewriting/subtensor.py` and
//! `subtensor_lift.py`): slice bounds that change nothing go
//! (`local_useless_slice`), and so does an index that takes everything
//! (`local_useless_subtensor`); an index of an index is one, slices into
//! slices (`local_subtensor_merge_slice`) and integers into slices
//! (`local_subtensor_merge_integer`); `[a, b, c][0]` is `a`
//! (`local_subtensor_make_vector`); indexing an `Alloc` allocates the
//! indexed value (`local_subtensor_of_alloc`).

use super::shape_feature::{is_length_of, shape_of, shape_rewriter};
use super::util::{
    apply, cast_to, constant_int, constant_ints, inputs, op_as, output, owner_as, register_phases,
    single_client, tensor_type,
};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::advanced_subtensor::AdvancedSubtensor1;
use crate::ops::alloc::Alloc;
use crate::ops::infer_shape::dim_constant;
use crate::ops::make_vector::MakeVector;
use crate::ops::subtensor::Subtensor;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, STABILIZE, USELESS};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::tensor::index::{resolve_slice, IdxEntry};
use crate::tensor::Tensor;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let sub = || Tracks::classes(&["Subtensor"]);
    let all = [USELESS, CANONICALIZE, STABILIZE, SPECIALIZE];
    let slice = shape_rewriter("local_useless_slice", sub, local_useless_slice);
    register_phases(db, &all, slice, &[])?;
    let useless = shape_rewriter("local_useless_subtensor", sub, local_useless_subtensor);
    register_phases(db, &[CANONICALIZE, SPECIALIZE], useless, &[])?;
    let merge_s = shape_rewriter("local_subtensor_merge_slice", sub, |fg, n| {
        merge(fg, n, false)
    });
    register_phases(db, &[CANONICALIZE, SPECIALIZE], merge_s, &[])?;
    let merge_i = shape_rewriter("local_subtensor_merge_integer", sub, |fg, n| {
        merge(fg, n, true)
    });
    register_phases(db, &[CANONICALIZE, SPECIALIZE], merge_i, &[])?;
    let mv = || Tracks::classes(&["Subtensor", "AdvancedSubtensor1"]);
    let of_mv = shape_rewriter(
        "local_subtensor_make_vector",
        mv,
        local_subtensor_make_vector,
    );
    register_phases(db, &[CANONICALIZE, SPECIALIZE], of_mv, &[])?;
    let of_alloc = shape_rewriter("local_subtensor_of_alloc", sub, local_subtensor_of_alloc);
    register_phases(db, &[USELESS, CANONICALIZE, SPECIALIZE], of_alloc, &[])
}

/// One indexed axis, its bounds as variables.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Idx {
    /// An integer index (drops the axis).
    Int(VarId),
    /// `start:stop:step`.
    Slice([Option<VarId>; 3]),
}

/// `:`.
pub(super) const FULL: Idx = Idx::Slice([None, None, None]);

/// The entries of an index list on `ndim` axes (missing ones are `:`).
pub(super) fn decode(idx_list: &[IdxEntry], idx: &[VarId], ndim: usize) -> Vec<Idx> {
    let at = |p: Option<usize>| p.map(|p| idx[p]);
    (0..ndim)
        .map(|d| match idx_list.get(d) {
            Some(&IdxEntry::Index(p)) => Idx::Int(idx[p]),
            Some(&IdxEntry::Slice { start, stop, step }) => {
                Idx::Slice([at(start), at(stop), at(step)])
            }
            None => FULL,
        })
        .collect()
}

/// The index list and index inputs of `entries` (trailing `:` dropped).
pub(super) fn encode(entries: &[Idx]) -> (Vec<IdxEntry>, Vec<VarId>) {
    let used = entries.len() - entries.iter().rev().take_while(|&&e| e == FULL).count();
    let mut args = Vec::new();
    let mut pos = |v: Option<VarId>| {
        v.map(|v| {
            args.push(v);
            args.len() - 1
        })
    };
    let list = entries[..used]
        .iter()
        .map(|e| match *e {
            Idx::Int(v) => IdxEntry::Index(pos(Some(v)).unwrap_or_default()),
            Idx::Slice([a, b, c]) => {
                let (start, stop, step) = (pos(a), pos(b), pos(c));
                IdxEntry::Slice { start, stop, step }
            }
        })
        .collect();
    (list, args)
}

/// `x[entries]`, or `x` itself when every entry is `:`.
pub(super) fn subtensor(fg: &mut FunctionGraph, x: VarId, entries: &[Idx]) -> Result<VarId> {
    let (list, args) = encode(entries);
    if list.is_empty() {
        return Ok(x);
    }
    let mut all = vec![x];
    all.extend(args);
    apply(fg, Arc::new(Subtensor::new(list)?), &all)
}

/// A `Subtensor` node's source and entries over all of the source's axes.
fn subtensor_entries(fg: &FunctionGraph, node: NodeId) -> Option<(VarId, Vec<Idx>)> {
    let op = op_as::<Subtensor>(fg, node)?;
    let ins = &fg.graph().node(node).inputs;
    let ndim = tensor_type(fg, ins[0])?.ndim();
    Some((ins[0], decode(&op.idx_list, &ins[1..], ndim)))
}

/// A stop at or past any length (NumPy clips it): `sys.maxsize`-like.
const TO_THE_END: i64 = 1 << 62;

/// The slice with the bounds that change nothing on axis `d` of `x`
/// removed: a step of 1, a start of 0, a stop at the axis' length.
pub(super) fn simplified(fg: &mut FunctionGraph, x: VarId, d: usize, e: Idx) -> Result<Idx> {
    let Idx::Slice([start, stop, step]) = e else {
        return Ok(e);
    };
    let step_val = step.map(|s| constant_int(fg, s));
    let step = step.filter(|_| step_val != Some(Some(1)));
    let forward = step.is_none();
    let start = start.filter(|&s| !(forward && constant_int(fg, s) == Some(0)));
    let fixed = tensor_type(fg, x)
        .and_then(|t| t.shape[d])
        .map(|n| n as i64);
    let mut stop_is_end = |s: VarId| -> Result<bool> {
        let c = constant_int(fg, s);
        Ok(
            c.is_some_and(|c| c >= TO_THE_END || fixed.is_some_and(|n| c >= n))
                || is_length_of(fg, s, x, d)?,
        )
    };
    let stop = match stop {
        Some(s) if forward && stop_is_end(s)? => None,
        other => other,
    };
    Ok(Idx::Slice([start, stop, step]))
}

fn local_useless_slice(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((x, entries)) = subtensor_entries(fg, node) else {
        return Ok(None);
    };
    let mut new = Vec::with_capacity(entries.len());
    for (d, &e) in entries.iter().enumerate() {
        new.push(simplified(fg, x, d, e)?);
    }
    let op = op_as::<Subtensor>(fg, node).map(|o| o.idx_list.clone());
    if new == entries && op.map(|l| l.len()) == Some(encode(&new).0.len()) {
        return Ok(None);
    }
    Ok(Some(Rewrite::one(subtensor(fg, x, &new)?)))
}

fn local_useless_subtensor(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((x, entries)) = subtensor_entries(fg, node) else {
        return Ok(None);
    };
    for (d, &e) in entries.iter().enumerate() {
        if simplified(fg, x, d, e)? != FULL {
            return Ok(None);
        }
    }
    Ok(Some(Rewrite::one(x)))
}

/// A constant bound that is absent or non-negative.
fn plain(fg: &FunctionGraph, v: Option<VarId>) -> Option<Option<i64>> {
    match v {
        None => Some(None),
        Some(v) => constant_int(fg, v).filter(|&c| c >= 0).map(Some),
    }
}

/// `outer` applied to the result of the slice `inner`, as one entry; only
/// for bounds where the composition is exact (non-negative constants, no
/// step). `None` when it cannot be done.
fn compose(fg: &mut FunctionGraph, inner: Idx, outer: Idx) -> Option<Idx> {
    if inner == FULL || outer == FULL {
        return Some(if inner == FULL { outer } else { inner });
    }
    let Idx::Slice([a, b, None]) = inner else {
        return None;
    };
    let (a, b) = (plain(fg, a)?.unwrap_or(0), plain(fg, b)?);
    let k = |fg: &mut FunctionGraph, n: i64| dim_constant(fg.graph_mut(), n);
    match outer {
        Idx::Int(c) => {
            let c = constant_int(fg, c).filter(|&c| c >= 0)?;
            // `x[a:b][c]` exists exactly when `x[a + c]` does and `a + c < b`.
            (b.is_none_or(|b| a + c < b)).then(|| Idx::Int(k(fg, a + c)))
        }
        Idx::Slice([a2, b2, None]) => {
            let (a2, b2) = (plain(fg, a2)?.unwrap_or(0), plain(fg, b2)?);
            let stop = match (b, b2) {
                (None, None) => None,
                (Some(b), None) => Some(b),
                (None, Some(b2)) => Some(a + b2),
                (Some(b), Some(b2)) => Some(b.min(a + b2)),
            };
            let start = k(fg, a + a2);
            Some(Idx::Slice([Some(start), stop.map(|s| k(fg, s)), None]))
        }
        Idx::Slice(_) => None,
    }
}

/// `x[inner][outer] -> x[merged]`; `integer` selects the cases where an
/// integer of `outer` lands in a bounded slice of `inner` (the two
/// PyTensor rewrites), the others are the slice merges.
fn merge(fg: &mut FunctionGraph, node: NodeId, integer: bool) -> Result<Option<Rewrite>> {
    let Some((y, outer)) = subtensor_entries(fg, node) else {
        return Ok(None);
    };
    let Some(inner_node) = fg.graph().var(y).owner() else {
        return Ok(None);
    };
    let Some((x, inner)) = subtensor_entries(fg, inner_node) else {
        return Ok(None);
    };
    let mut outer = outer.into_iter();
    let (mut merged, mut int_into_slice) = (Vec::with_capacity(inner.len()), false);
    for e in inner {
        if let Idx::Int(_) = e {
            merged.push(e);
            continue;
        }
        let o = outer.next().unwrap_or(FULL);
        int_into_slice |= matches!(o, Idx::Int(_)) && e != FULL;
        let Some(m) = compose(fg, e, o) else {
            return Ok(None);
        };
        merged.push(m);
    }
    if int_into_slice != integer {
        return Ok(None);
    }
    Ok(Some(Rewrite::one(subtensor(fg, x, &merged)?)))
}

/// An element of a `MakeVector` in the vector's dtype.
fn element(fg: &mut FunctionGraph, elements: &[VarId], i: usize, out: VarId) -> Result<VarId> {
    let dtype = tensor_type(fg, out).map_or(crate::dtype::DType::Int64, |t| t.dtype);
    cast_to(fg, elements[i], dtype)
}

/// `MakeVector` of the chosen elements (a constant when there are none).
fn pick(fg: &mut FunctionGraph, mv: NodeId, chosen: &[usize]) -> Result<VarId> {
    let Some(op) = op_as::<MakeVector>(fg, mv).cloned() else {
        return Ok(fg.graph().node(mv).outputs[0]);
    };
    let elements = inputs(fg, mv);
    if chosen.is_empty() {
        let empty = crate::kernels::elemwise::cast::cast(
            &Tensor::from_vec(vec![0], Vec::<i64>::new())?,
            op.dtype,
        )?;
        return Ok(fg.graph_mut().tensor_constant(empty));
    }
    let args: Vec<VarId> = chosen.iter().map(|&i| elements[i]).collect();
    fg.graph_mut().apply_out(Arc::new(op), &args)
}

fn local_subtensor_make_vector(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    let Some((mv, _)) = owner_as::<MakeVector>(fg, ins[0]) else {
        return Ok(None);
    };
    let elements = inputs(fg, mv);
    let n = elements.len() as i64;
    let wrap = |i: i64| {
        (-n..n)
            .contains(&i)
            .then(|| i.rem_euclid(n.max(1)) as usize)
    };
    let out = output(fg, node);
    let new = if op_as::<AdvancedSubtensor1>(fg, node).is_some() {
        let Some(list) = constant_ints(fg, ins[1]) else {
            return Ok(None);
        };
        let Some(chosen) = list.into_iter().map(wrap).collect::<Option<Vec<_>>>() else {
            return Ok(None);
        };
        pick(fg, mv, &chosen)?
    } else {
        match subtensor_entries(fg, node).map(|(_, e)| e).as_deref() {
            Some(&[Idx::Int(i)]) => match constant_int(fg, i).and_then(wrap) {
                Some(i) => element(fg, &elements, i, out)?,
                None => return Ok(None),
            },
            Some(&[Idx::Slice(bounds)]) => {
                let values: Option<Vec<Option<i64>>> = bounds
                    .iter()
                    .map(|b| match b {
                        None => Some(None),
                        Some(v) => constant_int(fg, *v).map(Some),
                    })
                    .collect();
                let Some([a, b, c]) = values.as_deref() else {
                    return Ok(None);
                };
                let Ok(r) = resolve_slice(n as usize, *a, *b, *c) else {
                    return Ok(None);
                };
                let chosen: Vec<usize> = (0..r.count)
                    .map(|k| (r.start as isize + k as isize * r.step) as usize)
                    .collect();
                pick(fg, mv, &chosen)?
            }
            _ => return Ok(None),
        }
    };
    Ok(Some(Rewrite::one(new)))
}

/// Whether index `i` is a constant inside `-n..n` for a constant length `n`.
fn known_in_bounds(fg: &FunctionGraph, i: VarId, n: VarId) -> bool {
    match (constant_int(fg, i), constant_int(fg, n)) {
        (Some(i), Some(n)) => (-n..n).contains(&i),
        _ => false,
    }
}

fn local_subtensor_of_alloc(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((a, entries)) = subtensor_entries(fg, node) else {
        return Ok(None);
    };
    let Some((alloc, _)) = owner_as::<Alloc>(fg, a) else {
        return Ok(None);
    };
    if !single_client(fg, a) {
        return Ok(None);
    }
    let value = inputs(fg, alloc)[0];
    let Some(vty) = tensor_type(fg, value).cloned() else {
        return Ok(None);
    };
    let pad = entries.len() - vty.ndim();
    // An integer on an axis the value does not have (added or broadcast by
    // the `Alloc`) is checked against nothing once the `Alloc` is gone:
    // only one that is known to be in bounds may go.
    let dims = inputs(fg, alloc)[1..].to_vec();
    let unchecked = entries.iter().zip(&dims).enumerate().any(|(k, (&e, &d))| {
        let own = k >= pad && vty.shape[k - pad] != Some(1);
        matches!(e, Idx::Int(i) if !own && !known_in_bounds(fg, i, d))
    });
    if unchecked {
        return Ok(None);
    }
    // The value's own axes take the same index, except where it is
    // broadcast (static 1): there any integer is its element 0, and a
    // slice keeps its one element for the `Alloc` to stretch.
    let mut value_entries = Vec::with_capacity(vty.ndim());
    for (j, &e) in entries[pad..].iter().enumerate() {
        value_entries.push(match (vty.shape[j] == Some(1), e) {
            (false, e) => e,
            (true, Idx::Int(_)) => Idx::Int(dim_constant(fg.graph_mut(), 0)),
            (true, Idx::Slice(_)) => FULL,
        });
    }
    let sub = subtensor(fg, value, &value_entries)?;
    let out = output(fg, node);
    let bcast = |fg: &FunctionGraph, v: VarId| tensor_type(fg, v).map(|t| t.broadcastable());
    if bcast(fg, sub) == bcast(fg, out) {
        // Nothing left to broadcast: the `Alloc` checked that the value's
        // lengths were its own, and the index took the same of both.
        return Ok(Some(Rewrite::one(sub)));
    }
    let dims = shape_of(fg, out)?;
    let mut args = vec![sub];
    args.extend(dims);
    Ok(Some(Rewrite::one(apply(fg, Arc::new(Alloc), &args)?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, check_prints, input, printed, Case};
    use super::super::util::typed_apply;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::ops::shape::ShapeI;
    use crate::ops::subtensor::Subtensor;
    use crate::tensor::index::IdxEntry::{self, Index, Slice};
    use crate::tensor::Tensor;

    use std::sync::Arc;

    fn index(g: &mut Graph, x: VarId, list: Vec<IdxEntry>, idx: &[VarId]) -> VarId {
        let mut args = vec![x];
        args.extend_from_slice(idx);
        typed_apply(g, Arc::new(Subtensor::new(list).unwrap()), &args).unwrap()
    }

    fn int(g: &mut Graph, v: i64) -> VarId {
        g.tensor_constant(Tensor::scalar(v))
    }

    const FROM: IdxEntry = Slice {
        start: Some(0),
        stop: None,
        step: None,
    };
    const FROM_TO: IdxEntry = Slice {
        start: Some(0),
        stop: Some(1),
        step: None,
    };
    const FROM_TO_2: IdxEntry = Slice {
        start: Some(2),
        stop: Some(3),
        step: None,
    };

    #[test]
    fn useless_slices_and_indices_of_indices() {
        let mut g = Graph::new();
        let x = input(&mut g, DType::Int32, &[None, Some(4)], "x");
        let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[x]).unwrap();
        let (zero, one, two, five, six) = (
            int(&mut g, 0),
            int(&mut g, 1),
            int(&mut g, 2),
            int(&mut g, 5),
            int(&mut g, 6),
        );
        let all = index(&mut g, x, vec![FROM_TO, FROM_TO_2], &[zero, n, zero, six]);
        let tail = index(&mut g, x, vec![IdxEntry::FULL, FROM], &[one]);
        let from_two = index(&mut g, tail, vec![IdxEntry::FULL, Index(0)], &[two]);
        let window = index(&mut g, x, vec![FROM_TO], &[one, five]);
        let inner = index(&mut g, window, vec![FROM_TO], &[one, two]);
        let case = Case::new(g, vec![x], vec![all, from_two, inner]);
        let args = [Tensor::from_vec(vec![4, 4], (0..16).collect::<Vec<i32>>()).unwrap()];
        check_prints(&case, &["canonicalize"], &args, 0.0, "x [id A]\nSubtensor{:, i} [id B]\n ├─ x [id A]\n └─ 3 [id C]\nSubtensor{start:stop} [id D]\n ├─ x [id A]\n ├─ 2 [id E]\n └─ 3 [id C]\n");
    }

    #[test]
    fn reversed_and_negative_bounds_stay() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let (minus_one, minus_two) = (int(&mut g, -1), int(&mut g, -2));
        let rev = index(
            &mut g,
            x,
            vec![Slice {
                start: None,
                stop: None,
                step: Some(0),
            }],
            &[minus_one],
        );
        let last = index(&mut g, rev, vec![Index(0)], &[minus_two]);
        let case = Case::new(g, vec![x], vec![rev, last]);
        let args = [Tensor::from_vec(vec![3], vec![1.0, 2.0, 3.0]).unwrap()];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Subtensor{::step} [id A]\n ├─ x [id B]\n └─ -1 [id C]\nSubtensor{i} [id D]\n ├─ Subtensor{::step} [id A]\n │  └─ ···\n └─ -2 [id E]\n");
    }

    #[test]
    fn indexing_a_make_vector_or_an_alloc() {
        let (mut g, [a, b, c]) = graph_with([
            ("a", DType::Int64, 0),
            ("b", DType::Int64, 0),
            ("c", DType::Int64, 0),
        ]);
        let mv = g
            .apply_out(
                Arc::new(crate::ops::make_vector::MakeVector {
                    dtype: DType::Int64,
                }),
                &[a, b, c],
            )
            .unwrap();
        let (one, two, minus_one) = (int(&mut g, 1), int(&mut g, 2), int(&mut g, -1));
        let second = index(&mut g, mv, vec![Index(0)], &[minus_one]);
        let odd = index(
            &mut g,
            mv,
            vec![Slice {
                start: None,
                stop: None,
                step: Some(0),
            }],
            &[two],
        );
        let v = input(&mut g, DType::Float32, &[None], "v");
        let n = g.apply_out(Arc::new(ShapeI { i: 0 }), &[v]).unwrap();
        let filled =
            crate::ops::known::apply_out(&mut g, Arc::new(crate::ops::alloc::Alloc), &[v, two, n])
                .unwrap();
        let row = index(
            &mut g,
            filled,
            vec![
                Index(0),
                Slice {
                    start: Some(1),
                    stop: None,
                    step: None,
                },
            ],
            &[one, one],
        );
        let case = Case::new(g, vec![a, b, c, v], vec![second, odd, row]);
        let args = [
            Tensor::scalar(7i64),
            Tensor::scalar(-8i64),
            Tensor::scalar(9i64),
            Tensor::from_vec(vec![3], vec![0.5f32, 1.5, 2.5]).unwrap(),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "c [id A]\nMakeVector{dtype='int64'} [id B]\n ├─ a [id C]\n └─ c [id A]\nSubtensor{start:} [id D]\n ├─ v [id E]\n └─ 1 [id F]\n");
    }

    /// An index into an axis the `Alloc` made, of a length not known to
    /// hold it, stays: without the `Alloc` nothing would check it.
    #[test]
    fn an_index_into_an_alloc_of_unknown_length_stays() {
        let (mut g, [v, rows]) = graph_with([("v", DType::Float64, 0), ("rows", DType::Int64, 0)]);
        let zero = int(&mut g, 0);
        let filled =
            crate::ops::known::apply_out(&mut g, Arc::new(crate::ops::alloc::Alloc), &[v, rows])
                .unwrap();
        let first = index(&mut g, filled, vec![Index(0)], &[zero]);
        let case = Case::new(g, vec![v, rows], vec![first]);
        let args = [Tensor::scalar(1.5f64), Tensor::scalar(3i64)];
        let fg = check(&case, &["canonicalize"], &args, 0.0);
        assert!(printed(&fg).contains("Alloc"), "{}", printed(&fg));
    }
}
