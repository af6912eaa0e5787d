//! Checked size arithmetic: the one place where element counts, byte sizes,
//! strides and offsets are computed from lengths that user data chose
//! (argument shapes, `reshape`/`alloc`/`eye`/`repeat`/`tile`/`arange`
//! arguments, broadcasting, slicing, joins). Every tensor is built through
//! it, so a tensor that exists spans at most [`MAX_BYTES`] and has at most
//! as many elements (NumPy's invariant): a kernel's products and sums over
//! its shape and strides cannot overflow.

use super::{Dims, Strides};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::types::fmt_tuple;
use smallvec::SmallVec;

/// The most bytes (and so elements) an array may have: allocations and
/// pointer offsets are limited to `isize::MAX` in Rust, as `intp` is in NumPy.
pub const MAX_BYTES: usize = isize::MAX as usize;

/// `shape` as Python prints it: `(3,)`, `(2, 4)`.
pub fn fmt_shape(shape: &[usize]) -> String {
    fmt_tuple(shape.iter().map(usize::to_string))
}

/// `unit` times the product of the non-zero lengths, if at most
/// [`MAX_BYTES`]. Zeros are skipped as NumPy skips them: `(0, 2**62, 2**62)`
/// is refused, so any product over part of an accepted shape fits.
fn nonzero_product(unit: usize, shape: &[usize]) -> Option<usize> {
    shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(unit, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= MAX_BYTES)
}

/// The number of elements of `shape`, or a `MemoryError` when it could
/// never be held (more than [`MAX_BYTES`] elements).
pub fn size(shape: &[usize]) -> Result<usize> {
    match nonzero_product(1, shape) {
        Some(_) if shape.contains(&0) => Ok(0),
        Some(n) => Ok(n),
        None => Err(Error::Memory(format!(
            "array is too big: shape {} has more than 2**63 - 1 elements",
            fmt_shape(shape)
        ))),
    }
}

/// The bytes an array of `dtype` and `shape` needs, or a `MemoryError`
/// when that is more than [`MAX_BYTES`] (NumPy's "array is too big").
pub fn nbytes(dtype: DType, shape: &[usize]) -> Result<usize> {
    match nonzero_product(dtype.itemsize(), shape) {
        Some(_) if shape.contains(&0) => Ok(0),
        Some(n) => Ok(n),
        None => Err(Error::Memory(format!(
            "array is too big: an array of shape {} and data type {dtype} needs more than \
             2**63 - 1 bytes",
            fmt_shape(shape)
        ))),
    }
}

/// A length that is the sum of `lens` (a join's or a repeat's output
/// axis), or a `MemoryError` naming `what` when it exceeds [`MAX_BYTES`].
pub fn sum(lens: impl IntoIterator<Item = usize>, what: &str) -> Result<usize> {
    lens.into_iter()
        .try_fold(0usize, |acc, n| acc.checked_add(n))
        .filter(|&n| n <= MAX_BYTES)
        .ok_or_else(|| Error::Memory(format!("{what}: the lengths add up to more than 2**63 - 1")))
}

/// `a * b` for two lengths, or a `MemoryError` naming `what` when the
/// product exceeds [`MAX_BYTES`].
pub fn mul(a: usize, b: usize, what: &str) -> Result<usize> {
    a.checked_mul(b)
        .filter(|&n| n <= MAX_BYTES)
        .ok_or_else(|| Error::Memory(format!("{what}: {a} * {b} is more than 2**63 - 1")))
}

/// A length given as an integer (a shape entry, a count), refusing
/// negatives with NumPy's message.
pub fn dim(value: i64) -> Result<usize> {
    usize::try_from(value)
        .map_err(|_| Error::Value(format!("negative dimensions are not allowed, got {value}")))
}

/// C-order byte strides for a shape that [`nbytes`] accepted (every stride
/// is then at most the array's byte size; saturating, never wrapping, for
/// any other shape, which no tensor can have).
pub fn c_strides(dtype: DType, shape: &[usize]) -> Strides {
    let mut strides: Strides = SmallVec::from_elem(0, shape.len());
    let mut step = dtype.itemsize() as isize;
    for (s, &n) in strides.iter_mut().zip(shape).rev() {
        *s = step;
        step = step.saturating_mul(n.max(1) as isize);
    }
    strides
}

/// The first and one-past-last byte that a non-empty layout touches,
/// relative to the buffer's start; `None` when a length or a stride is so
/// large that the span does not fit an `isize` (no buffer holds it).
pub fn extent(
    itemsize: usize,
    shape: &[usize],
    strides: &[isize],
    offset: usize,
) -> Option<(isize, isize)> {
    let mut lo = isize::try_from(offset).ok()?;
    let mut hi = lo.checked_add(itemsize as isize)?;
    for (&n, &s) in shape.iter().zip(strides) {
        let span = isize::try_from(n.checked_sub(1)?).ok()?.checked_mul(s)?;
        if span < 0 {
            lo = lo.checked_add(span)?;
        } else {
            hi = hi.checked_add(span)?;
        }
    }
    Some((lo, hi))
}

