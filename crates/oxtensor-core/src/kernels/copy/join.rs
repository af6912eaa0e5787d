//! Copies into regions of a fresh output: the loops behind `Join`, `Alloc`,
//! `Repeat`, `Eye` and `MakeVector`. Each op describes where its pieces go
//! as strided views of the output; `copy_strided` copies a (possibly
//! broadcast) source into such a view, on several threads when large.

use super::copy_strided;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::iter::broadcast_strides;
use crate::tensor::Tensor;

/// A region of `out` (a fresh, writable output): `shape` and byte `strides`
/// starting `offset` bytes after `out`'s first element. Checked to lie
/// inside `out`'s buffer.
pub fn region(out: &Tensor, shape: &[usize], strides: &[isize], offset: usize) -> Result<Tensor> {
    out.view(shape, strides, out.offset() + offset)
}

/// Copies `src`, broadcast to `dst`'s shape, into `dst` (a region of a
/// fresh output). Both must have the same dtype.
pub fn write_into(src: &Tensor, dst: &Tensor) -> Result<()> {
    if src.dtype() != dst.dtype() {
        return Err(Error::Type(format!(
            "cannot copy {} data into a {} output",
            src.dtype(),
            dst.dtype()
        )));
    }
    let pd = dst
        .buffer()
        .as_mut_ptr()
        .ok_or_else(|| Error::Value("cannot write into read-only memory".into()))?;
    let src_strides = broadcast_strides(src, dst.shape());
    // SAFETY: `dst` is a view `Tensor::view` checked inside the output's
    // buffer (`layout::extent`; its offsets and lengths from `layout::sum`ed
    // or bounded lengths), `src` is walked with `broadcast_strides` (asserted
    // to broadcast to `dst`'s shape) over its own checked layout; `dst` is a
    // region of an output only this op holds, distinct from `src`, and
    // its elements are distinct.
    unsafe {
        copy_strided(
            src.dtype().itemsize(),
            dst.shape(),
            &src_strides,
            dst.strides(),
            src.as_ptr(),
            pd.add(dst.offset()),
        )
    };
    Ok(())
}

/// A 0-d tensor of `dtype` holding `value` (NumPy's `astype` rules).
pub fn scalar_of(dtype: DType, value: f64) -> Tensor {
    crate::kernels::elemwise::cast::scalar_as(value, dtype)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_broadcast_and_strided() {
        let out = Tensor::zeros(DType::Int32, &[2, 3]).unwrap();
        let row = Tensor::from_vec(vec![3], vec![1i32, 2, 3]).unwrap();
        write_into(&row, &out).unwrap();
        assert_eq!(out.as_slice::<i32>().unwrap(), &[1, 2, 3, 1, 2, 3]);
        let col = region(&out, &[2], &[12], 4).unwrap();
        write_into(&Tensor::scalar(9i32), &col).unwrap();
        assert_eq!(out.as_slice::<i32>().unwrap(), &[1, 9, 3, 1, 9, 3]);
        assert!(region(&out, &[3], &[12], 0).is_err(), "outside the buffer");
        assert!(write_into(&Tensor::scalar(1.0f64), &col).is_err());
    }

    #[test]
    fn large_joins_and_fills_split_across_threads() {
        // The right half of a 200x6000 output, as `Join` along axis 1 writes it.
        let (rows, cols) = (200, 3000);
        let src = Tensor::from_vec(
            vec![rows, cols],
            (0..rows * cols).map(|v| v as f64).collect(),
        )
        .unwrap();
        let out = Tensor::zeros(DType::Float64, &[rows, 2 * cols]).unwrap();
        let right = region(&out, &[rows, cols], out.strides(), cols * 8).unwrap();
        write_into(&src, &right).unwrap();
        let fill = region(&out, &[rows, cols], out.strides(), 0).unwrap();
        write_into(&Tensor::scalar(-1.5f64), &fill).unwrap();
        let got = out.as_slice::<f64>().unwrap();
        for r in [0, 77, rows - 1] {
            let row = &got[r * 2 * cols..(r + 1) * 2 * cols];
            assert!(row[..cols].iter().all(|&v| v == -1.5));
            let want: Vec<f64> = (r * cols..(r + 1) * cols).map(|v| v as f64).collect();
            assert_eq!(&row[cols..], want.as_slice());
        }
    }
}
