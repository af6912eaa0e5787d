//! `Matmul` over stacks of matrices: batch axes broadcast, then one product
//! per matrix pair into a C-contiguous output. Floats and complex numbers go
//! straight to `gemm` at each pair's offset (pairs spread over rayon threads
//! when each is too small for gemm's own threads); other dtypes through
//! [`super::gemm::dot`] per pair, as NumPy loops for them.

use super::alloc::{self, Pool};
use super::cast;
use super::gemm::dot;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Element, Tensor};
use num_complex::Complex;
use num_traits::{One, Zero};
use rayon::prelude::*;

/// From this many multiply-adds, work is split across threads.
const PARALLEL_FLOPS: usize = 1 << 18;

/// The batch shape and each pair's element offsets into `a` and `b`.
struct Batches {
    shape: Vec<usize>,
    offsets: Vec<(isize, isize)>,
}

fn shape_err(a: &Tensor, b: &Tensor, why: &str) -> Error {
    Error::Shape(format!(
        "matmul: {why}: shapes {:?} and {:?}",
        a.shape(),
        b.shape()
    ))
}

/// Broadcasts the batch axes; a length 1 may stretch only where the input
/// is statically broadcastable there (as `Elemwise` and `infer_shape` assume).
fn batches(a: &Tensor, b: &Tensor, bcast: [&[bool]; 2]) -> Result<Batches> {
    let nb = a.ndim() - 2;
    let (sa, sb) = (a.dtype().itemsize() as isize, b.dtype().itemsize() as isize);
    let mut shape = Vec::with_capacity(nb);
    let mut strides = Vec::with_capacity(nb);
    for i in 0..nb {
        let (la, lb) = (a.shape()[i], b.shape()[i]);
        let stretch = |l: usize, flags: &[bool]| l == 1 && flags.get(i).copied().unwrap_or(true);
        let (len, stride) = if la == lb {
            (la, (a.strides()[i] / sa, b.strides()[i] / sb))
        } else if stretch(la, bcast[0]) {
            (lb, (0, b.strides()[i] / sb))
        } else if stretch(lb, bcast[1]) {
            (la, (a.strides()[i] / sa, 0))
        } else {
            return Err(shape_err(
                a,
                b,
                &format!("batch axis {i} does not broadcast"),
            ));
        };
        shape.push(len);
        strides.push(stride);
    }
    let mut offsets = vec![(0isize, 0isize)];
    for (&len, &(xa, xb)) in shape.iter().zip(&strides) {
        offsets = offsets
            .iter()
            .flat_map(|&(oa, ob)| (0..len as isize).map(move |j| (oa + j * xa, ob + j * xb)))
            .collect();
    }
    Ok(Batches { shape, offsets })
}

/// `matmul(a, b)` for equal-rank inputs of rank >= 2, computed in `out_dtype`;
/// `bcast` holds each input's static broadcastable flags.
pub fn matmul(
    a: &Tensor,
    b: &Tensor,
    bcast: [&[bool]; 2],
    out_dtype: DType,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let nd = a.ndim();
    if nd < 2 || b.ndim() != nd {
        return Err(shape_err(a, b, "inputs need the same rank, at least 2"));
    }
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    if b.shape()[nd - 2] != k {
        return Err(shape_err(a, b, "contracted lengths differ"));
    }
    let compute = match out_dtype {
        DType::Float16 => DType::Float32,
        d => d,
    };
    let (a, b) = (cast::cast(a, compute), cast::cast(b, compute));
    let plan = batches(&a, &b, bcast)?;
    let mut shape = plan.shape.clone();
    shape.extend([m, n]);
    let out = match compute {
        DType::Float32 => with_gemm::<f32>(&a, &b, &plan, &shape, pool),
        DType::Float64 => with_gemm::<f64>(&a, &b, &plan, &shape, pool),
        DType::Complex64 => with_gemm::<Complex<f32>>(&a, &b, &plan, &shape, pool),
        DType::Complex128 => with_gemm::<Complex<f64>>(&a, &b, &plan, &shape, pool),
        _ => by_dot(&a, &b, &plan, &shape)?,
    };
    Ok(cast::cast(&out, out_dtype))
}

/// The 2-d view of pair member `t` at element offset `off`.
fn matrix_at(t: &Tensor, off: isize) -> Result<Tensor> {
    let nd = t.ndim();
    let byte = t.offset() as isize + off * t.dtype().itemsize() as isize;
    t.view(&t.shape()[nd - 2..], &t.strides()[nd - 2..], byte as usize)
}

