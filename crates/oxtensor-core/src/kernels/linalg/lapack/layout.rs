//! Column-major storage for the LAPACK calls in [`super::lu`] and
//! [`super::qr`]: working copies LAPACK may overwrite, and
//! column-major results handed back as tensors without a copy.

use crate::error::Result;
use crate::kernels::alloc::order::permuted;
use crate::kernels::copy::copy_contiguous;
use crate::kernels::elemwise::cast;
use crate::kernels::linalg::faer::Real;
use crate::tensor::Tensor;

/// A fresh C-contiguous `T` copy of the matrix `a` (of `aᵀ` if
/// `transpose`), only this handle on its buffer, so `as_mut_slice` gives
/// LAPACK somewhere to write. Read column-major it is `aᵀ` (or `a`): a
/// routine that is not transpose-invariant (QR) asks for `transpose`.
pub(crate) fn working_copy<T: Real>(a: &Tensor, transpose: bool) -> Result<Tensor> {
    let a = cast::cast(a, T::DTYPE)?;
    let a = if transpose { permuted(&a, &[1, 0]) } else { a };
    // A transposed view copies in cache-sized tiles (see `copy_tile`).
    copy_contiguous(&a)
}

/// The writable elements of a [`working_copy`] (or of any fresh tensor).
pub(crate) fn elements<T: Real>(t: &mut Tensor) -> &mut [T] {
    t.as_mut_slice::<T>()
        .expect("a fresh contiguous tensor of its own dtype")
}

/// The `rows`×`cols` matrix stored column-major in `data`, as a tensor
/// with column-major strides (a view, no copy).
pub(crate) fn column_major<T: Real>(data: Vec<T>, rows: usize, cols: usize) -> Result<Tensor> {
    Ok(permuted(
        &Tensor::from_vec(vec![cols, rows], data)?,
        &[1, 0],
    ))
}

/// The first `cols` columns of the column-major matrix with `rows` rows
/// stored in the C-contiguous `t`, as a column-major view.
pub(crate) fn leading_columns(t: &Tensor, rows: usize, cols: usize) -> Result<Tensor> {
    let size = t.dtype().itemsize() as isize;
    let v = t.view(&[cols, rows], &[size * rows as isize, size], t.offset())?;
    Ok(permuted(&v, &[1, 0]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::tensor::Scalar;

    #[test]
    fn copies_are_writable_and_transposes_are_column_major() {
        let a = Tensor::from_vec(vec![2, 3], vec![1.0f64, 2., 3., 4., 5., 6.]).unwrap();
        let mut c = working_copy::<f64>(&a, false).unwrap();
        assert_eq!(elements::<f64>(&mut c), &[1.0, 2., 3., 4., 5., 6.]);
        let mut t = working_copy::<f64>(&a, true).unwrap();
        // aᵀ in C order is a column-major.
        assert_eq!(elements::<f64>(&mut t), &[1.0, 4., 2., 5., 3., 6.]);
        elements::<f64>(&mut t)[0] = 9.0;
        assert_eq!(a.get(0), Scalar::Float(1.0, DType::Float64));
        let f32s = working_copy::<f32>(&a, true).unwrap();
        assert_eq!(f32s.dtype(), DType::Float32);
        let m = column_major(vec![1.0f64, 4., 2., 5., 3., 6.], 2, 3).unwrap();
        assert_eq!(m.shape(), &[2, 3]);
        let got: Vec<Scalar> = (0..6).map(|i| m.get(i)).collect();
        let want: Vec<Scalar> = (0..6).map(|i| a.get(i)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn empty_and_strided_inputs() {
        let e = Tensor::zeros(DType::Float64, &[0, 3]).unwrap();
        assert_eq!(working_copy::<f64>(&e, true).unwrap().shape(), &[3, 0]);
        let a = Tensor::from_vec(vec![2, 4], (0..8).map(f64::from).collect()).unwrap();
        // Every other column: [[0, 2], [4, 6]]; transposed, [0, 4, 2, 6].
        let s = a.view(&[2, 2], &[32, 16], 0).unwrap();
        let mut t = working_copy::<f64>(&s, true).unwrap();
        assert_eq!(elements::<f64>(&mut t), &[0.0, 4., 2., 6.]);
        assert_eq!(
            column_major(Vec::<f64>::new(), 0, 2).unwrap().shape(),
            &[0, 2]
        );
    }
}
