//! `Argmax` along lanes: the index of the first maximum of each lane, with
//! NumPy's rule that a NaN is the maximum (the first NaN wins). The same
//! code with the comparison reversed (`MIN`) is `argmin`, whose NaN rule is
//! the same: the specialize rewrite `local_argmax_of_reversed` turns
//! `Argmax(Neg(x))`, PyTensor's `argmin`, into `Argmin(x)`, which runs it
//! instead of writing the negated copy.

mod columns;
mod int64;
pub(crate) mod lane;
pub(crate) mod simd;
pub(crate) mod split;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::{output, Pool};
use crate::kernels::cpu::has_avx2;
use crate::kernels::elemwise::lanes::{for_each_lane, Lanes};
#[cfg(target_arch = "x86_64")]
use crate::kernels::float_vec::SimdFloat;
use crate::kernels::match_ints;
use crate::tensor::{Element, Tensor};
use columns::{argmax_columns, argmax_float_columns, leading_columns};
use half::f16;
use int64::argmax_lane_i64;
use lane::argmax_lane;
#[cfg(target_arch = "x86_64")]
use simd::{argmax_tracked, width_for};
use split::{argmax_split, worth_splitting};

/// [`argmax_lane`] for float32 and float64: with AVX2 (AVX-512 for
/// float64 where the CPU has it, `width_for`) one pass that tracks
/// where each vector lane's maximum was first met (`argmax_tracked`).
/// Float64 lanes four at a time (`lane_group`'s spans, AVX2) took 1.4x
/// to 1.6x as long on one thread on 2000x2000 and 4000x4000 rows.
fn argmax_lane_float<T: SimdFloat, const MIN: bool>(x: &[T], avx2: bool) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if let Some(w) = width_for::<T>().filter(|_| avx2) {
        if let Some(at) = argmax_tracked::<T, MIN>(x, w) {
            return at as i64;
        }
    }
    argmax_lane::<T, MIN>(x, avx2)
}

fn run<T: Element + PartialOrd, const MIN: bool>(lanes: &Lanes, out: &mut Tensor) {
    run_with(lanes, out, argmax_lane::<T, MIN>);
}

fn run_with<T: Element>(
    lanes: &Lanes,
    out: &mut Tensor,
    lane: impl Fn(&[T], bool) -> i64 + Sync + Send,
) {
    let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
    let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
    let avx2 = has_avx2();
    for_each_lane(x, lanes.n, y, 1, |a, b| b[0] = lane(a, avx2));
}

/// The int64 indices of the maxima of `x` over `axes` (sorted, in range),
/// counted in the C order of the reduced axes.
pub fn argmax(x: &Tensor, axes: &[usize], pool: Option<&mut Pool>) -> Result<Tensor> {
    arg_extreme::<false>(x, axes, pool)
}

/// The int64 indices of the minima of `x` over `axes` (the first NaN's
/// where a lane holds one): `argmax` of the order-reversed values.
pub fn argmin(x: &Tensor, axes: &[usize], pool: Option<&mut Pool>) -> Result<Tensor> {
    arg_extreme::<true>(x, axes, pool)
}

fn arg_extreme<const MIN: bool>(
    x: &Tensor,
    axes: &[usize],
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    if let Some(cols) = leading_columns(x, axes) {
        let mut out = output(pool, DType::Int64, &x.shape()[axes.len()..])?;
        columns::<MIN>(x, cols, &mut out)?;
        return Ok(out);
    }
    let lanes = Lanes::new(x, axes)?;
    let kept = lanes.shape()[..x.ndim() - axes.len()].to_vec();
    let mut out = output(pool, DType::Int64, &kept)?;
    if lanes.n == 0 {
        let name = if MIN { "argmin" } else { "argmax" };
        return Err(Error::Value(format!(
            "attempt to get {name} of an empty sequence"
        )));
    }
    if lanes.rows == 1 && worth_splitting(lanes.n) {
        return one_long_lane::<MIN>(&lanes, out);
    }
    use DType::*;
    match x.dtype() {
        Bool => run::<bool, MIN>(&lanes, &mut out),
        Int8 => run::<i8, MIN>(&lanes, &mut out),
        Int16 => run::<i16, MIN>(&lanes, &mut out),
        Int32 => run::<i32, MIN>(&lanes, &mut out),
        Int64 => run_with(&lanes, &mut out, argmax_lane_i64::<MIN>),
        UInt8 => run::<u8, MIN>(&lanes, &mut out),
        UInt16 => run::<u16, MIN>(&lanes, &mut out),
        UInt32 => run::<u32, MIN>(&lanes, &mut out),
        UInt64 => run::<u64, MIN>(&lanes, &mut out),
        Float16 => run::<f16, MIN>(&lanes, &mut out),
        Float32 => run_with(&lanes, &mut out, argmax_lane_float::<f32, MIN>),
        Float64 => run_with(&lanes, &mut out, argmax_lane_float::<f64, MIN>),
        other => {
            return Err(Error::OutOfScope(format!(
                "Argmax of {other} is not supported"
            )))
        }
    }
    Ok(out)
}

