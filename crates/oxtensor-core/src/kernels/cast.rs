//! Conversion between dtypes, as NumPy's `astype` does it: numbers convert
//! with `as` (floats to ints truncate), anything to bool is `!= 0`, complex
//! to real keeps the real part.

use super::iter::Nest;
use super::map::map1;
use crate::dtype::DType;
use crate::tensor::Tensor;
use half::f16;
use num_complex::{Complex32, Complex64 as C64};

/// A number that can be converted to any element type.
trait CastTo: Copy {
    fn f64_(self) -> f64;
    fn i64_(self) -> i64;
    fn u64_(self) -> u64;
    fn bool_(self) -> bool;
    fn imag(self) -> f64 {
        0.0
    }
}

macro_rules! cast_prim {
    ($($t:ty),*) => {$(
        impl CastTo for $t {
            fn f64_(self) -> f64 { self as f64 }
            fn i64_(self) -> i64 { self as i64 }
            fn u64_(self) -> u64 { self as u64 }
            fn bool_(self) -> bool { self != (0 as $t) }
        }
    )*};
}
cast_prim!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

impl CastTo for bool {
    fn f64_(self) -> f64 {
        self as u8 as f64
    }
    fn i64_(self) -> i64 {
        self as i64
    }
    fn u64_(self) -> u64 {
        self as u64
    }
    fn bool_(self) -> bool {
        self
    }
}

impl CastTo for f16 {
    fn f64_(self) -> f64 {
        self.to_f64()
    }
    fn i64_(self) -> i64 {
        self.to_f64() as i64
    }
    fn u64_(self) -> u64 {
        self.to_f64() as u64
    }
    fn bool_(self) -> bool {
        self.to_f64() != 0.0
    }
}

macro_rules! cast_complex {
    ($($t:ty),*) => {$(
        impl CastTo for $t {
            fn f64_(self) -> f64 { self.re as f64 }
            fn i64_(self) -> i64 { self.re as i64 }
            fn u64_(self) -> u64 { self.re as u64 }
            fn bool_(self) -> bool { self.re != 0.0 || self.im != 0.0 }
            fn imag(self) -> f64 { self.im as f64 }
        }
    )*};
}
cast_complex!(Complex32, C64);

/// Casts `src`'s elements (of Rust type `I`) into `out` of dtype `to`.
fn cast_from<I: CastTo + crate::tensor::Element>(src: &Tensor, out: &mut Tensor) {
    use DType::*;
    match out.dtype() {
        Bool => map1(src, out, |x: I| x.bool_()),
        // Integers go through i64/u64 and wrap like NumPy's C casts.
        Int8 => map1(src, out, |x: I| x.i64_() as i8),
        Int16 => map1(src, out, |x: I| x.i64_() as i16),
        Int32 => map1(src, out, |x: I| x.i64_() as i32),
        Int64 => map1(src, out, |x: I| x.i64_()),
        UInt8 => map1(src, out, |x: I| x.i64_() as u8),
        UInt16 => map1(src, out, |x: I| x.i64_() as u16),
        UInt32 => map1(src, out, |x: I| x.i64_() as u32),
        UInt64 => map1(src, out, |x: I| x.u64_()),
        Float16 => map1(src, out, |x: I| f16::from_f64(x.f64_())),
        Float32 => map1(src, out, |x: I| x.f64_() as f32),
        Float64 => map1(src, out, |x: I| x.f64_()),
        Complex64 => map1(src, out, |x: I| {
            Complex32::new(x.f64_() as f32, x.imag() as f32)
        }),
        Complex128 => map1(src, out, |x: I| C64::new(x.f64_(), x.imag())),
    }
}

/// Writes `src` converted to `out`'s dtype into `out` (same shape).
pub fn cast_into(src: &Tensor, out: &mut Tensor) {
    use DType::*;
    match src.dtype() {
        Bool => cast_from::<bool>(src, out),
        Int8 => cast_from::<i8>(src, out),
        Int16 => cast_from::<i16>(src, out),
        Int32 => cast_from::<i32>(src, out),
        Int64 => cast_from::<i64>(src, out),
        UInt8 => cast_from::<u8>(src, out),
        UInt16 => cast_from::<u16>(src, out),
        UInt32 => cast_from::<u32>(src, out),
        UInt64 => cast_from::<u64>(src, out),
        Float16 => cast_from::<f16>(src, out),
        Float32 => cast_from::<f32>(src, out),
        Float64 => cast_from::<f64>(src, out),
        Complex64 => cast_from::<Complex32>(src, out),
        Complex128 => cast_from::<C64>(src, out),
    }
}

