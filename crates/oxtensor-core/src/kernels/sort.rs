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