/// [`argmax_columns`] for every dtype `argmax` takes.
fn columns<const MIN: bool>(x: &Tensor, cols: usize, out: &mut Tensor) -> Result<()> {
    fn run<T: Element + PartialOrd, const MIN: bool>(x: &Tensor, cols: usize, out: &mut Tensor) {
        let x = x.as_slice::<T>().expect("C-contiguous input");
        let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
        argmax_columns::<T, MIN>(x, cols, y);
    }
    fn float<T: SimdFloat, const MIN: bool>(x: &Tensor, cols: usize, out: &mut Tensor) {
        let x = x.as_slice::<T>().expect("C-contiguous input");
        let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
        argmax_float_columns::<T, MIN>(x, cols, y);
    }
    use DType::*;
    match_ints!(
        x.dtype(),
        |T| run::<T, MIN>(x, cols, out),
        Bool => run::<bool, MIN>(x, cols, out),
        Float16 => run::<f16, MIN>(x, cols, out),
        Float32 => float::<f32, MIN>(x, cols, out),
        Float64 => float::<f64, MIN>(x, cols, out),
        other => {
            return Err(Error::OutOfScope(format!(
                "Argmax of {other} is not supported"
            )))
        }
    );
    Ok(())
}

/// [`argmax_split`] of the single lane, for every dtype `argmax` takes.
fn one_long_lane<const MIN: bool>(lanes: &Lanes, mut out: Tensor) -> Result<Tensor> {
    fn split<T: Element + PartialOrd, const MIN: bool>(
        lanes: &Lanes,
        out: &mut Tensor,
        lane: impl Fn(&[T], bool) -> i64 + Sync + Send,
    ) {
        let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
        let y = out.as_mut_slice::<i64>().expect("fresh int64 output");
        y[0] = argmax_split::<T, MIN>(x, has_avx2(), lane);
    }
    use DType::*;
    match lanes.data.dtype() {
        Bool => split::<_, MIN>(lanes, &mut out, argmax_lane::<bool, MIN>),
        Int8 => split::<_, MIN>(lanes, &mut out, argmax_lane::<i8, MIN>),
        Int16 => split::<_, MIN>(lanes, &mut out, argmax_lane::<i16, MIN>),
        Int32 => split::<_, MIN>(lanes, &mut out, argmax_lane::<i32, MIN>),
        Int64 => split::<_, MIN>(lanes, &mut out, argmax_lane_i64::<MIN>),
        UInt8 => split::<_, MIN>(lanes, &mut out, argmax_lane::<u8, MIN>),
        UInt16 => split::<_, MIN>(lanes, &mut out, argmax_lane::<u16, MIN>),
        UInt32 => split::<_, MIN>(lanes, &mut out, argmax_lane::<u32, MIN>),
        UInt64 => split::<_, MIN>(lanes, &mut out, argmax_lane::<u64, MIN>),
        Float16 => split::<_, MIN>(lanes, &mut out, argmax_lane::<f16, MIN>),
        Float32 => split::<_, MIN>(lanes, &mut out, argmax_lane_float::<f32, MIN>),
        Float64 => split::<_, MIN>(lanes, &mut out, argmax_lane_float::<f64, MIN>),
        other => {
            return Err(Error::OutOfScope(format!(
                "Argmax of {other} is not supported"
            )))
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