/// NumPy's `MemoryError` for an allocation the system refused: "Unable to
/// allocate 8.00 TiB for an array with shape (1099511627776,) and data
/// type float64".
pub fn allocation_failed(dtype: DType, shape: &[usize], bytes: usize) -> Error {
    Error::Memory(format!(
        "Unable to allocate {} for an array with shape {} and data type {dtype}",
        human_bytes(bytes),
        fmt_shape(shape)
    ))
}

/// A byte count with three significant figures, as NumPy prints it.
fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let digits = match value {
        v if v < 10.0 => 2,
        v if v < 100.0 => 1,
        _ => 0,
    };
    format!("{value:.digits$} {}", UNITS[unit])
}

/// A shape's lengths as [`Dims`], each checked by [`dim`] and the whole by
/// [`size`]: a shape read from user integers (`alloc`, `reshape`).
pub fn dims_from_ints(values: &[i64]) -> Result<Dims> {
    let dims = values.iter().map(|&v| dim(v)).collect::<Result<Dims>>()?;
    size(&dims)?;
    Ok(dims)
}

/// An empty `Vec` with room for `n` items, `n` a length from user data
/// (index arrays broadcast from zero-stride views, batches of matrices):
/// a `MemoryError` where `Vec::with_capacity` would abort.
pub fn reserved_vec<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        Error::Memory(format!(
            "Unable to allocate {} for {n} items",
            human_bytes(n.saturating_mul(std::mem::size_of::<T>()))
        ))
    })?;
    Ok(v)
}

/// `vec![value; n]` for a length from user data, as [`reserved_vec`].
pub fn filled_vec<T: Clone>(n: usize, value: T) -> Result<Vec<T>> {
    let mut v = reserved_vec(n)?;
    v.resize(n, value);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_numpys_rule() {
        // (shape, itemsize 8 bytes or None when too big)
        let cases: [(&[usize], Option<usize>); 7] = [
            (&[], Some(8)),
            (&[3, 4], Some(96)),
            (&[0, 1 << 62, 1 << 62], None),
            (&[0, 1 << 40], Some(0)),
            (&[1 << 60], None),
            (&[274177, 67280421310721], None),
            (&[(1 << 60) - 1], Some(((1 << 60) - 1) * 8)),
        ];
        for (shape, want) in cases {
            assert_eq!(nbytes(DType::Float64, shape).ok(), want, "{shape:?}");
        }
        assert_eq!(size(&[1 << 62]).unwrap(), 1 << 62);
        assert!(matches!(size(&[1 << 62, 4]), Err(Error::Memory(_))));
        assert_eq!(
            nbytes(DType::Float64, &[1 << 62]).unwrap_err().to_string(),
            "array is too big: an array of shape (4611686018427387904,) and data type \
             float64 needs more than 2**63 - 1 bytes"
        );
    }

    #[test]
    fn sums_products_and_dims() {
        assert_eq!(sum([1, 2, 3], "Join").unwrap(), 6);
        assert!(sum([1 << 62; 4], "Repeat").is_err());
        assert!(sum([usize::MAX, 1], "Repeat").is_err());
        assert_eq!(mul(3, 4, "tile").unwrap(), 12);
        assert!(mul(4, (1 << 62) + 1, "tile").is_err());
        assert_eq!(dim(5).unwrap(), 5);
        assert!(matches!(dim(-1), Err(Error::Value(_))));
        assert!(dims_from_ints(&[1 << 40, 1 << 40]).is_err());
        assert_eq!(dims_from_ints(&[2, 0]).unwrap().as_slice(), &[2, 0]);
        assert_eq!(filled_vec(3, 7u8).unwrap(), vec![7, 7, 7]);
        assert!(matches!(filled_vec(1 << 62, 0u64), Err(Error::Memory(_))));
    }

    #[test]
    fn extents_are_checked() {
        assert_eq!(extent(8, &[2, 3], &[24, 8], 0), Some((0, 48)));
        assert_eq!(extent(8, &[3], &[-8], 16), Some((0, 24)));
        assert_eq!(extent(8, &[1 << 62], &[8], 0), None);
        assert_eq!(extent(8, &[3], &[isize::MIN], 0), None);
        assert_eq!(extent(8, &[2], &[isize::MIN], 0), Some((isize::MIN, 8)));
        assert_eq!(extent(8, &[0], &[8], 0), None);
        assert_eq!(c_strides(DType::Float32, &[2, 3]).as_slice(), &[12, 4]);
        assert_eq!(c_strides(DType::Float64, &[usize::MAX, 2])[0], 16);
    }

    #[test]
    fn allocation_messages_read_as_numpys() {
        let cases = [
            (100, "100 bytes"),
            (8 << 40, "8.00 TiB"),
            (538243370485768, "490 TiB"),
            (67280421310721, "61.2 TiB"),
            (1 << 62, "4.00 EiB"),
        ];
        for (bytes, want) in cases {
            assert_eq!(human_bytes(bytes), want);
        }
        assert_eq!(
            allocation_failed(DType::Float64, &[1 << 40], 8 << 40).to_string(),
            "Unable to allocate 8.00 TiB for an array with shape (1099511627776,) and data \
             type float64"
        );
    }
}
