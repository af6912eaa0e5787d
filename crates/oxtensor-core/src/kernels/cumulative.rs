//! Cumulative sums and products along one axis (`CumOp`), lanes in
//! parallel. Integers wrap as in NumPy; booleans accumulate as logical
//! or (sum) and and (product), which is what NumPy's int result cast
//! back to bool gives.

use super::alloc::{output, Pool};
use super::lanes::{for_each_lane, Lanes};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Element, Tensor};
use half::f16;
use num_complex::Complex;

/// Which running operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CumMode {
    /// Running sum (`cumsum`).
    Add,
    /// Running product (`cumprod`).
    Mul,
}

fn scan<T: Element>(lanes: &Lanes, out: &mut Tensor, f: impl Fn(T, T) -> T + Sync + Send) {
    let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
    let y = out.as_mut_slice::<T>().expect("fresh output");
    for_each_lane(x, lanes.n, y, lanes.n, |a, b| {
        let mut acc = a[0];
        b[0] = acc;
        for (o, &v) in b[1..].iter_mut().zip(&a[1..]) {
            acc = f(acc, v);
            *o = acc;
        }
    });
}

macro_rules! wrapping {
    ($mode:expr, $lanes:expr, $out:expr, $T:ty) => {
        match $mode {
            CumMode::Add => scan::<$T>($lanes, $out, |a, b| a.wrapping_add(b)),
            CumMode::Mul => scan::<$T>($lanes, $out, |a, b| a.wrapping_mul(b)),
        }
    };
}

macro_rules! arith {
    ($mode:expr, $lanes:expr, $out:expr, $T:ty) => {
        match $mode {
            CumMode::Add => scan::<$T>($lanes, $out, |a, b| a + b),
            CumMode::Mul => scan::<$T>($lanes, $out, |a, b| a * b),
        }
    };
}

/// The running sum or product of `x` along `axis`.
pub fn cumulative(
    x: &Tensor,
    axis: usize,
    mode: CumMode,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let lanes = Lanes::new(x, &[axis]);
    let mut out = output(pool, x.dtype(), &lanes.shape());
    let out_ref = &mut out;
    use DType::*;
    match x.dtype() {
        Bool => match mode {
            CumMode::Add => scan::<bool>(&lanes, out_ref, |a, b| a | b),
            CumMode::Mul => scan::<bool>(&lanes, out_ref, |a, b| a & b),
        },
        Int8 => wrapping!(mode, &lanes, out_ref, i8),
        Int16 => wrapping!(mode, &lanes, out_ref, i16),
        Int32 => wrapping!(mode, &lanes, out_ref, i32),
        Int64 => wrapping!(mode, &lanes, out_ref, i64),
        UInt8 => wrapping!(mode, &lanes, out_ref, u8),
        UInt16 => wrapping!(mode, &lanes, out_ref, u16),
        UInt32 => wrapping!(mode, &lanes, out_ref, u32),
        UInt64 => wrapping!(mode, &lanes, out_ref, u64),
        Float16 => arith!(mode, &lanes, out_ref, f16),
        Float32 => arith!(mode, &lanes, out_ref, f32),
        Float64 => arith!(mode, &lanes, out_ref, f64),
        Complex64 => arith!(mode, &lanes, out_ref, Complex<f32>),
        Complex128 => arith!(mode, &lanes, out_ref, Complex<f64>),
    }
    Ok(lanes.restore(out))
}
