//! Sorting along one axis (`sort`, `argsort`): each lane sorted on its own
//! (`kernels/sort/radix.rs`), lanes in parallel, read in place when they are
//! rows and gathered in cached blocks when they cross rows. NaNs sort
//! last, as in NumPy; `argsort` is stable.

mod argsort_words;
mod in_place;
mod key;
mod radix;
mod search;
#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(target_arch = "x86_64")]
mod simd_net;
#[cfg(target_arch = "x86_64")]
mod simd_x86;
mod strided_lanes;
mod unique;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::{output, Pool};
use crate::kernels::elemwise::lanes::{for_each_lane_init, Lanes};
use crate::tensor::{Element, Tensor};
use argsort_words::argsort_words;
use half::f16;
use in_place::sort_in_place_typed;
use key::SortKey;
use radix::{argsort_lane, sort_lane, sort_vectorised, Scratch};
use strided_lanes::StridedLanes;

pub use search::{compare_dtype, searchsorted};
pub use unique::unique;

/// `f(scratch, lane, result)` over every lane of `x` along `axis`, into a
/// fresh output of `x`'s shape and `U`'s dtype: rows of a C-contiguous
/// input in place, its lanes across rows in cached blocks
/// ([`StridedLanes`]), other layouts through [`Lanes`]' copies.
fn along_axis<T: Element, U: Element, S>(
    x: &Tensor,
    axis: usize,
    pool: Option<&mut Pool>,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &[T], &mut [U]) + Sync + Send,
) -> Result<Tensor> {
    let shape = x.shape();
    let (outer, n) = (shape[..axis].iter().product(), shape[axis]);
    let inner: usize = shape[axis + 1..].iter().product();
    if let (Some(data), true) = (x.as_slice::<T>(), inner > 1) {
        let mut out = output(pool, U::DTYPE, shape)?;
        let ys = out.as_mut_slice::<U>().expect("fresh output");
        StridedLanes { outer, n, inner }.for_each(data, ys, init, f);
        return Ok(out);
    }
    let lanes = Lanes::new(x, &[axis])?;
    let mut out = output(pool, U::DTYPE, &lanes.shape())?;
    let (xs, ys) = (lanes.data.as_slice::<T>(), out.as_mut_slice::<U>());
    let (xs, ys) = (xs.expect("lanes are contiguous"), ys.expect("fresh output"));
    for_each_lane_init(xs, n, ys, n, init, f);
    lanes.restore(out)
}

/// A single lane of at least `LONG` elements, with its scratch array
/// (of `K`) from the pool: a fresh array of that size faults in all its
/// pages (and may be given back to the system when freed) on every call.
/// `f` returns `false` (nothing done) where it has no vector sort.
fn long_lane<T: Element, U: Element, K: Element>(
    x: &Tensor,
    pool: &mut Option<&mut Pool>,
    f: impl FnOnce(&mut [K], &[T], &mut [U]) -> bool,
) -> Result<Option<Tensor>> {
    const LONG: usize = 1 << 16;
    let (Some(xs), Some(pool)) = (x.as_slice::<T>(), pool.as_deref_mut()) else {
        return Ok(None);
    };
    if xs.len() < LONG || x.shape().iter().filter(|&&d| d > 1).count() > 1 {
        return Ok(None);
    }
    // The scratch is taken before the output: in a function called again
    // the pool hands back the previous call's, and only the output (which
    // the caller keeps) is new.
    let mut tmp = pool.take(K::DTYPE, &[xs.len()])?;
    let mut out = pool.take(U::DTYPE, x.shape())?;
    let (ts, ys) = (tmp.as_mut_slice::<K>(), out.as_mut_slice::<U>());
    let done = f(ts.expect("fresh scratch"), xs, ys.expect("fresh output"));
    pool.recycle(tmp);
    if done {
        return Ok(Some(out));
    }
    pool.recycle(out);
    Ok(None)
}

fn sort_typed<T: SortKey>(x: &Tensor, axis: usize, mut pool: Option<&mut Pool>) -> Result<Tensor> {
    match long_lane(x, &mut pool, sort_vectorised::<T>)? {
        Some(out) => Ok(out),
        None => along_axis(x, axis, pool, Scratch::default, sort_lane::<T>),
    }
}

fn argsort_typed<T: SortKey>(
    x: &Tensor,
    axis: usize,
    mut pool: Option<&mut Pool>,
) -> Result<Tensor> {
    match long_lane(x, &mut pool, argsort_words::<T>)? {
        Some(out) => Ok(out),
        None => along_axis(x, axis, pool, Scratch::default, argsort_lane::<T>),
    }
}

macro_rules! by_dtype {
    ($f:ident, $x:expr, $axis:expr, $pool:expr, $what:literal) => {{
        use DType::*;
        $crate::kernels::match_ints!(
            $x.dtype(),
            |T| $f::<T>($x, $axis, $pool),
            Bool => $f::<bool>($x, $axis, $pool),
            Float16 => $f::<f16>($x, $axis, $pool),
            Float32 => $f::<f32>($x, $axis, $pool),
            Float64 => $f::<f64>($x, $axis, $pool),
            other => {
                return Err(Error::OutOfScope(format!(
                    concat!($what, " of {} is not supported"),
                    other
                )))
            }
        )
    }};
}

/// `x` sorted along `axis`.
pub fn sort(x: &Tensor, axis: usize, pool: Option<&mut Pool>) -> Result<Tensor> {
    by_dtype!(sort_typed, x, axis, pool, "sort")
}

/// `y` (C-contiguous, its only handle: the inplace `SortOp`'s writer on
/// the buffer it destroys) sorted along `axis` in its own memory.
pub fn sort_in_place(y: &mut Tensor, axis: usize) -> Result<()> {
    by_dtype!(sort_own_memory, y, axis, (), "sort")
}

/// [`sort_in_place`] for one element type (the `()` fills `by_dtype!`'s
/// pool slot: nothing is allocated but a lane per thread).
fn sort_own_memory<T: SortKey>(y: &mut Tensor, axis: usize, _: ()) -> Result<()> {
    let shape = y.shape().to_vec();
    let ys = y.as_mut_slice::<T>().ok_or_else(|| {
        Error::Value(format!(
            "sort in place needs a C-contiguous {} array of its own, got shape {shape:?}",
            T::DTYPE
        ))
    })?;
    sort_in_place_typed(ys, &shape, axis);
    Ok(())
}

/// The int64 indices that sort `x` along `axis`.
pub fn argsort(x: &Tensor, axis: usize, pool: Option<&mut Pool>) -> Result<Tensor> {
    by_dtype!(argsort_typed, x, axis, pool, "argsort")
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
    let la = Lanes::new(a, &[axis])?;
    let li = Lanes::new(idx, &[axis])?;
    let mut out = output(pool, a.dtype(), &la.shape())?;
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
    la.restore(out)
}
