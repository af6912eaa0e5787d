//! `idx_list`, the prop shared by the indexing ops: one entry per indexed
//! axis, naming by position which of the node's index inputs holds an
//! integer (or index array) or a slice bound: its checks, its text forms
//! and static slice lengths. The entries and the runtime arithmetic of
//! slices and integer indices are in [`crate::tensor::index`], below ops
//! and kernels.

use crate::error::{Error, Result};
use crate::tensor::index::{resolve_slice, IdxEntry};
use crate::types::TensorType;

/// How many index inputs the list refers to (the highest position + 1).
pub fn n_index_inputs(idx_list: &[IdxEntry]) -> usize {
    let positions = idx_list.iter().flat_map(|e| match *e {
        IdxEntry::Index(i) => vec![Some(i)],
        IdxEntry::Slice { start, stop, step } => vec![start, stop, step],
    });
    positions.flatten().map(|p| p + 1).max().unwrap_or(0)
}

/// Checks that positions are used once each and count up from 0, in order.
pub fn check_positions(idx_list: &[IdxEntry]) -> Result<()> {
    let mut next = 0;
    let mut visit = |p: Option<usize>| -> Result<()> {
        match p {
            Some(p) if p != next => Err(Error::Value(format!(
                "idx_list {} refers to input {p} where input {next} was expected",
                repr_idx_list(idx_list)
            ))),
            Some(_) => {
                next += 1;
                Ok(())
            }
            None => Ok(()),
        }
    };
    for e in idx_list {
        match *e {
            IdxEntry::Index(i) => visit(Some(i))?,
            IdxEntry::Slice { start, stop, step } => {
                visit(start)?;
                visit(stop)?;
                visit(step)?;
            }
        }
    }
    Ok(())
}

/// PyTensor's `str` of a basic index list: `i, start:stop:step, :`.
pub fn describe_basic(idx_list: &[IdxEntry]) -> String {
    let items: Vec<String> = idx_list
        .iter()
        .map(|e| match *e {
            IdxEntry::Index(_) => "i".to_string(),
            IdxEntry::Slice { start, stop, step } => {
                let mut s = String::new();
                if start.is_some() {
                    s.push_str("start");
                }
                s.push(':');
                if stop.is_some() {
                    s.push_str("stop");
                }
                if step.is_some() {
                    s.push_str(":step");
                }
                s
            }
        })
        .collect();
    items.join(", ")
}

/// The Python `repr` of the list: `(0, slice(1, None, None))`.
pub fn repr_idx_list(idx_list: &[IdxEntry]) -> String {
    let pos = |p: Option<usize>| p.map_or("None".to_string(), |p| p.to_string());
    let items: Vec<String> = idx_list
        .iter()
        .map(|e| match *e {
            IdxEntry::Index(i) => i.to_string(),
            IdxEntry::Slice { start, stop, step } => {
                format!("slice({}, {}, {})", pos(start), pos(stop), pos(step))
            }
        })
        .collect();
    crate::types::fmt_tuple(items)
}

/// Checks that a basic index input is a 0-d integer (PyTensor's message).
pub fn check_scalar_index(ty: &TensorType) -> Result<()> {
    if !ty.dtype.is_integer() || ty.ndim() != 0 {
        return Err(Error::Type(format!(
            "basic indices must be integers (0-d integer tensors), got {ty}"
        )));
    }
    Ok(())
}

/// The static length of `x[slice]` along an axis of static length `len`,
/// when every given bound is a known constant.
pub fn static_slice_len(len: Option<u64>, entry: IdxEntry, consts: &[Option<i64>]) -> Option<u64> {
    let IdxEntry::Slice { start, stop, step } = entry else {
        return None;
    };
    let value = |p: Option<usize>| -> Option<Option<i64>> {
        match p {
            None => Some(None),
            Some(p) => consts.get(p).copied().flatten().map(Some),
        }
    };
    let (start, stop, step) = (value(start)?, value(stop)?, value(step)?);
    if start.is_none() && stop.is_none() && step.is_none_or(|s| s == 1) {
        return len;
    }
    let Some(len) = len else {
        return empty_for_any_length(start, stop, step).then_some(0);
    };
    let r = resolve_slice(len as usize, start, stop, step).ok()?;
    Some(r.count as u64)
}

/// Whether `x[start:stop:step]` is empty whatever the axis' length:
/// bounds of the same sign wrap and clip alike, so a stop not past the
/// start in the step's direction takes nothing (`x[1:1]`, `x[-1:-1:3]`).
fn empty_for_any_length(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> bool {
    let (Some(start), Some(stop)) = (start, stop) else {
        return false;
    };
    if (start < 0) != (stop < 0) {
        return false;
    }
    match step.unwrap_or(1) {
        s if s > 0 => stop <= start,
        s if s < 0 => stop >= start,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_slices_have_length_zero_for_any_length() {
        let entry = IdxEntry::Slice {
            start: Some(0),
            stop: Some(1),
            step: Some(2),
        };
        let len = |c: [i64; 3]| static_slice_len(None, entry, &c.map(Some));
        assert_eq!(len([1, 1, 1]), Some(0));
        assert_eq!(len([-1, -1, 3]), Some(0));
        assert_eq!(len([3, 5, -1]), Some(0));
        assert_eq!(len([1, 4, 1]), None);
        assert_eq!(len([-1, 1, 1]), None);
        // Against NumPy's arithmetic for every length.
        for c in [[1, 1, 1], [-1, -1, 3], [3, 5, -1], [-4, -2, -2], [5, 2, 1]] {
            for n in 0..8usize {
                let r = resolve_slice(n, Some(c[0]), Some(c[1]), Some(c[2])).unwrap();
                if len(c) == Some(0) {
                    assert_eq!(r.count, 0, "{c:?} n={n}");
                }
            }
        }
    }

    #[test]
    fn forms_and_indices() {
        let l = [
            IdxEntry::Slice {
                start: Some(0),
                stop: Some(1),
                step: Some(2),
            },
            IdxEntry::Index(3),
            IdxEntry::FULL,
        ];
        assert_eq!(describe_basic(&l), "start:stop:step, i, :");
        assert_eq!(
            repr_idx_list(&l),
            "(slice(0, 1, 2), 3, slice(None, None, None))"
        );
        assert_eq!(repr_idx_list(&[IdxEntry::Index(0)]), "(0,)");
        assert_eq!(n_index_inputs(&l), 4);
        assert!(check_positions(&l).is_ok());
        assert!(check_positions(&[IdxEntry::Index(1)]).is_err());
    }
}
