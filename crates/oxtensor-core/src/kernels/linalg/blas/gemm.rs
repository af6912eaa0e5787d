//! Matrix products for `Dot`: vectors and matrices in any layout. Floats
//! and complex numbers go to faer's matrix product (packed, SIMD,
//! multi-threaded), or large real ones to a host BLAS when one serves them
//! ([`crate::kernels::linalg::blas`]), shared with `Matmul` as [`product`]; a real row times
//! a column is an inner product ([`super::inner`]); other dtypes use a
//! plain triple loop, as NumPy does for them.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::elemwise::cast;
use crate::kernels::linalg::blas;
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
    let (a, b) = (cast::cast(a, compute)?, cast::cast(b, compute)?);
    let out_shape: Vec<usize> = a.shape()[..a.ndim() - 1]
        .iter()
        .chain(&b.shape()[1..])
        .copied()
        .collect();
    let mut out = crate::kernels::alloc::output(pool, compute, &out_shape)?;
    let (ma, mb) = (as_matrix(&a, true), as_matrix(&b, false));
    run(compute, &a, &b, &mut out, &ma, &mb)?;
    cast::cast(&out, out_dtype)
}

fn run(dtype: DType, a: &Tensor, b: &Tensor, out: &mut Tensor, ma: &Mat, mb: &Mat) -> Result<()> {
    use DType::*;
    match dtype {
        Float32 if is_inner(ma, mb) => inner_into::<f32>(a, b, out, ma.cols),
        Float64 if is_inner(ma, mb) => inner_into::<f64>(a, b, out, ma.cols),
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

/// A row times a column, both with unit strides (or of length 1): an
/// inner product of two slices, for [`super::inner`].
fn is_inner(ma: &Mat, mb: &Mat) -> bool {
    let unit = |stride: isize, len: usize| stride == 1 || len <= 1;
    ma.rows == 1 && mb.cols == 1 && unit(ma.cs, ma.cols) && unit(mb.rs, mb.rows)
}

fn inner_into<T: Gemm + super::inner::Inner>(a: &Tensor, b: &Tensor, out: &mut Tensor, k: usize) {
    let dst = out.as_mut_slice::<T>().expect("dot outputs are fresh");
    if k == 0 {
        dst[0] = T::zero();
        return;
    }
    let (pa, pb) = (a.as_ptr() as *const T, b.as_ptr() as *const T);
    // SAFETY: `is_inner` checked that both operands hold `k` > 0
    // consecutive elements from their first, which the views address.
    let (xa, xb) = unsafe {
        (
            std::slice::from_raw_parts(pa, k),
            std::slice::from_raw_parts(pb, k),
        )
    };
    dst[0] = super::inner::dot(xa, xb);
}

fn with_gemm<T: Gemm>(a: &Tensor, b: &Tensor, out: &mut Tensor, ma: &Mat, mb: &Mat) {
    let (m, k, n) = (ma.rows, ma.cols, mb.cols);
    let dst = out.as_mut_slice::<T>().expect("dot outputs are fresh");
    let (pa, pb) = (a.as_ptr() as *const T, b.as_ptr() as *const T);
    // SAFETY: `ma`/`mb` are `a`'s and `b`'s own lengths and element strides
    // (`as_matrix`), inside the extents `Tensor::check_layout` bounded, both
    // holding `T`s (cast to the compute dtype); the contracted lengths were
    // checked equal; `dst` is the m×n output (`alloc::output` of that shape,
    // `as_mut_slice::<T>`).
    unsafe {
        product(
            dst,
            (m, k, n),
            Operand::new(pa, ma.rs, ma.cs),
            Operand::new(pb, mb.rs, mb.cs),
            m * n * k >= PARALLEL_FLOPS,
        )
    }
}

/// The element types with a packed, SIMD matrix product.
pub(super) trait Gemm: Element + faer::traits::ComplexField + Zero + One + Copy {
    /// `dst = a · b` by [`super::matvec`] when `a` is one row or `b` one
    /// column (in layouts it reads in one pass); `false` otherwise.
    ///
    /// # Safety
    /// As for [`product`].
    unsafe fn matvec(
        _dst: &mut [Self],
        _mkn: (usize, usize, usize),
        _a: Operand<Self>,
        _b: Operand<Self>,
        _threaded: bool,
    ) -> bool {
        false
    }
}
/// The real types run [`real_matvec`].
macro_rules! real_gemm {
    ($($t:ty),*) => {$(
        impl Gemm for $t {
            unsafe fn matvec(
                dst: &mut [$t],
                mkn: (usize, usize, usize),
                a: Operand<$t>,
                b: Operand<$t>,
                threaded: bool,
            ) -> bool {
                // SAFETY: the caller's contract, passed on.
                unsafe { real_matvec(dst, mkn, a, b, threaded) }
            }
        }
    )*};
}
real_gemm!(f32, f64);
impl Gemm for Complex<f32> {}
impl Gemm for Complex<f64> {}

/// [`Gemm::matvec`] for the real types: an m×k matrix times a column
/// (`n` = 1), or a row times a k×n matrix (`m` = 1, i.e. `bᵀ · aᵀ`).
///
/// # Safety
/// As for [`product`], with every dimension non-zero.
unsafe fn real_matvec<T: super::inner::Inner>(
    dst: &mut [T],
    (m, k, n): (usize, usize, usize),
    a: Operand<T>,
    b: Operand<T>,
    threaded: bool,
) -> bool {
    use super::matvec::{matvec, Lhs};
    let (lhs, x, outs) = match (m, n) {
        (_, 1) if m > 1 => (
            Lhs {
                ptr: a.ptr,
                so: a.rs,
                sp: a.cs,
            },
            (b.ptr, b.rs),
            m,
        ),
        (1, _) if n > 1 => (
            Lhs {
                ptr: b.ptr,
                so: b.cs,
                sp: b.rs,
            },
            (a.ptr, a.cs),
            n,
        ),
        _ => return false,
    };
    // SAFETY: the matrix operand addresses outs×k elements and the vector
    // operand k (the caller's contract); `dst` holds `outs` contiguous
    // outputs (a column of a row-major m×1 block, or a row).
    unsafe { matvec(&mut dst[..outs], lhs, k, x, threaded) }
}

/// One matrix operand of [`product`]: its first element and element strides.
#[derive(Clone, Copy)]
pub(super) struct Operand<T> {
    ptr: *const T,
    rs: isize,
    cs: isize,
}

impl<T> Operand<T> {
    pub(super) fn new(ptr: *const T, rs: isize, cs: isize) -> Self {
        Operand { ptr, rs, cs }
    }

    fn parts(self) -> (*const T, isize, isize) {
        (self.ptr, self.rs, self.cs)
    }
}

/// `dst = a · b` for an m×k `a` and a k×n `b`, into the row-major m×n block
/// `dst` (row stride n), through faer's matrix product (packed AVX2/AVX-512
/// kernels for large products, unrolled small kernels for tiny ones). `threaded` lets
/// one product use every core; callers that already run products side by
/// side pass `false`. A threaded real product goes to the installed host
/// BLAS instead when its operands' strides suit it (the host's library
/// runs its own threads, so products run side by side never go there).
///
/// # Safety
/// `a` and `b` must address m×k and k×n matrices with their strides, and
/// `dst` must hold at least m·n elements.
pub(super) unsafe fn product<T: Gemm>(
    dst: &mut [T],
    (m, k, n): (usize, usize, usize),
    a: Operand<T>,
    b: Operand<T>,
    threaded: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        dst[..m * n].fill(T::zero());
        return;
    }
    let unit = (T::one(), T::zero());
    // SAFETY: the caller's contract, passed on unchanged.
    if threaded
        // SAFETY: the caller's contract, passed on unchanged.
        && unsafe { blas::try_product(dst.as_mut_ptr(), (m, k, n), a.parts(), b.parts(), unit) }
    {
        return;
    }
    // SAFETY: the caller's contract, passed on unchanged.
    if unsafe { T::matvec(dst, (m, k, n), a, b, threaded) } {
        return;
    }
    let par = if threaded {
        faer::Par::rayon(0)
    } else {
        faer::Par::Seq
    };
    // SAFETY: the caller's contract; every dimension is non-zero, so the
    // pointers are those of real elements and non-null.
    let (lhs, rhs, out) = unsafe {
        (
            faer::MatRef::from_raw_parts(a.ptr, m, k, a.rs, a.cs),
            faer::MatRef::from_raw_parts(b.ptr, k, n, b.rs, b.cs),
            faer::MatMut::from_raw_parts_mut(dst.as_mut_ptr(), m, n, n as isize, 1),
        )
    };
    faer::linalg::matmul::matmul(out, faer::Accum::Replace, lhs, rhs, T::one(), par);
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
                // SAFETY: `i < m`, `p < k`, `j < n` index inside both views
                // (their own lengths and strides, as in `with_gemm`).
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
        let mi = cast::cast(&m, DType::Int32).unwrap();
        let ii = dot(
            &mi,
            &cast::cast(&mt, DType::Int32).unwrap(),
            DType::Int32,
            None,
        )
        .unwrap();
        assert_eq!(ii.get(3), Scalar::Int(77));
        assert!(dot(&m, &m, DType::Float64, None).is_err());
    }

    /// `dot` of views in every layout (transposed, reversed, strided) and
    /// odd sizes, against the plain loop in float64, through faer.
    #[test]
    fn every_layout_matches_the_plain_loop() {
        let values = |n: usize, seed: f64| -> Vec<f64> {
            (0..n).map(|i| ((i as f64 + seed) * 0.7).sin()).collect()
        };
        for (m, k, n) in [(1, 1, 1), (3, 5, 7), (17, 1, 9), (33, 65, 31), (70, 40, 90)] {
            let a = Tensor::from_vec(vec![2 * m, k], values(2 * m * k, 0.0)).unwrap();
            let bt = Tensor::from_vec(vec![n, k], values(n * k, 1.0)).unwrap();
            // Every other row of `a`, reversed; `b` as the transpose of `bt`.
            let a = a
                .view(&[m, k], &[-2 * 8 * k as isize, 8], (2 * m - 1) * k * 8)
                .unwrap();
            let b = bt.view(&[k, n], &[8, 8 * k as isize], 0).unwrap();
            let want = {
                let mut out = Tensor::zeros(DType::Float64, &[m, n]).unwrap();
                let (ma, mb) = (as_matrix(&a, true), as_matrix(&b, false));
                naive::<f64>(&a, &b, &mut out, &ma, &mb, |x, y| x + y, |x, y| x * y);
                out
            };
            for dtype in [DType::Float64, DType::Float32, DType::Complex128] {
                let got = dot(&a, &b, dtype, None).unwrap();
                let tol = if dtype == DType::Float32 { 1e-4 } else { 1e-12 };
                for i in 0..m * n {
                    let (Scalar::Float(w, _), g) = (want.get(i), got.get(i)) else {
                        unreachable!("float64 reference")
                    };
                    let g = match g {
                        Scalar::Float(g, _) => g,
                        Scalar::Complex(re, _, _) => re,
                        other => panic!("{other:?}"),
                    };
                    assert!(
                        (g - w).abs() <= tol * (1.0 + w.abs()),
                        "{dtype} {m}x{k}x{n} [{i}]"
                    );
                }
            }
        }
        // An empty inner dimension gives zeros.
        let e = Tensor::zeros(DType::Float64, &[3, 0]).unwrap();
        let z = dot(
            &e,
            &Tensor::zeros(DType::Float64, &[0, 2]).unwrap(),
            DType::Float64,
            None,
        )
        .unwrap();
        assert_eq!(z.shape(), &[3, 2]);
        assert!((0..6).all(|i| z.get(i) == Scalar::Float(0.0, DType::Float64)));
    }
}
