//! Index arithmetic shared by the indexing ops and their kernels: the
//! entries of an `idx_list` (which index input holds an integer, an index
//! array or a slice bound), NumPy's slice resolution against a length, and
//! integer indices wrapped and bounds-checked with NumPy's messages.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Scalar, Tensor};

/// One entry of `idx_list`. Numbers are positions among the index inputs
/// (the node's inputs after the indexed tensor, and after `y` for the
/// increment ops), as in PyTensor's `Subtensor(idx_list=(slice(0, 1, None), 2))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdxEntry {
    /// An integer (basic indexing) or an index array (advanced indexing).
    Index(usize),
    /// A slice whose bounds, when given, are scalar index inputs.
    Slice {
        /// Position of the start input.
        start: Option<usize>,
        /// Position of the stop input.
        stop: Option<usize>,
        /// Position of the step input.
        step: Option<usize>,
    },
}

impl IdxEntry {
    /// The full slice `:`.
    pub const FULL: IdxEntry = IdxEntry::Slice {
        start: None,
        stop: None,
        step: None,
    };
}

/// A slice resolved against a length: the first index, the count and the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// First index taken (0 when the slice is empty).
    pub start: usize,
    /// Number of indices taken.
    pub count: usize,
    /// Step between them.
    pub step: isize,
}

/// NumPy's `slice.indices(len)` and the resulting count. Computed in
/// `i128`: bounds and steps are any `i64` (`x[::-2**63]`), and `-step` or
/// `last - first + step` would overflow `i64`.
pub fn resolve_slice(
    len: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Result<Resolved> {
    let step = i128::from(step.unwrap_or(1));
    if step == 0 {
        return Err(Error::Value("slice step cannot be zero".into()));
    }
    let n = len as i128;
    let clamp = |v: i64, lo: i128, hi: i128| {
        let v = i128::from(v);
        let v = if v < 0 { v + n } else { v };
        v.clamp(lo, hi)
    };
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let first = start.map_or(if step > 0 { 0 } else { n - 1 }, |s| clamp(s, lo, hi));
    let last = stop.map_or(if step > 0 { n } else { -1 }, |s| clamp(s, lo, hi));
    let count = if step > 0 {
        (last - first + step - 1).div_euclid(step).max(0)
    } else {
        (first - last - step - 1).div_euclid(-step).max(0)
    };
    // `0 <= count <= len` and, when `count > 0`, `0 <= first < len`; a
    // step past `isize` takes one element, so any stride stands for it.
    Ok(Resolved {
        start: if count == 0 { 0 } else { first as usize },
        count: count as usize,
        step: if count > 1 {
            step as isize
        } else {
            step.signum() as isize
        },
    })
}

/// An integer index wrapped against `len` (NumPy's message when out of bounds).
pub fn wrap_index(i: i64, len: usize, axis: usize) -> Result<usize> {
    let n = len as i128;
    let j = if i < 0 {
        i128::from(i) + n
    } else {
        i128::from(i)
    };
    if j < 0 || j >= n {
        return Err(out_of_bounds(i, len, axis));
    }
    Ok(j as usize)
}

/// NumPy's error for index `i` outside an axis of `len` elements.
pub fn out_of_bounds(i: i64, len: usize, axis: usize) -> Error {
    Error::Index(format!(
        "index {i} is out of bounds for axis {axis} with size {len}"
    ))
}

/// What a constant index input tells of the output's static shape: a
/// scalar integer's value, or a boolean mask's number of `true`s (the
/// length of the axis it selects). `None` for anything else.
pub fn index_constant(t: &Tensor) -> Option<i64> {
    match t.dtype() {
        DType::Bool if t.ndim() > 0 => {
            let trues = (0..t.len()).filter(|&i| t.get(i) == Scalar::Bool(true));
            i64::try_from(trues.count()).ok()
        }
        d if d.is_integer() && t.ndim() == 0 => scalar_index(t).ok(),
        _ => None,
    }
}

/// The value of a 0-d integer index input.
pub fn scalar_index(t: &Tensor) -> Result<i64> {
    if t.ndim() != 0 {
        return Err(Error::Type(format!(
            "a scalar index must be 0-d, got shape {:?}",
            t.shape()
        )));
    }
    match t.get(0) {
        Scalar::Int(v) => Ok(v),
        Scalar::UInt(v) => {
            i64::try_from(v).map_err(|_| Error::Index(format!("index {v} is too large for int64")))
        }
        other => Err(Error::Type(format!(
            "indices must be integers, got {other:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_indices_give_a_value_or_a_count_of_trues() {
        let mask = Tensor::from_vec(vec![2, 2], vec![true, false, true, true]).unwrap();
        assert_eq!(index_constant(&mask), Some(3));
        let empty = Tensor::from_vec(vec![0], Vec::<bool>::new()).unwrap();
        assert_eq!(index_constant(&empty), Some(0));
        assert_eq!(index_constant(&Tensor::scalar(-2i32)), Some(-2));
        assert_eq!(index_constant(&Tensor::scalar(true)), None);
        let ints = Tensor::from_vec(vec![2], vec![1i64, 2]).unwrap();
        assert_eq!(index_constant(&ints), None);
        assert_eq!(index_constant(&Tensor::scalar(1.5f64)), None);
    }

    /// Length, start, stop, step, and the indices NumPy takes.
    type SliceCase = (usize, Option<i64>, Option<i64>, Option<i64>, Vec<usize>);

    #[test]
    fn slices_follow_numpy() {
        let cases: &[SliceCase] = &[
            (5, None, None, None, vec![0, 1, 2, 3, 4]),
            (5, Some(1), None, Some(2), vec![1, 3]),
            (5, None, None, Some(-1), vec![4, 3, 2, 1, 0]),
            (5, Some(-2), None, None, vec![3, 4]),
            (5, Some(10), None, None, vec![]),
            (5, Some(3), Some(1), Some(-1), vec![3, 2]),
            (5, Some(-10), Some(-1), Some(2), vec![0, 2]),
            (0, None, None, Some(-1), vec![]),
            (5, Some(1), Some(-1), Some(-1), vec![]),
        ];
        for (len, a, b, c, want) in cases {
            let r = resolve_slice(*len, *a, *b, *c).unwrap();
            let got: Vec<usize> = (0..r.count)
                .map(|k| (r.start as isize + k as isize * r.step) as usize)
                .collect();
            assert_eq!(&got, want, "{len} {a:?}:{b:?}:{c:?}");
        }
        assert!(resolve_slice(3, None, None, Some(0)).is_err());
    }

    #[test]
    fn indices_wrap_as_numpy() {
        assert_eq!(wrap_index(-1, 3, 0).unwrap(), 2);
        assert_eq!(
            wrap_index(3, 3, 1).unwrap_err().to_string(),
            "index 3 is out of bounds for axis 1 with size 3"
        );
    }
}
