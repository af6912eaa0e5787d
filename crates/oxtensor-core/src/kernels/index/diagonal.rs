//! `FillDiagonal`'s and `FillDiagonalOffset`'s loop: a copy of the input
//! with one value written at each position of a diagonal. The positions
//! are C-order element numbers, so the write is the same for every dtype
//! (the value's bytes copied into the copy's bytes).

use crate::error::{Error, Result};
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast::cast;
use crate::tensor::Tensor;

/// The C-order positions of the main diagonal of `shape` (at least 2-d):
/// `(i, i, ..., i)` for `i` below the shortest axis.
pub fn main_diagonal(shape: &[usize]) -> Vec<usize> {
    let n = shape.iter().copied().min().unwrap_or(0);
    // Moving one step along every axis at once moves this many elements.
    let mut step = 0usize;
    let mut stride = 1usize;
    for &len in shape.iter().rev() {
        step += stride;
        stride *= len;
    }
    (0..n).map(|i| i * step).collect()
}

/// The C-order positions of diagonal `offset` of a `rows x cols` matrix
/// (above the main one for a positive offset, below it for a negative one).
pub fn offset_diagonal(rows: usize, cols: usize, offset: i64) -> Vec<usize> {
    let k = usize::try_from(offset.unsigned_abs()).unwrap_or(usize::MAX);
    if offset >= 0 {
        let n = rows.min(cols.saturating_sub(k));
        (0..n).map(|i| i * cols + i + k).collect()
    } else {
        let n = rows.saturating_sub(k).min(cols);
        (0..n).map(|i| (i + k) * cols + i).collect()
    }
}

/// `x` (any layout) with `value` (a 0-d tensor, cast to `x`'s dtype)
/// written at the C-order `positions`, as a new C-contiguous tensor.
pub fn fill_positions(x: &Tensor, value: &Tensor, positions: &[usize]) -> Result<Tensor> {
    if value.ndim() != 0 {
        return Err(Error::Type(format!(
            "the fill value must be a scalar, got shape {:?}",
            value.shape()
        )));
    }
    let item = to_contiguous(&cast(value, x.dtype())?)?.to_c_bytes()?;
    let size = item.len();
    let mut bytes = x.to_c_bytes()?;
    for &p in positions {
        let at = p * size;
        let slot = bytes.get_mut(at..at + size).ok_or_else(|| {
            Error::Index(format!(
                "diagonal position {p} is outside shape {:?}",
                x.shape()
            ))
        })?;
        slot.copy_from_slice(&item);
    }
    Tensor::from_bytes(x.dtype(), x.shape().to_vec(), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_positions() {
        assert_eq!(main_diagonal(&[3, 3]), vec![0, 4, 8]);
        assert_eq!(main_diagonal(&[2, 4]), vec![0, 5]);
        assert_eq!(main_diagonal(&[3, 2]), vec![0, 3]);
        assert_eq!(main_diagonal(&[2, 2, 2]), vec![0, 7]);
        // (rows, cols, offset) => positions
        let cases: &[(usize, usize, i64, &[usize])] = &[
            (3, 4, 1, &[1, 6, 11]),
            (3, 4, -1, &[4, 9]),
            (4, 3, -1, &[3, 7, 11]),
            (3, 3, 3, &[]),
            (3, 3, -5, &[]),
            (5, 8, 4, &[4, 13, 22, 31]),
        ];
        for &(r, c, k, want) in cases {
            assert_eq!(offset_diagonal(r, c, k), want, "{r}x{c} offset {k}");
        }
    }

    #[test]
    fn fills_a_copy_in_the_input_dtype() {
        let x = Tensor::from_vec(vec![2, 3], vec![0i32; 6]).unwrap();
        let v = Tensor::scalar(7.9f64);
        let out = fill_positions(&x, &v, &main_diagonal(&[2, 3])).unwrap();
        let want = Tensor::from_vec(vec![2, 3], vec![7i32, 0, 0, 0, 7, 0]).unwrap();
        assert!(out.same_values(&want));
        let zeros = Tensor::from_vec(vec![2, 3], vec![0i32; 6]).unwrap();
        assert!(x.same_values(&zeros));
        let v = Tensor::from_vec(vec![1], vec![1.0f64]).unwrap();
        assert!(fill_positions(&x, &v, &[0]).is_err());
    }
}