fn by_dot(a: &Tensor, b: &Tensor, plan: &Batches, shape: &[usize]) -> Result<Tensor> {
    let mut bytes = Vec::with_capacity(shape.iter().product::<usize>() * a.dtype().itemsize());
    for &(oa, ob) in &plan.offsets {
        let prod = dot(&matrix_at(a, oa)?, &matrix_at(b, ob)?, a.dtype(), None)?;
        bytes.extend(prod.to_c_bytes());
    }
    Tensor::from_bytes(a.dtype(), shape.to_vec(), bytes)
}

/// A pair's operand layout: element strides (row, column).
#[derive(Clone, Copy)]
struct Layout {
    base: usize,
    rs: isize,
    cs: isize,
}

fn layout(t: &Tensor) -> Layout {
    let nd = t.ndim();
    let size = t.dtype().itemsize() as isize;
    Layout {
        base: t.as_ptr() as usize,
        rs: t.strides()[nd - 2] / size,
        cs: t.strides()[nd - 1] / size,
    }
}

fn with_gemm<T: Element + Zero + One>(
    a: &Tensor,
    b: &Tensor,
    plan: &Batches,
    shape: &[usize],
    pool: Option<&mut Pool>,
) -> Tensor {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let mut out = alloc::output(pool, a.dtype(), shape);
    let dst = out.as_mut_slice::<T>().expect("matmul outputs are fresh");
    if k == 0 || m * n == 0 {
        dst.fill(T::zero());
        return out;
    }
    let (la, lb) = (layout(a), layout(b));
    let per_pair = m * n * k;
    let threaded = per_pair >= PARALLEL_FLOPS;
    let run = |(chunk, &(oa, ob)): (&mut [T], &(isize, isize))| {
        // SAFETY: `oa`/`ob` are offsets of whole matrices inside `a` and `b`
        // (from their own strides), and `chunk` is one fresh m×n output block.
        unsafe { gemm_one::<T>(chunk, (m, k, n), la, oa, lb, ob, threaded) }
    };
    if !threaded && per_pair * plan.offsets.len() >= PARALLEL_FLOPS {
        dst.par_chunks_mut(m * n).zip(&plan.offsets).for_each(run);
    } else {
        dst.chunks_mut(m * n).zip(&plan.offsets).for_each(run);
    }
    out
}

/// One product `dst = a[oa] · b[ob]` through `gemm`.
///
/// # Safety
/// `la.base + oa` and `lb.base + ob` (in elements of `T`) must start m×k and
/// k×n matrices with the layouts' strides, and `dst` must hold m·n elements.
unsafe fn gemm_one<T: Element + Zero + One>(
    dst: &mut [T],
    (m, k, n): (usize, usize, usize),
    la: Layout,
    oa: isize,
    lb: Layout,
    ob: isize,
    threaded: bool,
) {
    let par = if threaded {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: the caller's contract; with `read_dst = false` gemm writes
    // dst = 1·(a·b) without reading it.
    unsafe {
        let pa = (la.base as *const T).offset(oa);
        let pb = (lb.base as *const T).offset(ob);
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            false,
            pa,
            la.cs,
            la.rs,
            pb,
            lb.cs,
            lb.rs,
            T::zero(),
            T::one(),
            false,
            false,
            false,
            par,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    #[test]
    fn batched_products_broadcast() {
        let a = Tensor::from_vec(vec![2, 1, 2], vec![1.0f64, 2., 3., 4.]).unwrap();
        let b = Tensor::from_vec(vec![1, 2, 1], vec![1.0f64, -1.]).unwrap();
        let out = matmul(
            &a,
            &b,
            [&[false; 3], &[true, false, false]],
            DType::Float64,
            None,
        )
        .unwrap();
        assert_eq!(out.shape(), &[2, 1, 1]);
        assert_eq!(out.get(1), Scalar::Float(-1.0, DType::Float64));
        let ai = cast::cast(&a, DType::Int32);
        let bi = cast::cast(&b, DType::Int32);
        let oi = matmul(
            &ai,
            &bi,
            [&[false; 3], &[true, false, false]],
            DType::Int32,
            None,
        )
        .unwrap();
        assert_eq!(oi.get(0), Scalar::Int(-1));
        assert!(matmul(&a, &b, [&[false; 3], &[false; 3]], DType::Float64, None).is_err());
    }
}
