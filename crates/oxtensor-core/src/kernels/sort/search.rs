//! `searchsorted`: for each value, where it would go in a sorted vector
//! (through a `sorter` permutation when given) to keep it sorted, by
//! binary search. Both operands are compared in one dtype, their NumPy
//! promotion (floats as float64, integers as int64 or uint64), NaN after
//! every number as in NumPy's sort.

use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast::cast;
use crate::tensor::{Element, Tensor};

/// An element compared in NumPy's sort order.
pub trait Ordered: Element {
    /// `self < other`, NaN after every number.
    fn before(self, other: Self) -> bool;
}

impl Ordered for f64 {
    #[inline]
    fn before(self, other: f64) -> bool {
        self < other || (other.is_nan() && !self.is_nan())
    }
}

macro_rules! ordered_int {
    ($($t:ty),*) => {$(
        impl Ordered for $t {
            #[inline]
            fn before(self, other: $t) -> bool {
                self < other
            }
        }
    )*};
}
ordered_int!(i64, u64);

/// Bool or an unsigned integer: a value that is never negative.
fn unsigned(d: DType) -> bool {
    matches!(d.kind(), Kind::Bool | Kind::UInt)
}

/// The dtype both operands are compared in.
pub fn compare_dtype(a: DType, b: DType) -> Result<DType> {
    if a.is_complex() || b.is_complex() {
        return Err(Error::Type(format!(
            "searchsorted: complex values ({a}, {b}) have no order here"
        )));
    }
    Ok(if a.is_float() || b.is_float() {
        DType::Float64
    } else if unsigned(a) && unsigned(b) {
        DType::UInt64
    } else {
        DType::Int64
    })
}

/// `t`'s values as a vector of `T` (whose dtype `t` is cast to).
pub fn values<T: Element>(t: &Tensor) -> Result<Vec<T>> {
    let c = to_contiguous(&cast(t, T::DTYPE)?)?;
    Ok(c.as_slice::<T>()
        .expect("a contiguous tensor of its dtype")
        .to_vec())
}

/// The insertion points of `vs` in `sorted(i)` for `i < n`: the first `i`
/// whose element is not before the value (`right`: that the value is
/// before). Each search starts from the bounds the previous value's left,
/// as NumPy's `binsearch` does, so that an unsorted `x` gives NumPy's
/// answers too.
fn insertions<T: Ordered>(
    n: usize,
    sorted: impl Fn(usize) -> T,
    vs: &[T],
    right: bool,
) -> Vec<i64> {
    let (mut lo, mut hi) = (0usize, n);
    let mut last = vs.first().copied();
    let mut out = Vec::with_capacity(vs.len());
    for &v in vs {
        if last.is_some_and(|l| l.before(v)) {
            hi = n;
        } else {
            lo = 0;
            hi = if hi < n { hi + 1 } else { n };
        }
        last = Some(v);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let go_right = if right {
                !v.before(sorted(mid))
            } else {
                sorted(mid).before(v)
            };
            if go_right {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        out.push(lo as i64);
    }
    out
}

/// The sorter's entries as positions of `x` (length `n`), checked.
fn permutation(sorter: &Tensor, n: usize) -> Result<Vec<usize>> {
    let order = values::<i64>(sorter)?;
    if order.len() != n {
        return Err(Error::Value(format!(
            "searchsorted: sorter has {} entries for a vector of {n}",
            order.len()
        )));
    }
    order
        .iter()
        .map(|&i| usize::try_from(i).ok().filter(|&i| i < n))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::Value("searchsorted: sorter index out of range".into()))
}

fn search_typed<T: Ordered>(
    x: &Tensor,
    v: &Tensor,
    sorter: Option<&Tensor>,
    right: bool,
) -> Result<Vec<i64>> {
    let xs = values::<T>(x)?;
    let vs = values::<T>(v)?;
    Ok(match sorter {
        Some(s) => {
            let order = permutation(s, xs.len())?;
            insertions(xs.len(), |i| xs[order[i]], &vs, right)
        }
        None => insertions(xs.len(), |i| xs[i], &vs, right),
    })
}

/// NumPy's `searchsorted(x, v, side, sorter)` of a vector `x`: int64
/// insertion points in `v`'s shape (`right`: after equal elements).
pub fn searchsorted(
    x: &Tensor,
    v: &Tensor,
    sorter: Option<&Tensor>,
    right: bool,
) -> Result<Tensor> {
    if x.ndim() != 1 {
        return Err(Error::Value(format!(
            "searchsorted: x must be a vector, got shape {:?}",
            x.shape()
        )));
    }
    let found = match compare_dtype(x.dtype(), v.dtype())? {
        DType::Float64 => search_typed::<f64>(x, v, sorter, right)?,
        DType::UInt64 => search_typed::<u64>(x, v, sorter, right)?,
        _ => search_typed::<i64>(x, v, sorter, right)?,
    };
    Tensor::from_vec(v.shape().to_vec(), found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(t: &Tensor) -> Vec<i64> {
        values::<i64>(t).unwrap()
    }

    #[test]
    fn left_right_and_sorter() {
        let x = Tensor::from_vec(vec![5], vec![1.0f64, 2.0, 2.0, 3.0, f64::NAN]).unwrap();
        let v = Tensor::from_vec(vec![2, 2], vec![2.0f32, 0.5, 9.0, f32::NAN]).unwrap();
        assert_eq!(
            ints(&searchsorted(&x, &v, None, false).unwrap()),
            [1, 0, 4, 4]
        );
        assert_eq!(
            ints(&searchsorted(&x, &v, None, true).unwrap()),
            [3, 0, 4, 5]
        );
        let x = Tensor::from_vec(vec![3], vec![30i32, 10, 20]).unwrap();
        let s = Tensor::from_vec(vec![3], vec![1i8, 2, 0]).unwrap();
        let v = Tensor::from_vec(vec![3], vec![25u8, 5, 30]).unwrap();
        assert_eq!(
            ints(&searchsorted(&x, &v, Some(&s), false).unwrap()),
            [2, 0, 2]
        );
        assert_eq!(
            ints(&searchsorted(&x, &v, Some(&s), true).unwrap()),
            [2, 0, 3]
        );
        let bad = Tensor::from_vec(vec![3], vec![1i8, 2, 3]).unwrap();
        assert!(searchsorted(&x, &v, Some(&bad), false).is_err());
        assert!(searchsorted(&v.view(&[1, 3], &[3, 1], 0).unwrap(), &v, None, false).is_err());
        // An unsorted x: numpy.searchsorted([3, 1, 2], [2, 0, 3], side="right")
        // gives [3, 0, 3] with its search order.
        let x = Tensor::from_vec(vec![3], vec![3i64, 1, 2]).unwrap();
        let v = Tensor::from_vec(vec![3], vec![2i64, 0, 3]).unwrap();
        assert_eq!(ints(&searchsorted(&x, &v, None, true).unwrap()), [3, 0, 3]);
    }
}
