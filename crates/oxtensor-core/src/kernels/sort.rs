//! Sorting along one axis (`sort`, `argsort`): each lane sorted on its own,
//! lanes in parallel. NaNs sort last, as in NumPy; `argsort` is stable.

use super::alloc::{output, Pool};
use super::lanes::{for_each_lane, Lanes};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Element, Tensor};
use half::f16;
use std::cmp::Ordering;

/// A total order with NaN (`v != v`) after every number.
#[allow(clippy::eq_op)]
fn nan_last<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    match (a != a, b != b) {
        (false, false) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

fn sort_typed<T: Element + PartialOrd>(lanes: &Lanes, out: &mut Tensor) {
    let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
    let y = out.as_mut_slice::<T>().expect("fresh output");
    for_each_lane(x, lanes.n, y, lanes.n, |a, b| {
        b.copy_from_slice(a);
        b.sort_unstable_by(nan_last);
    });
}

fn argsort_typed<T: Element + PartialOrd>(lanes: &Lanes, out: &mut Tensor) {
    let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
    let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
    for_each_lane(x, lanes.n, y, lanes.n, |a, b| {
        b.iter_mut().enumerate().for_each(|(i, o)| *o = i as i64);
        b.sort_by(|&i, &j| nan_last(&a[i as usize], &a[j as usize]));
    });
}

macro_rules! by_dtype {
    ($f:ident, $dtype:expr, $lanes:expr, $out:expr, $what:literal) => {{
        use DType::*;
        match $dtype {
            Bool => $f::<bool>($lanes, $out),
            Int8 => $f::<i8>($lanes, $out),
            Int16 => $f::<i16>($lanes, $out),
            Int32 => $f::<i32>($lanes, $out),
            Int64 => $f::<i64>($lanes, $out),
            UInt8 => $f::<u8>($lanes, $out),
            UInt16 => $f::<u16>($lanes, $out),
            UInt32 => $f::<u32>($lanes, $out),
            UInt64 => $f::<u64>($lanes, $out),
            Float16 => $f::<f16>($lanes, $out),
            Float32 => $f::<f32>($lanes, $out),
            Float64 => $f::<f64>($lanes, $out),
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
    let lanes = Lanes::new(x, &[axis]);
    let mut out = output(pool, x.dtype(), &lanes.shape());
    by_dtype!(sort_typed, x.dtype(), &lanes, &mut out, "sort");
    Ok(lanes.restore(out))
}

/// The int64 indices that sort `x` along `axis`.
pub fn argsort(x: &Tensor, axis: usize, pool: Option<&mut Pool>) -> Result<Tensor> {
    let lanes = Lanes::new(x, &[axis]);
    let mut out = output(pool, DType::Int64, &lanes.shape());
    by_dtype!(argsort_typed, x.dtype(), &lanes, &mut out, "argsort");
    Ok(lanes.restore(out))
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
