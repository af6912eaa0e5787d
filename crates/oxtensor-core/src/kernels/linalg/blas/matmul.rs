//! `Matmul` over stacks of matrices: batch axes broadcast, then one product
//! per matrix pair into a C-contiguous output. Floats and complex numbers go
//! straight to [`super::gemm::product`] at each pair's offset: a stack times
//! one broadcast matrix folds into a single tall product, and small pairs
//! run side by side on rayon threads, each single-threaded. Other dtypes go
//! through [`super::gemm::dot`] per pair, as NumPy loops for them.

use super::gemm::{dot, product, Gemm, Operand};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::{self, Pool};
use crate::kernels::elemwise::cast;
use crate::tensor::{layout as sizes, Tensor};
use num_complex::Complex;
use rayon::prelude::*;

/// From this many multiply-adds, work is split across threads.
const PARALLEL_FLOPS: usize = 1 << 18;

/// From this many multiply-adds per pair (a 256³ product), one product
/// keeps every thread busy on its own.
const PAIR_THREADS_FLOPS: usize = 1 << 24;

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
    // Batch axes may be zero-stride views of any length: the count is
    // checked, and the list allocated fallibly, before it is filled.
    let total = sizes::size(&shape)?;
    let mut offsets = sizes::reserved_vec(total)?;
    offsets.extend((0..total).map(|k| {
        let (mut rest, mut oa, mut ob) = (k, 0isize, 0isize);
        for (&len, &(xa, xb)) in shape.iter().zip(&strides).rev() {
            let j = (rest % len) as isize;
            rest /= len;
            oa += j * xa;
            ob += j * xb;
        }
        (oa, ob)
    }));
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
    let (a, b) = (cast::cast(a, compute)?, cast::cast(b, compute)?);
    let plan = batches(&a, &b, bcast)?;
    let mut shape = plan.shape.clone();
    shape.extend([m, n]);
    let out = match compute {
        DType::Float32 => with_gemm::<f32>(&a, &b, &plan, &shape, pool)?,
        DType::Float64 => with_gemm::<f64>(&a, &b, &plan, &shape, pool)?,
        DType::Complex64 => with_gemm::<Complex<f32>>(&a, &b, &plan, &shape, pool)?,
        DType::Complex128 => with_gemm::<Complex<f64>>(&a, &b, &plan, &shape, pool)?,
        _ => by_dot(&a, &b, &plan, &shape)?,
    };
    cast::cast(&out, out_dtype)
}

/// The 2-d view of pair member `t` at element offset `off`.
fn matrix_at(t: &Tensor, off: isize) -> Result<Tensor> {
    let nd = t.ndim();
    let byte = t.offset() as isize + off * t.dtype().itemsize() as isize;
    t.view(&t.shape()[nd - 2..], &t.strides()[nd - 2..], byte as usize)
}

fn by_dot(a: &Tensor, b: &Tensor, plan: &Batches, shape: &[usize]) -> Result<Tensor> {
    let mut bytes = sizes::reserved_vec(sizes::nbytes(a.dtype(), shape)?)?;
    for &(oa, ob) in &plan.offsets {
        let prod = dot(&matrix_at(a, oa)?, &matrix_at(b, ob)?, a.dtype(), None)?;
        bytes.extend(prod.to_c_bytes()?);
    }
    Tensor::from_bytes(a.dtype(), shape.to_vec(), bytes)
}

/// A pair member's layout: its first element and element strides
/// (row, column).
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

impl Layout {
    /// The operand at element offset `off` from the first element, with row
    /// stride `rs` (the layout's own, or a folded stack's).
    ///
    /// # Safety
    /// `off` must be the offset of a matrix inside the tensor.
    unsafe fn at<T>(self, off: isize, rs: isize) -> Operand<T> {
        // SAFETY: the caller's contract keeps the pointer inside the buffer.
        Operand::new(unsafe { (self.base as *const T).offset(off) }, rs, self.cs)
    }
}

