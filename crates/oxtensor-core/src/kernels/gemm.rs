//! Matrix products for `Dot`: vectors and matrices in any layout. Floats and
//! complex numbers go to the `gemm` crate (packed, SIMD, multi-threaded);
//! other dtypes use a plain triple loop, as NumPy does for them.

use super::alloc::Pool;
use super::cast;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Element, Tensor};
use num_complex::Complex;
use num_traits::{One, Zero};

/// Above this many multiply-adds, `gemm` may use every core.
const PARALLEL_FLOPS: usize = 1 << 18;

/// A 2-d operand: rows, columns and element strides (row, column).
struct Mat {
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
}

fn as_matrix(t: &Tensor, vector_as_row: bool) -> Mat {
    let size = t.dtype().itemsize() as isize;
    match t.ndim() {
        2 => Mat {
            rows: t.shape()[0],
            cols: t.shape()[1],
            rs: t.strides()[0] / size,
            cs: t.strides()[1] / size,
        },
        _ if vector_as_row => Mat {
            rows: 1,
            cols: t.shape()[0],
            rs: 0,
            cs: t.strides()[0] / size,
        },
        _ => Mat {
            rows: t.shape()[0],
            cols: 1,
            rs: t.strides()[0] / size,
            cs: 0,
        },
    }
}

/// `dot(a, b)` for vectors and matrices, computed in `out_dtype`.
pub fn dot(a: &Tensor, b: &Tensor, out_dtype: DType, pool: Option<&mut Pool>) -> Result<Tensor> {
    if !(1..=2).contains(&a.ndim()) || !(1..=2).contains(&b.ndim()) {
        return Err(Error::Shape(format!(
            "dot takes vectors and matrices, got shapes {:?} and {:?}",
            a.shape(),
            b.shape()
        )));
    }
    let (ka, kb) = (a.shape()[a.ndim() - 1], b.shape()[0]);
    if ka != kb {
        return Err(Error::Shape(format!(
            "shapes {:?} and {:?} not aligned: {ka} (dim {}) != {kb} (dim 0)",
            a.shape(),
            b.shape(),
            a.ndim() - 1
        )));
    }
    let compute = if out_dtype == DType::Float16 {
        DType::Float32
    } else {
        out_dtype
    };
    let (a, b) = (cast::cast(a, compute), cast::cast(b, compute));
    let out_shape: Vec<usize> = a.shape()[..a.ndim() - 1]
        .iter()
        .chain(&b.shape()[1..])
        .copied()
        .collect();
    let mut out = super::alloc::output(pool, compute, &out_shape);
    let (ma, mb) = (as_matrix(&a, true), as_matrix(&b, false));
    run(compute, &a, &b, &mut out, &ma, &mb)?;
    Ok(cast::cast(&out, out_dtype))
}

fn run(dtype: DType, a: &Tensor, b: &Tensor, out: &mut Tensor, ma: &Mat, mb: &Mat) -> Result<()> {
    use DType::*;
    match dtype {
        Float32 => with_gemm::<f32>(a, b, out, ma, mb),
        Float64 => with_gemm::<f64>(a, b, out, ma, mb),
        Complex64 => with_gemm::<Complex<f32>>(a, b, out, ma, mb),
        Complex128 => with_gemm::<Complex<f64>>(a, b, out, ma, mb),
        Int8 => naive::<i8>(a, b, out, ma, mb, i8::wrapping_add, i8::wrapping_mul),
        Int16 => naive::<i16>(a, b, out, ma, mb, i16::wrapping_add, i16::wrapping_mul),
        Int32 => naive::<i32>(a, b, out, ma, mb, i32::wrapping_add, i32::wrapping_mul),
        Int64 => naive::<i64>(a, b, out, ma, mb, i64::wrapping_add, i64::wrapping_mul),
        UInt8 => naive::<u8>(a, b, out, ma, mb, u8::wrapping_add, u8::wrapping_mul),
        UInt16 => naive::<u16>(a, b, out, ma, mb, u16::wrapping_add, u16::wrapping_mul),
        UInt32 => naive::<u32>(a, b, out, ma, mb, u32::wrapping_add, u32::wrapping_mul),
        UInt64 => naive::<u64>(a, b, out, ma, mb, u64::wrapping_add, u64::wrapping_mul),
        Bool => naive::<bool>(a, b, out, ma, mb, |x, y| x | y, |x, y| x & y),
        Float16 => return Err(Error::Type("dot computes float16 in float32".into())),
    }
    Ok(())
}

fn with_gemm<T: Element + Zero + One>(
    a: &Tensor,
    b: &Tensor,
    out: &mut Tensor,
    ma: &Mat,
    mb: &Mat,
) {
    let (m, k, n) = (ma.rows, ma.cols, mb.cols);
    let par = if m * n * k >= PARALLEL_FLOPS {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    };
    let dst = out.as_mut_slice::<T>().expect("dot outputs are fresh");
    if k == 0 {
        dst.fill(T::zero());
        return;
    }
    // SAFETY: `a` and `b` are valid views of the given shapes and element
    // strides; `dst` is a fresh C-contiguous m×n buffer (row stride n). With
    // `read_dst = false` gemm writes dst = 1·(a·b) without reading it.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr() as *const T,
            ma.cs,
            ma.rs,
            b.as_ptr() as *const T,
            mb.cs,
            mb.rs,
            T::zero(),
            T::one(),
            false,
            false,
            false,
            par,
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn naive<T: Element>(
    a: &Tensor,
    b: &Tensor,
    out: &mut Tensor,
    ma: &Mat,
    mb: &Mat,
    add: fn(T, T) -> T,
    mul: fn(T, T) -> T,
) {
    let (m, k, n) = (ma.rows, ma.cols, mb.cols);
    let (pa, pb) = (a.as_ptr() as *const T, b.as_ptr() as *const T);
    let dst = out.as_mut_slice::<T>().expect("dot outputs are fresh");
    for i in 0..m {
        for j in 0..n {
            let mut acc = T::default();
            for p in 0..k {
                // SAFETY: `i < m`, `p < k`, `j < n` index inside both views.
                let (x, y) = unsafe {
                    (
                        *pa.offset(i as isize * ma.rs + p as isize * ma.cs),
                        *pb.offset(p as isize * mb.rs + j as isize * mb.cs),
                    )
                };
                acc = add(acc, mul(x, y));
            }
            dst[i * n + j] = acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    #[test]
    fn products_of_every_shape() {
        let m = Tensor::from_vec(vec![2, 3], vec![1.0f64, 2., 3., 4., 5., 6.]).unwrap();
        let v = Tensor::from_vec(vec![3], vec![1.0f64, 0., -1.]).unwrap();
        let mv = dot(&m, &v, DType::Float64, None).unwrap();
        assert_eq!(mv.shape(), &[2]);
        assert_eq!(mv.get(1), Scalar::Float(-2.0, DType::Float64));
        let mt = m.view(&[3, 2], &[8, 24], 0).unwrap();
        let mm = dot(&m, &mt, DType::Float64, None).unwrap();
        assert_eq!(mm.get(3), Scalar::Float(77.0, DType::Float64));
        let vv = dot(&v, &v, DType::Float64, None).unwrap();
        assert_eq!(
            (vv.ndim(), vv.get(0)),
            (0, Scalar::Float(2.0, DType::Float64))
        );
        let mi = cast::cast(&m, DType::Int32);
        let ii = dot(&mi, &cast::cast(&mt, DType::Int32), DType::Int32, None).unwrap();
        assert_eq!(ii.get(3), Scalar::Int(77));
        assert!(dot(&m, &m, DType::Float64, None).is_err());
    }
}
