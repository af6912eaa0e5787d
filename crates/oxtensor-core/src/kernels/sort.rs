//! Sorting along one axis (`sort`, `argsort`): each lane sorted on its own
//! (`kernels/radix.rs`), lanes in parallel, read in place when they are
//! rows and in cached blocks when they cross rows. NaNs sort last, as in
//! NumPy; `argsort` is stable.

use super::alloc::{output, Pool};
use super::copy::copy_into;
use super::lanes::{for_each_lane_init, Lanes};
use super::radix::{argsort_lane, sort_lane, Scratch};
use super::sort_key::SortKey;
use super::strided_lanes::StridedLanes;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Element, Tensor};
use half::f16;

/// `f(scratch, lane, result)` over every lane of `x` along `axis`, into a
/// fresh output of `x`'s shape and `U`'s dtype. A C-contiguous input with
/// lanes across rows goes through [`StridedLanes`] (one transposing copy,
/// of the results); others through [`Lanes`] (transposed first unless the
/// lanes are already rows).
fn along_axis<T: Element, U: Element, S>(
    x: &Tensor,
    axis: usize,
    mut pool: Option<&mut Pool>,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &[T], &mut [U]) + Sync + Send,
) -> Tensor {
    let shape = x.shape();
    let (outer, n) = (shape[..axis].iter().product(), shape[axis]);
    let inner: usize = shape[axis + 1..].iter().product();
    let data = x.as_slice::<T>();
    let (Some(data), true) = (data, inner > 1 && n > 1) else {
        let lanes = Lanes::new(x, &[axis]);
        let mut out = output(pool, U::DTYPE, &lanes.shape());
        let (xs, ys) = (lanes.data.as_slice::<T>(), out.as_mut_slice::<U>());
        let (xs, ys) = (xs.expect("lanes are contiguous"), ys.expect("fresh output"));
        for_each_lane_init(xs, n, ys, n, init, f);
        return lanes.restore(out);
    };
    // The lane results are taken before the output: in a function called
    // again, the pool hands back the previous call's (recycled below), and
    // only the output, which the caller keeps, is new.
    let mut results = output(pool.as_deref_mut(), U::DTYPE, &[outer, inner, n]);
    let mut out = output(pool.as_deref_mut(), U::DTYPE, shape);
    let ys = results.as_mut_slice::<U>().expect("fresh buffer");
    StridedLanes { outer, n, inner }.for_each(data, ys, n, init, f);
    let size = U::DTYPE.itemsize() as isize;
    let (n_, inner_) = (n as isize, inner as isize);
    let strides = [inner_ * n_ * size, size, n_ * size];
    let view = results.view(&[outer, n, inner], &strides, 0);
    copy_into(&view.expect("a transpose of the results"), &mut out);
    if let Some(pool) = pool {
        pool.recycle(results);
    }
    out
}

fn sort_typed<T: SortKey>(x: &Tensor, axis: usize, pool: Option<&mut Pool>) -> Tensor {
    along_axis(x, axis, pool, Scratch::default, sort_lane::<T>)
}

fn argsort_typed<T: SortKey>(x: &Tensor, axis: usize, pool: Option<&mut Pool>) -> Tensor {
    along_axis(x, axis, pool, Scratch::default, argsort_lane::<T>)
}

macro_rules! by_dtype {
    ($f:ident, $x:expr, $axis:expr, $pool:expr, $what:literal) => {{
        use DType::*;
        match $x.dtype() {
            Bool => $f::<bool>($x, $axis, $pool),
            Int8 => $f::<i8>($x, $axis, $pool),
            Int16 => $f::<i16>($x, $axis, $pool),
            Int32 => $f::<i32>($x, $axis, $pool),
            Int64 => $f::<i64>($x, $axis, $pool),
            UInt8 => $f::<u8>($x, $axis, $pool),
            UInt16 => $f::<u16>($x, $axis, $pool),
            UInt32 => $f::<u32>($x, $axis, $pool),
            UInt64 => $f::<u64>($x, $axis, $pool),
            Float16 => $f::<f16>($x, $axis, $pool),
            Float32 => $f::<f32>($x, $axis, $pool),
            Float64 => $f::<f64>($x, $axis, $pool),
            other => {
                return Err(Error::OutOfScope(format!(
                    concat!($what, " of {} is not supported"),
                    other
                )))
            }
        }
    }};
}

/// `x` sorted along `axis`.
pub fn sort(x: &Tensor, axis: usize, pool: Option<&mut Pool>) -> Result<Tensor> {
    Ok(by_dtype!(sort_typed, x, axis, pool, "sort"))
}

/// The int64 indices that sort `x` along `axis`.
pub fn argsort(x: &Tensor, axis: usize, pool: Option<&mut Pool>) -> Result<Tensor> {
    Ok(by_dtype!(argsort_typed, x, axis, pool, "argsort"))
}

fn take_typed<T: Element>(a: &Lanes, idx: &Lanes, out: &mut Tensor) -> Result<()> {
    let x = a.data.as_slice::<T>().expect("lanes are contiguous");
    let ix = idx.data.as_slice::<i64>().expect("int64 indices");
    let y = out.as_mut_slice::<T>().expect("fresh output");
    let n = a.n as i64;
    for (i, (o, &k)) in y.iter_mut().zip(ix).enumerate() {
        if k < -n || k >= n {
            return Err(Error::Index(format!(
                "index {k} is out of bounds for axis of size {n}"
            )));
        }
        let row = i / a.n.max(1) * a.n;
        *o = x[row + k.rem_euclid(n.max(1)) as usize];
    }
    Ok(())
}

/// `np.take_along_axis(a, idx, axis)` for `idx` (int64) shaped like `a`.
pub fn take_along_axis(
    a: &Tensor,
    idx: &Tensor,
    axis: usize,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    if a.shape() != idx.shape() || idx.dtype() != DType::Int64 {
        return Err(Error::Shape(format!(
            "take_along_axis needs int64 indices shaped like the values, got {:?} {} \
             for {:?}",
            idx.shape(),
            idx.dtype(),
            a.shape()
        )));
    }
    let la = Lanes::new(a, &[axis]);
    let li = Lanes::new(idx, &[axis]);
    let mut out = output(pool, a.dtype(), &la.shape());
    match a.dtype() {
        DType::Float16 => take_typed::<f16>(&la, &li, &mut out)?,
        DType::Float32 => take_typed::<f32>(&la, &li, &mut out)?,
        DType::Float64 => take_typed::<f64>(&la, &li, &mut out)?,
        DType::Int64 => take_typed::<i64>(&la, &li, &mut out)?,
        other => {
            return Err(Error::OutOfScope(format!(
                "take_along_axis of {other} is not supported (gradients are float)"
            )))
        }
    }
    Ok(la.restore(out))
}