/// The row stride of `a`'s stack seen as one (count·m)×k matrix, when `b` is
/// the same matrix for every pair (a broadcast matrix operand) and `a`'s
/// matrices follow each other at a fixed step of m rows: the whole batch is
/// then one product `(count·m, k) @ (k, n)` into the C-contiguous output.
fn folded_rows(plan: &Batches, m: usize, la: Layout) -> Option<isize> {
    let (&(a0, b0), rest) = plan.offsets.split_first()?;
    let Some(&(a1, _)) = rest.first() else {
        return Some(la.rs);
    };
    let step = a1 - a0;
    let arithmetic = rest
        .iter()
        .enumerate()
        .all(|(j, &(oa, ob))| ob == b0 && oa == a0 + (j as isize + 1) * step);
    match m {
        _ if !arithmetic => None,
        1 => Some(step),
        _ if step == m as isize * la.rs => Some(la.rs),
        _ => None,
    }
}

fn with_gemm<T: Gemm>(
    a: &Tensor,
    b: &Tensor,
    plan: &Batches,
    shape: &[usize],
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let mut out = alloc::output(pool, a.dtype(), shape)?;
    let dst = out.as_mut_slice::<T>().expect("matmul outputs are fresh");
    if dst.is_empty() {
        return Ok(out);
    }
    let (la, lb) = (layout(a), layout(b));
    let (per_pair, count) = (m * n * k, plan.offsets.len());
    if let Some(rs) = folded_rows(plan, m, la) {
        let (oa, ob) = plan.offsets[0];
        // SAFETY: `folded_rows` checked that the count·m rows lie at stride
        // `rs` from `a`'s first matrix; `dst` holds count·m·n elements.
        unsafe {
            let (pa, pb) = (la.at::<T>(oa, rs), lb.at::<T>(ob, lb.rs));
            product(
                dst,
                (count * m, k, n),
                pa,
                pb,
                per_pair * count >= PARALLEL_FLOPS,
            );
        }
        return Ok(out);
    }
    let across = count > 1 && per_pair * count >= PARALLEL_FLOPS && spread_pairs(per_pair, count);
    let run = |(chunk, &(oa, ob)): (&mut [T], &(isize, isize))| {
        // SAFETY: `oa`/`ob` are offsets of whole matrices inside `a` and `b`:
        // `batches` built them from batch indices below each input's own
        // lengths (or 0 where it broadcasts) times its own strides, over
        // layouts `Tensor::check_layout` bounded (and the count is checked
        // by `layout::size`); `chunk` is one m×n block of the output, which
        // was allocated with the batch shape and (m, n) (`alloc::output`).
        unsafe {
            let (pa, pb) = (la.at::<T>(oa, la.rs), lb.at::<T>(ob, lb.rs));
            product(
                chunk,
                (m, k, n),
                pa,
                pb,
                !across && per_pair >= PARALLEL_FLOPS,
            );
        }
    };
    if across {
        dst.par_chunks_mut(m * n).zip(&plan.offsets).for_each(run);
    } else {
        dst.chunks_mut(m * n).zip(&plan.offsets).for_each(run);
    }
    Ok(out)
}

