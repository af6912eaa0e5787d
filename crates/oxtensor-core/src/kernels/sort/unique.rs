//! `unique`: the sorted distinct elements of a tensor (or distinct slices
//! along an axis, compared in lexicographic order), with where each first
//! occurs, which one each input element is, and how often each occurs.
//! Slices are compared through their values promoted as `searchsorted`
//! does (NaNs equal to each other, after every number), and copied out as
//! bytes, so every real dtype takes the same path.

use super::search::{values, Ordered};
use crate::dtype::Kind;
use crate::error::{Error, Result};
use crate::kernels::copy::to_contiguous;
use crate::tensor::Tensor;
use std::cmp::Ordering;

/// What `unique` finds: the distinct values (a tensor of the input's
/// dtype) and, as int64 lists, the first position of each, the distinct
/// value of each input slice, and each one's count.
pub struct Uniques {
    /// The distinct elements (flat) or slices (along the axis), sorted.
    pub values: Tensor,
    /// The position in the input of each distinct one's first occurrence.
    pub index: Vec<i64>,
    /// For each input element (slice), the position of its distinct one.
    pub inverse: Vec<i64>,
    /// How many times each distinct one occurs.
    pub counts: Vec<i64>,
}

/// `x` with `axis` moved first, C-contiguous.
fn axis_first(x: &Tensor, axis: usize) -> Result<Tensor> {
    let mut shape = x.shape().to_vec();
    let mut strides = x.strides().to_vec();
    let (n, s) = (shape.remove(axis), strides.remove(axis));
    shape.insert(0, n);
    strides.insert(0, s);
    to_contiguous(&x.view(&shape, &strides, x.offset())?)
}

/// The inverse of [`axis_first`]: `moved`'s first axis put back at `axis`.
fn axis_back(moved: &Tensor, axis: usize) -> Result<Tensor> {
    let mut shape = moved.shape().to_vec();
    let mut strides = moved.strides().to_vec();
    let (n, s) = (shape.remove(0), strides.remove(0));
    shape.insert(axis, n);
    strides.insert(axis, s);
    to_contiguous(&moved.view(&shape, &strides, moved.offset())?)
}

/// Row `a` against row `b` of `keys` (rows of `width`), lexicographically.
fn compare_rows<T: Ordered>(keys: &[T], width: usize, a: usize, b: usize) -> Ordering {
    let (ra, rb) = (&keys[a * width..][..width], &keys[b * width..][..width]);
    for (&p, &q) in ra.iter().zip(rb) {
        if p.before(q) {
            return Ordering::Less;
        }
        if q.before(p) {
            return Ordering::Greater;
        }
    }
    Ordering::Equal
}

/// The distinct rows of `keys` in sorted order: for each, its first row;
/// for each row, its distinct row's number; and each one's count.
fn group_rows<T: Ordered>(keys: &[T], rows: usize, width: usize) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let mut order: Vec<usize> = (0..rows).collect();
    // Stable: the first of equal rows is the one that comes first in `x`.
    order.sort_by(|&a, &b| compare_rows(keys, width, a, b));
    let (mut index, mut inverse, mut counts) = (Vec::new(), vec![0i64; rows], Vec::new());
    for (k, &r) in order.iter().enumerate() {
        let new = k == 0 || compare_rows(keys, width, order[k - 1], r) != Ordering::Equal;
        if new {
            index.push(r as i64);
            counts.push(0);
        }
        inverse[r] = index.len() as i64 - 1;
        *counts.last_mut().expect("a group was opened") += 1;
    }
    (index, inverse, counts)
}

/// NumPy's `unique(x, return_index=True, return_inverse=True,
/// return_counts=True, axis=axis)`, with the inverse flat (NumPy 1's form).
pub fn unique(x: &Tensor, axis: Option<usize>) -> Result<Uniques> {
    let moved = match axis {
        Some(a) => axis_first(x, a)?,
        None => to_contiguous(x)?.view(&[x.len()], &[x.dtype().itemsize() as isize], 0)?,
    };
    let rows = moved.shape()[0];
    let width = moved.shape()[1..].iter().product::<usize>();
    let (index, inverse, counts) = match x.dtype().kind() {
        Kind::Float => group_rows(&values::<f64>(&moved)?, rows, width),
        Kind::Int => group_rows(&values::<i64>(&moved)?, rows, width),
        Kind::UInt | Kind::Bool => group_rows(&values::<u64>(&moved)?, rows, width),
        Kind::Complex => {
            return Err(Error::Type(format!(
                "unique: complex values ({}) have no order here",
                x.dtype()
            )))
        }
    };
    let row_bytes = width * x.dtype().itemsize();
    let bytes = moved.to_c_bytes()?;
    let mut picked = Vec::with_capacity(index.len() * row_bytes);
    for &r in &index {
        picked.extend_from_slice(&bytes[r as usize * row_bytes..][..row_bytes]);
    }
    let mut shape = moved.shape().to_vec();
    shape[0] = index.len();
    let found = Tensor::from_bytes(x.dtype(), shape, picked)?;
    let values = match axis {
        Some(a) => axis_back(&found, a)?,
        None => found,
    };
    Ok(Uniques {
        values,
        index,
        inverse,
        counts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_along_an_axis() {
        let x = Tensor::from_vec(vec![4], vec![2.0f32, 1.0, 3.0, 2.0]).unwrap();
        let u = unique(&x, None).unwrap();
        let want = Tensor::from_vec(vec![3], vec![1.0f32, 2.0, 3.0]).unwrap();
        assert!(u.values.same_values(&want));
        assert_eq!(
            (u.index, u.inverse, u.counts),
            (vec![1, 0, 2], vec![1, 0, 2, 1], vec![1, 2, 1])
        );
        let m = Tensor::from_vec(vec![3, 2], vec![2i16, 1, 3, 2, 2, 1]).unwrap();
        let u = unique(&m, Some(0)).unwrap();
        let want = Tensor::from_vec(vec![2, 2], vec![2i16, 1, 3, 2]).unwrap();
        assert!(u.values.same_values(&want));
        assert_eq!(
            (u.index, u.inverse, u.counts),
            (vec![0, 1], vec![0, 1, 0], vec![2, 1])
        );
        let u = unique(&m, Some(1)).unwrap();
        let want = Tensor::from_vec(vec![3, 2], vec![1i16, 2, 2, 3, 1, 2]).unwrap();
        assert!(u.values.same_values(&want));
        let nan = Tensor::from_vec(vec![3], vec![f64::NAN, 1.0, f64::NAN]).unwrap();
        assert_eq!(unique(&nan, None).unwrap().counts, vec![1, 2]);
    }
}
