//! Rust element types for each [`DType`], and widened scalars for reading
//! single elements (printing, constant comparison).

use crate::dtype::DType;
use half::f16;
use num_complex::{Complex32, Complex64 as C64};

/// A Rust type stored in tensors of one dtype.
pub trait Element: Copy + Send + Sync + Default + 'static {
    /// The matching dtype.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t { const DTYPE: DType = DType::$d; }
    )*};
}
element!(bool => Bool, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8,
         u16 => UInt16, u32 => UInt32, u64 => UInt64, f16 => Float16, f32 => Float32,
         f64 => Float64, Complex32 => Complex64, C64 => Complex128);

/// One element, widened for inspection and printing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A bool element.
    Bool(bool),
    /// A signed integer element.
    Int(i64),
    /// An unsigned integer element.
    UInt(u64),
    /// A float element, with the dtype kept for printing precision.
    Float(f64, DType),
    /// A complex element (real, imaginary).
    Complex(f64, f64, DType),
}

/// Reads the element at `ptr`.
pub(super) fn read_scalar(dtype: DType, ptr: *const u8) -> Scalar {
    // SAFETY: callers pass a pointer to an in-bounds, aligned element of
    // `dtype` (the tensor layout invariant).
    unsafe {
        use DType::*;
        match dtype {
            Bool => Scalar::Bool(*ptr != 0),
            Int8 => Scalar::Int(*(ptr as *const i8) as i64),
            Int16 => Scalar::Int(*(ptr as *const i16) as i64),
            Int32 => Scalar::Int(*(ptr as *const i32) as i64),
            Int64 => Scalar::Int(*(ptr as *const i64)),
            UInt8 => Scalar::UInt(*ptr as u64),
            UInt16 => Scalar::UInt(*(ptr as *const u16) as u64),
            UInt32 => Scalar::UInt(*(ptr as *const u32) as u64),
            UInt64 => Scalar::UInt(*(ptr as *const u64)),
            Float16 => Scalar::Float((*(ptr as *const f16)).to_f64(), dtype),
            Float32 => Scalar::Float(*(ptr as *const f32) as f64, dtype),
            Float64 => Scalar::Float(*(ptr as *const f64), dtype),
            Complex64 => {
                let c = *(ptr as *const Complex32);
                Scalar::Complex(c.re as f64, c.im as f64, dtype)
            }
            Complex128 => {
                let c = *(ptr as *const C64);
                Scalar::Complex(c.re, c.im, dtype)
            }
        }
    }
}

/// Equality with NaN equal to NaN.
pub(super) fn scalar_eq_nan(a: Scalar, b: Scalar) -> bool {
    let feq = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    match (a, b) {
        (Scalar::Float(x, _), Scalar::Float(y, _)) => feq(x, y),
        (Scalar::Complex(xr, xi, _), Scalar::Complex(yr, yi, _)) => feq(xr, yr) && feq(xi, yi),
        _ => a == b,
    }
}