/// `src` as dtype `to`: itself when the dtype already matches.
pub fn cast(src: &Tensor, to: DType) -> Tensor {
    if src.dtype() == to {
        return src.clone();
    }
    // `cast_into` writes every element.
    let mut out = Tensor::uninit(to, src.shape());
    cast_into(src, &mut out);
    out
}

/// Whether every byte of a bool tensor is 0 or 1. Host memory can hold
/// other bytes (`np.uint8` data viewed as bool, which NumPy reads as
/// nonzero); reading those as Rust `bool`s is undefined behaviour, so
/// such data must be converted before any kernel sees it.
pub fn bools_are_canonical(t: &Tensor) -> bool {
    if t.dtype() != DType::Bool {
        return true;
    }
    let nest = Nest::new(t.shape(), [t.strides().into()]);
    let base = t.as_ptr();
    let mut ok = true;
    nest.for_each_run(|[off], n, [step]| {
        if !ok {
            return;
        }
        if step == 1 {
            // SAFETY: a run of `n` elements one byte apart inside the
            // tensor's checked layout, read as plain bytes.
            let run = unsafe { std::slice::from_raw_parts(base.offset(off), n) };
            ok = bytes_are_canonical(run);
            return;
        }
        // SAFETY: the nest only yields offsets of elements inside the
        // tensor's checked layout; each is read as a plain byte.
        ok = (0..n as isize).all(|i| unsafe { *base.offset(off + i * step) } <= 1);
    });
    ok
}

/// Whether every byte is 0 or 1: or-ed together a block at a time, which
/// vectorises (a byte-by-byte early exit ran at a third of a byte per
/// nanosecond: 0.34 ms for each million-element mask a function was given).
fn bytes_are_canonical(bytes: &[u8]) -> bool {
    bytes
        .chunks(4096)
        .all(|block| block.iter().fold(0u8, |acc, &b| acc | b) <= 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    #[test]
    fn casts_like_numpy() {
        let t = Tensor::from_vec(vec![3], vec![1.7f64, -2.5, 0.0]).unwrap();
        let i = cast(&t, DType::Int32);
        assert_eq!((i.get(0), i.get(1)), (Scalar::Int(1), Scalar::Int(-2)));
        let b = cast(&t, DType::Bool);
        assert_eq!(
            (b.get(0), b.get(2)),
            (Scalar::Bool(true), Scalar::Bool(false))
        );
        let w = cast(&Tensor::scalar(300i32), DType::UInt8);
        assert_eq!(w.get(0), Scalar::UInt(44));
        let h = cast(&Tensor::scalar(0.5f64), DType::Float16);
        assert_eq!(h.get(0), Scalar::Float(0.5, DType::Float16));
        let c = cast(&Tensor::scalar(2i8), DType::Complex128);
        assert_eq!(c.get(0), Scalar::Complex(2.0, 0.0, DType::Complex128));
    }

    #[test]
    fn non_canonical_bool_bytes_are_spotted() {
        let bytes = Tensor::from_bytes(DType::Bool, vec![4], vec![0, 1, 2, 1]).unwrap();
        assert!(!bools_are_canonical(&bytes));
        let strided = bytes.view(&[2], &[2], 0).unwrap();
        assert!(!bools_are_canonical(&strided));
        let skipping = bytes.view(&[2], &[3], 0).unwrap();
        assert!(bools_are_canonical(&skipping));
        assert!(bools_are_canonical(&Tensor::zeros(DType::Bool, &[0])));
        let mut long = vec![1u8; 10_000];
        assert!(bools_are_canonical(
            &Tensor::from_bytes(DType::Bool, vec![10_000], long.clone()).unwrap()
        ));
        long[9_999] = 3;
        assert!(!bools_are_canonical(
            &Tensor::from_bytes(DType::Bool, vec![10_000], long).unwrap()
        ));
    }
}
