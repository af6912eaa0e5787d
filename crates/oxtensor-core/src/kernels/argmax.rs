//! `Argmax` along lanes: the index of the first maximum of each lane, with
//! NumPy's rule that a NaN is the maximum (the first NaN wins).

use super::alloc::{output, Pool};
use super::lanes::{for_each_lane, Lanes};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Element, Tensor};
use half::f16;

/// The first index of the lane's maximum; `v != v` is true only for NaN.
/// Two passes: the maximum in eight interleaved accumulators (which the
/// compiler vectorises, noting NaNs on the way), then its first position.
#[allow(clippy::eq_op)]
fn argmax_lane<T: Element + PartialOrd>(x: &[T]) -> i64 {
    let mut acc = [x[0]; 8];
    let mut nan = false;
    let mut chunks = x.chunks_exact(8);
    for c in &mut chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            nan |= v != v;
            *a = if v > *a { v } else { *a };
        }
    }
    let tail = chunks.remainder();
    nan |= tail.iter().any(|v| v != v);
    if nan {
        return x.iter().position(|v| v != v).unwrap_or(0) as i64;
    }
    let m = acc
        .iter()
        .chain(tail)
        .fold(x[0], |m, &a| if a > m { a } else { m });
    x.iter().position(|v| *v == m).unwrap_or(0) as i64
}

fn run<T: Element + PartialOrd>(lanes: &Lanes, out: &mut Tensor) {
    let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
    let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
    for_each_lane(x, lanes.n, y, 1, |a, b| b[0] = argmax_lane(a));
}

/// The int64 indices of the maxima of `x` over `axes` (sorted, in range),
/// counted in the C order of the reduced axes.
pub fn argmax(x: &Tensor, axes: &[usize], pool: Option<&mut Pool>) -> Result<Tensor> {
    let lanes = Lanes::new(x, axes);
    let kept = lanes.shape()[..x.ndim() - axes.len()].to_vec();
    let mut out = output(pool, DType::Int64, &kept);
    if lanes.n == 0 {
        return Err(Error::Value(
            "attempt to get argmax of an empty sequence".into(),
        ));
    }
    use DType::*;
    match x.dtype() {
        Bool => run::<bool>(&lanes, &mut out),
        Int8 => run::<i8>(&lanes, &mut out),
        Int16 => run::<i16>(&lanes, &mut out),
        Int32 => run::<i32>(&lanes, &mut out),
        Int64 => run::<i64>(&lanes, &mut out),
        UInt8 => run::<u8>(&lanes, &mut out),
        UInt16 => run::<u16>(&lanes, &mut out),
        UInt32 => run::<u32>(&lanes, &mut out),
        UInt64 => run::<u64>(&lanes, &mut out),
        Float16 => run::<f16>(&lanes, &mut out),
        Float32 => run::<f32>(&lanes, &mut out),
        Float64 => run::<f64>(&lanes, &mut out),
        other => {
            return Err(Error::OutOfScope(format!(
                "Argmax of {other} is not supported"
            )))
        }
    }
    Ok(out)
}