/// Whether to run whole pairs side by side (each single-threaded) rather
/// than one after another with every thread on each: side by side wins
/// while a pair is too small for a product's threads to pay off, or while
/// there are enough pairs to keep every thread equally busy.
fn spread_pairs(per_pair: usize, count: usize) -> bool {
    let threads = rayon::current_num_threads();
    per_pair < PAIR_THREADS_FLOPS || count.is_multiple_of(threads) || count >= 4 * threads
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    #[test]
    fn batched_products_broadcast() {
        let a = Tensor::from_vec(vec![2, 1, 2], vec![1.0f64, 2., 3., 4.]).unwrap();
        let b = Tensor::from_vec(vec![1, 2, 1], vec![1.0f64, -1.]).unwrap();
        // b's first dimension broadcasts against a's.
        let product = |a: &Tensor, b: &Tensor, dtype| {
            matmul(a, b, [&[false; 3], &[true, false, false]], dtype, None).unwrap()
        };
        let out = product(&a, &b, DType::Float64);
        assert_eq!(out.shape(), &[2, 1, 1]);
        assert_eq!(out.get(1), Scalar::Float(-1.0, DType::Float64));
        let ai = cast::cast(&a, DType::Int32).unwrap();
        let bi = cast::cast(&b, DType::Int32).unwrap();
        let oi = product(&ai, &bi, DType::Int32);
        assert_eq!(oi.get(0), Scalar::Int(-1));
        assert!(matmul(&a, &b, [&[false; 3], &[false; 3]], DType::Float64, None).is_err());
    }

    /// An f64 stack of small integers (exact in every float type).
    fn ints(shape: &[usize], seed: usize) -> Tensor {
        let len = shape.iter().product();
        let data = (0..len)
            .map(|i| ((i * 7 + seed) % 11) as f64 - 5.0)
            .collect();
        Tensor::from_vec(shape.to_vec(), data).unwrap()
    }

    /// `matmul` in `dtype` against the int64 per-pair loop on the same values.
    fn agrees(a: &Tensor, b: &Tensor, bcast: [&[bool]; 2], dtype: DType) {
        let want = matmul(
            &cast::cast(a, DType::Int64).unwrap(),
            &cast::cast(b, DType::Int64).unwrap(),
            bcast,
            DType::Int64,
            None,
        )
        .unwrap();
        let got = matmul(
            &cast::cast(a, dtype).unwrap(),
            &cast::cast(b, dtype).unwrap(),
            bcast,
            dtype,
            None,
        )
        .unwrap();
        assert_eq!(got.shape(), want.shape());
        let (got, want) = (cast::cast(&got, DType::Int64).unwrap(), want);
        assert_eq!(
            got.to_c_bytes().unwrap(),
            want.to_c_bytes().unwrap(),
            "{dtype} {:?}",
            a.shape()
        );
    }

    #[test]
    fn broadcast_matrix_folds_into_one_product() {
        let b = ints(&[1, 5, 3], 1);
        let flags: [&[bool]; 2] = [&[false; 3], &[true, false, false]];
        for dtype in [
            DType::Float32,
            DType::Float64,
            DType::Complex64,
            DType::Complex128,
        ] {
            agrees(&ints(&[4, 6, 5], 0), &b, flags, dtype);
            agrees(&ints(&[7, 1, 5], 2), &b, flags, dtype);
        }
        // Every other column of a wider stack still folds (row step = m rows).
        let wide = ints(&[4, 6, 10], 3);
        let a = wide.view(&[4, 6, 5], &[480, 80, 16], 0).unwrap();
        assert_eq!(
            folded_rows(&batches(&a, &b, flags).unwrap(), 6, layout(&a)),
            Some(10)
        );
        agrees(&a, &b, flags, DType::Float64);
    }

    #[test]
    fn small_pairs_run_side_by_side() {
        let (a, b) = (ints(&[8, 70, 60], 0), ints(&[8, 60, 50], 4));
        assert!(spread_pairs(70 * 60 * 50, 8));
        agrees(&a, &b, [&[false; 3], &[false; 3]], DType::Float64);
        agrees(&a, &b, [&[false; 3], &[false; 3]], DType::Float32);
    }

    #[test]
    fn strided_stacks_and_empty_axes() {
        // Batch axis not outermost: pairs 5 elements apart, not m rows apart.
        let base = ints(&[3, 4, 5], 0);
        let a = base.view(&[4, 3, 5], &[40, 160, 8], 0).unwrap();
        let b = ints(&[1, 5, 2], 5);
        let flags: [&[bool]; 2] = [&[false; 3], &[true, false, false]];
        assert_eq!(
            folded_rows(&batches(&a, &b, flags).unwrap(), 3, layout(&a)),
            None
        );
        agrees(&a, &b, flags, DType::Float64);
        // Transposed matrices in a stack, a broadcast left operand.
        let bt = ints(&[6, 2, 5], 1);
        let bt = bt.view(&[6, 5, 2], &[80, 8, 40], 0).unwrap();
        agrees(
            &ints(&[1, 3, 5], 0),
            &bt,
            [&[true, false, false], &[false; 3]],
            DType::Float64,
        );
        for (sa, sb) in [
            ([0, 3, 5], [0, 5, 2]),
            ([2, 3, 0], [2, 0, 4]),
            ([2, 0, 5], [2, 5, 4]),
        ] {
            agrees(
                &ints(&sa, 0),
                &ints(&sb, 0),
                [&[false; 3], &[false; 3]],
                DType::Float64,
            );
        }
    }
}
