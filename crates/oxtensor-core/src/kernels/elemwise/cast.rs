//! Conversion between dtypes, as NumPy's `astype` does it: numbers convert
//! with `as` (floats to ints truncate), anything to bool is `!= 0`, complex
//! to real keeps the real part.

use super::map::map1_slices;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::cpu::{level, Level};
use crate::kernels::iter::Nest;
use crate::kernels::Work;
use crate::tensor::{Element, Tensor};
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
cast_prim!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! cast_float {
    ($($t:ty),*) => {$(
        impl CastTo for $t {
            fn f64_(self) -> f64 { self as f64 }
            fn i64_(self) -> i64 { float_to_i64(self as f64) }
            fn u64_(self) -> u64 { float_to_u64(self as f64) }
            fn bool_(self) -> bool { self != 0.0 }
        }
    )*};
}
cast_float!(f32, f64);

/// `x as i64` (NaN to 0, saturating) written as selects around a
/// conversion that only sees values in range, so a loop of it vectorises
/// (AVX-512's `vcvttpd2qq`); `as` itself stayed scalar: 0.5x NumPy.
#[inline(always)]
fn float_to_i64(x: f64) -> i64 {
    const LO: f64 = i64::MIN as f64; // -2^63, exact
    const HI: f64 = f64::from_bits((i64::MAX as f64).to_bits() - 1); // below 2^63
    let c = if x >= LO { x } else { LO }; // NaN -> LO
    let c = if c <= HI { c } else { HI };
    // SAFETY: `c` is finite and truncates into i64's range.
    let t: i64 = unsafe { c.to_int_unchecked() };
    let t = if x > HI { i64::MAX } else { t };
    if x.is_nan() {
        0
    } else {
        t
    }
}

/// `x as u64` (NaN and negatives to 0, saturating), as [`float_to_i64`].
#[inline(always)]
fn float_to_u64(x: f64) -> u64 {
    const HI: f64 = f64::from_bits((u64::MAX as f64).to_bits() - 1); // below 2^64
    let c = if x >= 0.0 { x } else { 0.0 }; // NaN -> 0
    let c = if c <= HI { c } else { HI };
    // SAFETY: `c` is finite and truncates into u64's range.
    let t: u64 = unsafe { c.to_int_unchecked() };
    if x > HI {
        u64::MAX
    } else {
        t
    }
}

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
fn cast_from<I: CastTo + Element>(src: &Tensor, out: &mut Tensor) {
    use DType::*;
    match out.dtype() {
        Bool => cast_map(src, out, |x: I| x.bool_()),
        // Integers go through i64/u64 and wrap like NumPy's C casts.
        Int8 => cast_map(src, out, |x: I| x.i64_() as i8),
        Int16 => cast_map(src, out, |x: I| x.i64_() as i16),
        Int32 => cast_map(src, out, |x: I| x.i64_() as i32),
        Int64 => cast_map(src, out, |x: I| x.i64_()),
        UInt8 => cast_map(src, out, |x: I| x.i64_() as u8),
        UInt16 => cast_map(src, out, |x: I| x.i64_() as u16),
        UInt32 => cast_map(src, out, |x: I| x.i64_() as u32),
        UInt64 => cast_map(src, out, |x: I| x.u64_()),
        Float16 => cast_map(src, out, |x: I| f16::from_f64(x.f64_())),
        Float32 => cast_map(src, out, |x: I| x.f64_() as f32),
        Float64 => cast_map(src, out, |x: I| x.f64_()),
        Complex64 => cast_map(src, out, |x: I| {
            Complex32::new(x.f64_() as f32, x.imag() as f32)
        }),
        Complex128 => cast_map(src, out, |x: I| C64::new(x.f64_(), x.imag())),
    }
}

/// `out[i] = f(src[i])`: [`map1`] whose contiguous runs are built for
/// AVX-512 where the CPU has it (float-to-integer conversions only
/// vectorise there), else AVX2.
fn cast_map<I: Element, O: Element>(src: &Tensor, out: &mut Tensor, f: impl Fn(I) -> O + Sync) {
    map1_slices(src, out, Work::Light, &f, |ys, xs| cast_slice(ys, xs, &f));
}

fn cast_slice<I: Element, O: Element>(ys: &mut [O], xs: &[I], f: &impl Fn(I) -> O) {
    #[cfg(target_arch = "x86_64")]
    match level() {
        // SAFETY: `cpu::level` never names a build the CPU does not run.
        Level::Avx512 => return unsafe { cast_slice_avx512(ys, xs, f) },
        // SAFETY: as above.
        Level::Avx2 => return unsafe { cast_slice_avx2(ys, xs, f) },
        Level::Base => {}
    }
    cast_slice_plain(ys, xs, f);
}

#[inline(always)]
fn cast_slice_plain<I: Element, O: Element>(ys: &mut [O], xs: &[I], f: &impl Fn(I) -> O) {
    ys.iter_mut().zip(xs).for_each(|(y, &x)| *y = f(x));
}

/// # Safety
/// The CPU must run AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn cast_slice_avx2<I: Element, O: Element>(ys: &mut [O], xs: &[I], f: &impl Fn(I) -> O) {
    cast_slice_plain(ys, xs, f);
}

