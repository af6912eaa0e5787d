//! Copies into regions of a fresh output: the loops behind `Join`, `Alloc`,
//! `Repeat`, `Eye` and `MakeVector`. Each op describes where its pieces go
//! as strided views of the output; one walk copies a (possibly broadcast)
//! source into such a view.

use super::iter::{broadcast_strides, Nest};
use crate::dtype::DType;
use crate::error::{Error, Result};
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
    let nest = Nest::new(dst.shape(), [src_strides, dst.strides().into()]);
    let size = src.dtype().itemsize();
    // SAFETY: offsets come from the nest over the checked layouts of `src`
    // and `dst` (both inside their buffers, aligned for `size`); `dst` is
    // a region of an output only this op holds, distinct from `src`.
    let (ps, pd) = unsafe { (src.as_ptr(), pd.add(dst.offset())) };
    nest.for_each_run(|[os, od], n, [ss, sd]| unsafe {
        copy_run(size, ps.offset(os), pd.offset(od), n, ss, sd)
    });
    Ok(())
}

/// Copies a run of `n` elements of `size` bytes with the given byte steps.
///
/// # Safety
/// Every element read and written must be in bounds, aligned, and the two
/// ranges must not overlap.
unsafe fn copy_run(size: usize, ps: *const u8, pd: *mut u8, n: usize, ss: isize, sd: isize) {
    if ss == size as isize && sd == size as isize {
        // SAFETY: the caller's contract, for one contiguous block.
        return unsafe { std::ptr::copy_nonoverlapping(ps, pd, n * size) };
    }
    // SAFETY: the caller's contract; the element type matches `size`.
    unsafe {
        match size {
            1 => typed_run::<u8>(ps, pd, n, ss, sd),
            2 => typed_run::<u16>(ps, pd, n, ss, sd),
            4 => typed_run::<u32>(ps, pd, n, ss, sd),
            8 => typed_run::<u64>(ps, pd, n, ss, sd),
            _ => typed_run::<[u64; 2]>(ps, pd, n, ss, sd),
        }
    }
}

/// # Safety
/// As [`copy_run`], with `T` of the element's size and alignment.
unsafe fn typed_run<T: Copy>(ps: *const u8, pd: *mut u8, n: usize, ss: isize, sd: isize) {
    for i in 0..n as isize {
        // SAFETY: the caller's contract.
        unsafe { *(pd.offset(i * sd) as *mut T) = *(ps.offset(i * ss) as *const T) };
    }
}

/// A 0-d tensor of `dtype` holding `value` (NumPy's `astype` rules).
pub fn scalar_of(dtype: DType, value: f64) -> Tensor {
    super::cast::cast(&Tensor::scalar(value), dtype)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_broadcast_and_strided() {
        let out = Tensor::zeros(DType::Int32, &[2, 3]);
        let row = Tensor::from_vec(vec![3], vec![1i32, 2, 3]).unwrap();
        write_into(&row, &out).unwrap();
        assert_eq!(out.as_slice::<i32>().unwrap(), &[1, 2, 3, 1, 2, 3]);
        let col = region(&out, &[2], &[12], 4).unwrap();
        write_into(&Tensor::scalar(9i32), &col).unwrap();
        assert_eq!(out.as_slice::<i32>().unwrap(), &[1, 9, 3, 1, 9, 3]);
        assert!(region(&out, &[3], &[12], 0).is_err(), "outside the buffer");
        assert!(write_into(&Tensor::scalar(1.0f64), &col).is_err());
    }
}
