//! Tensor values: a dtype, a shape and C-ordered bytes behind an `Arc`.
//! For now this holds constants' data; the Execution work grows it into
//! strided views over shared buffers.

mod format;

use crate::dtype::DType;
use crate::error::{Error, Result};
use std::sync::Arc;

pub use format::format_tensor;

/// An immutable, C-contiguous tensor value.
#[derive(Clone, Debug)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    bytes: Arc<[u8]>,
}

/// Rust element types that map to a [`DType`].
pub trait Element: Copy + 'static {
    /// The matching dtype.
    const DTYPE: DType;
    /// Native-endian bytes of one element.
    fn to_ne_bytes_vec(self) -> Vec<u8>;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn to_ne_bytes_vec(self) -> Vec<u8> { self.to_ne_bytes().to_vec() }
        }
    )*};
}
element!(i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8, u16 => UInt16,
         u32 => UInt32, u64 => UInt64, f32 => Float32, f64 => Float64);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_ne_bytes_vec(self) -> Vec<u8> {
        vec![self as u8]
    }
}

/// One element read out of a tensor, widened for inspection and printing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A bool element.
    Bool(bool),
    /// A signed integer element.
    Int(i64),
    /// An unsigned integer element.
    UInt(u64),
    /// A float element, with the dtype's precision kept for printing.
    Float(f64, DType),
    /// A complex element (real, imaginary).
    Complex(f64, f64, DType),
}

impl Tensor {
    /// A tensor from raw native-endian bytes in C order.
    pub fn from_bytes(dtype: DType, shape: Vec<usize>, bytes: Vec<u8>) -> Result<Self> {
        let n: usize = shape.iter().product();
        if bytes.len() != n * dtype.itemsize() {
            return Err(Error::Value(format!(
                "{} bytes cannot hold a {dtype} tensor of shape {shape:?}",
                bytes.len()
            )));
        }
        Ok(Tensor {
            dtype,
            shape,
            bytes: bytes.into(),
        })
    }

    /// A tensor from elements in C order.
    pub fn from_vec<T: Element>(shape: Vec<usize>, data: Vec<T>) -> Result<Self> {
        let bytes = data
            .into_iter()
            .flat_map(Element::to_ne_bytes_vec)
            .collect();
        Self::from_bytes(T::DTYPE, shape, bytes)
    }

    /// A 0-d tensor.
    pub fn scalar<T: Element>(value: T) -> Self {
        Tensor {
            dtype: T::DTYPE,
            shape: vec![],
            bytes: value.to_ne_bytes_vec().into(),
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw bytes, C order, native endian.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Element `i` in C order.
    pub fn get(&self, i: usize) -> Scalar {
        let size = self.dtype.itemsize();
        let b = &self.bytes[i * size..(i + 1) * size];
        read_scalar(self.dtype, b)
    }

    /// Same dtype, same shape and the same values, NaN equal to NaN
    /// (the test behind PyTensor's `TensorConstantSignature`).
    pub fn same_values(&self, other: &Tensor) -> bool {
        self.dtype == other.dtype
            && self.shape == other.shape
            && (0..self.len()).all(|i| scalar_eq_nan(self.get(i), other.get(i)))
    }
}

fn scalar_eq_nan(a: Scalar, b: Scalar) -> bool {
    let feq = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    match (a, b) {
        (Scalar::Float(x, _), Scalar::Float(y, _)) => feq(x, y),
        (Scalar::Complex(xr, xi, _), Scalar::Complex(yr, yi, _)) => feq(xr, yr) && feq(xi, yi),
        _ => a == b,
    }
}

fn read_scalar(dtype: DType, b: &[u8]) -> Scalar {
    macro_rules! rd {
        ($t:ty) => {
            <$t>::from_ne_bytes(b.try_into().expect("slice has the dtype's item size"))
        };
    }
    use DType::*;
    match dtype {
        Bool => Scalar::Bool(b[0] != 0),
        Int8 => Scalar::Int(rd!(i8) as i64),
        Int16 => Scalar::Int(rd!(i16) as i64),
        Int32 => Scalar::Int(rd!(i32) as i64),
        Int64 => Scalar::Int(rd!(i64)),
        UInt8 => Scalar::UInt(rd!(u8) as u64),
        UInt16 => Scalar::UInt(rd!(u16) as u64),
        UInt32 => Scalar::UInt(rd!(u32) as u64),
        UInt64 => Scalar::UInt(rd!(u64)),
        Float16 => Scalar::Float(f16_to_f64(rd!(u16)), dtype),
        Float32 => Scalar::Float(rd!(f32) as f64, dtype),
        Float64 => Scalar::Float(rd!(f64), dtype),
        Complex64 => {
            let re = f32::from_ne_bytes(b[..4].try_into().expect("8-byte complex64"));
            let im = f32::from_ne_bytes(b[4..].try_into().expect("8-byte complex64"));
            Scalar::Complex(re as f64, im as f64, dtype)
        }
        Complex128 => {
            let re = f64::from_ne_bytes(b[..8].try_into().expect("16-byte complex128"));
            let im = f64::from_ne_bytes(b[8..].try_into().expect("16-byte complex128"));
            Scalar::Complex(re, im, dtype)
        }
    }
}

/// IEEE half to double, for reading float16 data without a dependency.
fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = ((bits >> 10) & 0x1f) as i32;
    let frac = (bits & 0x3ff) as f64;
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_and_read() {
        let t = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2.0, 3.0, f64::NAN]).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t.get(2), Scalar::Float(3.0, DType::Float64));
        assert!(t.same_values(&t.clone()));
        assert!(Tensor::from_vec(vec![3], vec![1i32, 2]).is_err());
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
    }
}