/// # Safety
/// The CPU must run AVX-512 F, DQ and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
unsafe fn cast_slice_avx512<I: Element, O: Element>(ys: &mut [O], xs: &[I], f: &impl Fn(I) -> O) {
    cast_slice_plain(ys, xs, f);
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
pub fn cast(src: &Tensor, to: DType) -> Result<Tensor> {
    if src.dtype() == to {
        return Ok(src.clone());
    }
    // `cast_into` writes every element.
    let mut out = Tensor::uninit(to, src.shape())?;
    cast_into(src, &mut out);
    Ok(out)
}

/// A 0-d tensor of `to` holding `value` converted (NumPy's `astype`).
/// Infallible as [`Tensor::scalar`] is: the few bytes of a 0-d tensor are
/// not worth a `Result` at every constant a graph builder makes.
pub fn scalar_as<T: Element>(value: T, to: DType) -> Tensor {
    cast(&Tensor::scalar(value), to)
        .unwrap_or_else(|_| std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u64; 2]>()))
}

/// [`cast`] of a value a graph already holds (a constant being rewritten):
/// its size is one the process holds already, so the only failure left is
/// the allocator's, handled as Rust's own collections handle it.
pub fn cast_constant(src: &Tensor, to: DType) -> Tensor {
    cast(src, to).unwrap_or_else(|_| {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<u8>(src.len())
                .unwrap_or(std::alloc::Layout::new::<[u64; 2]>()),
        )
    })
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
    // Every byte is 0 or 1 exactly when their bitwise OR is: a fold with
    // no early exit, which vectorises (a short-circuiting `all` read a
    // byte at a time, 0.65 ms per million bools).
    let mut bits = 0u8;
    nest.for_each_run(|[off], n, [step]| {
        bits |= if step == 1 {
            // SAFETY: a run of `n` contiguous bytes of the nest over `t`'s
            // own shape and strides, inside the extent `Tensor::check_layout`
            // bounded by the buffer (`layout::extent`); read as plain bytes.
            let run = unsafe { std::slice::from_raw_parts(base.offset(off), n) };
            crate::kernels::reduce::byte_fold::or_bytes(run)
        } else {
            // SAFETY: as above, element by element; plain bytes.
            (0..n as isize).fold(0, |m, i| m | unsafe { *base.offset(off + i * step) })
        };
    });
    bits <= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    #[test]
    fn casts_like_numpy() {
        let t = Tensor::from_vec(vec![3], vec![1.7f64, -2.5, 0.0]).unwrap();
        let i = cast(&t, DType::Int32).unwrap();
        assert_eq!((i.get(0), i.get(1)), (Scalar::Int(1), Scalar::Int(-2)));
        let b = cast(&t, DType::Bool).unwrap();
        assert_eq!(
            (b.get(0), b.get(2)),
            (Scalar::Bool(true), Scalar::Bool(false))
        );
        let w = cast(&Tensor::scalar(300i32), DType::UInt8).unwrap();
        assert_eq!(w.get(0), Scalar::UInt(44));
        let h = cast(&Tensor::scalar(0.5f64), DType::Float16).unwrap();
        assert_eq!(h.get(0), Scalar::Float(0.5, DType::Float16));
        let c = cast(&Tensor::scalar(2i8), DType::Complex128).unwrap();
        assert_eq!(c.get(0), Scalar::Complex(2.0, 0.0, DType::Complex128));
    }

    #[test]
    fn float_to_integer_selects_match_rust_as() {
        let mut xs = vec![0.0, -0.0, 0.5, -0.5, 1.99, -1.99, f64::NAN, -f64::NAN];
        xs.extend([
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
            f64::MIN_POSITIVE,
        ]);
        for p in [31, 32, 52, 53, 62, 63, 64, 65] {
            let b = 2f64.powi(p);
            xs.extend([
                b,
                -b,
                b - 1.0,
                1.0 - b,
                b * (1.0 - f64::EPSILON),
                -b * (1.0 - f64::EPSILON),
            ]);
        }
        for x in xs {
            assert_eq!(float_to_i64(x), x as i64, "{x} to i64");
            assert_eq!(float_to_u64(x), x as u64, "{x} to u64");
            let y = x as f32;
            assert_eq!(y.i64_(), y as i64, "{y}f32 to i64");
            assert_eq!(y.u64_(), y as u64, "{y}f32 to u64");
        }
        // The vector loop gives what one element does, at any length.
        let t = Tensor::from_vec(vec![5], vec![f64::NAN, 3.7, -1e30, 1e30, -2.5]).unwrap();
        let got = cast(&t, DType::Int64).unwrap();
        let want = [0, 3, i64::MIN, i64::MAX, -2].map(Scalar::Int);
        assert_eq!((0..5).map(|i| got.get(i)).collect::<Vec<_>>(), want);
    }

    #[test]
    fn non_canonical_bool_bytes_are_spotted() {
        let bytes = Tensor::from_bytes(DType::Bool, vec![4], vec![0, 1, 2, 1]).unwrap();
        assert!(!bools_are_canonical(&bytes));
        let strided = bytes.view(&[2], &[2], 0).unwrap();
        assert!(!bools_are_canonical(&strided));
        let skipping = bytes.view(&[2], &[3], 0).unwrap();
        assert!(bools_are_canonical(&skipping));
        assert!(bools_are_canonical(
            &Tensor::zeros(DType::Bool, &[0]).unwrap()
        ));
        // Long contiguous runs (the vectorised fold), one bad byte anywhere.
        for (at, byte) in [(0, 2u8), (517, 0x80), (999, 0xff)] {
            let mut data: Vec<u8> = (0..1000).map(|i| (i % 3 == 0) as u8).collect();
            assert!(bools_are_canonical(
                &Tensor::from_bytes(DType::Bool, vec![1000], data.clone()).unwrap()
            ));
            data[at] = byte;
            let t = Tensor::from_bytes(DType::Bool, vec![1000], data).unwrap();
            assert!(!bools_are_canonical(&t), "byte {byte} at {at}");
        }
    }
}
