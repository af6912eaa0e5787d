//! Tensor values: a dtype, a shape and byte strides over a shared
//! [`Buffer`]. Views (transposes, broadcasts, slices) share the buffer, so
//! a value that aliases another keeps its memory alive without bookkeeping.
//!
//! Invariant, checked when a tensor is built: every element lies inside the
//! buffer and is aligned for its dtype (offset and strides are multiples of
//! the item size over an aligned base), and the element count and byte
//! size fit `isize` ([`layout`], which does all size arithmetic on
//! lengths from user data). Kernels rely on it.

pub mod alloc_stats;
mod buffer;
mod element;
mod format;
pub mod index;
#[cfg(test)]
mod index_proptest;
pub mod layout;
#[cfg(test)]
mod layout_proptest;
mod spare;

use crate::dtype::DType;
use crate::error::{Error, Result};
use smallvec::SmallVec;
use std::sync::Arc;

pub use buffer::{Buffer, HostHandle};
pub use element::{Element, Scalar};
pub use format::format_tensor;

/// A shape.
pub type Dims = SmallVec<[usize; 4]>;
/// Byte strides.
pub type Strides = SmallVec<[isize; 4]>;

/// A strided view of typed elements in a shared buffer.
#[derive(Clone, Debug)]
pub struct Tensor {
    dtype: DType,
    shape: Dims,
    strides: Strides,
    offset: usize,
    buffer: Arc<Buffer>,
    /// C-contiguity, computed once: kernels ask on every call.
    contiguous: bool,
}

pub use layout::c_strides;

/// Whether the layout is C order without gaps (length-1 axes may have any stride).
fn layout_is_c_contiguous(dtype: DType, shape: &[usize], strides: &[isize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut step = dtype.itemsize() as isize;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n > 1 && s != step {
            return false;
        }
        // Saturating: a product past `isize` is no stride a layout can
        // have (this runs before the layout's extent is checked).
        step = step.saturating_mul(isize::try_from(n).unwrap_or(isize::MAX));
    }
    true
}

impl Tensor {
    /// A zero-filled, C-contiguous tensor; a `MemoryError` when the shape
    /// is too big ([`layout::nbytes`]) or the memory cannot be had.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        Tensor::fresh(dtype, shape, Buffer::zeroed)
    }

    /// A C-contiguous tensor whose elements are unspecified until written
    /// (NumPy's `empty`): only for outputs a kernel fills completely before
    /// anything reads them. Kernels that accumulate into their output, or
    /// write part of it, take [`Tensor::zeros`]. Fails as `zeros` does.
    pub fn uninit(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        Tensor::fresh(dtype, shape, Buffer::uninit)
    }

    fn fresh(
        dtype: DType,
        shape: &[usize],
        alloc: fn(usize) -> Option<Arc<Buffer>>,
    ) -> Result<Tensor> {
        let bytes = layout::nbytes(dtype, shape)?;
        let buffer = alloc(bytes).ok_or_else(|| layout::allocation_failed(dtype, shape, bytes))?;
        Ok(Self::c_order_at_start(dtype, shape, buffer))
    }

    /// A C-contiguous tensor at the start of `buffer`, or `None` when the
    /// buffer is too small or misaligned for it (or the shape too big for
    /// any buffer). The layout is valid by construction, so this skips
    /// [`Tensor::from_parts`]' general check (it runs for every recycled
    /// output).
    pub fn contiguous_in(dtype: DType, shape: &[usize], buffer: Arc<Buffer>) -> Option<Tensor> {
        let size = dtype.itemsize();
        let fits = layout::nbytes(dtype, shape).is_ok_and(|n| buffer.len() >= n)
            && (buffer.as_ptr() as usize).is_multiple_of(size.min(8));
        fits.then(|| Self::c_order_at_start(dtype, shape, buffer))
    }

    /// A tensor over raw native-endian bytes in C order.
    pub fn from_bytes(dtype: DType, shape: Vec<usize>, bytes: Vec<u8>) -> Result<Self> {
        let n = layout::nbytes(dtype, &shape)?;
        if bytes.len() != n {
            return Err(Error::Value(format!(
                "{} bytes cannot hold a {dtype} tensor of shape {shape:?}",
                bytes.len()
            )));
        }
        let buffer = Buffer::from_bytes(&bytes)
            .ok_or_else(|| layout::allocation_failed(dtype, &shape, n))?;
        Ok(Self::c_order_at_start(dtype, &shape, buffer))
    }

    /// A C-contiguous tensor at the start of `buffer`, which the caller
    /// has checked holds it.
    fn c_order_at_start(dtype: DType, shape: &[usize], buffer: Arc<Buffer>) -> Tensor {
        Tensor {
            dtype,
            shape: Dims::from_slice(shape),
            strides: c_strides(dtype, shape),
            offset: 0,
            buffer,
            contiguous: true,
        }
    }

    /// A tensor from elements in C order.
    pub fn from_vec<T: Element>(shape: Vec<usize>, data: Vec<T>) -> Result<Self> {
        if data.len() != layout::size(&shape)? {
            return Err(Error::Value(format!(
                "{} elements cannot fill shape {shape:?}",
                data.len()
            )));
        }
        // Every element is written just below.
        let mut t = Tensor::uninit(T::DTYPE, &shape)?;
        t.as_mut_slice::<T>()
            .expect("a fresh tensor is contiguous and unique")
            .copy_from_slice(&data);
        Ok(t)
    }

    /// A 0-d tensor. Its one word comes from the allocator too; that the
    /// system refuses eight bytes is not worth a `Result` at the hundred
    /// call sites (the allocation failure handler is Rust's, as for `Vec`).
    pub fn scalar<T: Element>(value: T) -> Self {
        match Tensor::from_vec(vec![], vec![value]) {
            Ok(t) => t,
            Err(_) => std::alloc::handle_alloc_error(std::alloc::Layout::new::<u64>()),
        }
    }

    /// A view over `buffer`, checked to stay inside it and to be aligned.
    pub fn from_parts(
        dtype: DType,
        shape: Dims,
        strides: Strides,
        offset: usize,
        buffer: Arc<Buffer>,
    ) -> Result<Self> {
        let t = Tensor::assemble(dtype, shape, strides, offset, buffer);
        t.check_layout()?;
        Ok(t)
    }

    /// [`Tensor::from_parts`] without the layout check, for layouts that
    /// are valid by construction (a NumPy array's own, over the extent its
    /// shape and strides span): the check was a tenth of a small call.
    ///
    /// # Safety
    /// Every element the layout addresses lies inside `buffer`, aligned for
    /// `dtype`, and `shape` and `strides` have the same length.
    pub unsafe fn from_parts_unchecked(
        dtype: DType,
        shape: Dims,
        strides: Strides,
        offset: usize,
        buffer: Arc<Buffer>,
    ) -> Self {
        let t = Tensor::assemble(dtype, shape, strides, offset, buffer);
        debug_assert!(t.check_layout().is_ok(), "{:?}", t.check_layout());
        t
    }

    /// The struct over its parts, contiguity computed; unchecked. An empty
    /// view's offset is 0: it has no element to place, and views sliced
    /// from it (a batch of a `(2, 3, 0)` stack, say) may compute offsets
    /// past the end of an empty buffer, where even forming the pointer to
    /// "element 0" would be out of bounds.
    fn assemble(
        dtype: DType,
        shape: Dims,
        strides: Strides,
        offset: usize,
        buffer: Arc<Buffer>,
    ) -> Self {
        let offset = if shape.contains(&0) { 0 } else { offset };
        let contiguous = layout_is_c_contiguous(dtype, &shape, &strides);
        Tensor {
            dtype,
            shape,
            strides,
            offset,
            buffer,
            contiguous,
        }
    }

    fn check_layout(&self) -> Result<()> {
        let size = self.dtype.itemsize();
        if self.shape.len() != self.strides.len() {
            return Err(Error::Value("shape and strides differ in length".into()));
        }
        layout::nbytes(self.dtype, &self.shape)?;
        let base = self.buffer.as_ptr() as usize + self.offset;
        let aligned = base.is_multiple_of(size.min(8))
            && self.strides.iter().all(|s| s.unsigned_abs() % size == 0);
        if !aligned {
            return Err(Error::Value(format!(
                "misaligned {} data: offset {} strides {:?}",
                self.dtype, self.offset, self.strides
            )));
        }
        if self.is_empty() {
            // No element, but pointers to the first one are still formed
            // (`assemble` makes the offset 0; a defence in depth).
            if self.offset > self.buffer.len() {
                return Err(Error::Value(format!(
                    "an empty view at offset {} is past the end of {} bytes",
                    self.offset,
                    self.buffer.len()
                )));
            }
            return Ok(());
        }
        let inside = layout::extent(size, &self.shape, &self.strides, self.offset)
            .is_some_and(|(lo, hi)| lo >= 0 && hi as usize <= self.buffer.len());
        if !inside {
            return Err(Error::Value(format!(
                "a view of shape {:?} and strides {:?} at offset {} does not fit in {} bytes",
                self.shape,
                self.strides,
                self.offset,
                self.buffer.len()
            )));
        }
        Ok(())
    }

    /// A bool tensor's memory read as `uint8` (same layout and buffer).
    /// Kernels read bools this way when the bytes may be other than 0 and
    /// 1 (host data), which as Rust `bool`s would be undefined behaviour.
    pub fn bool_bytes(&self) -> Tensor {
        assert_eq!(self.dtype, DType::Bool, "bool_bytes of a non-bool tensor");
        let mut t = self.clone();
        t.dtype = DType::UInt8;
        t
    }

    /// Runs `f` on this bool tensor seen as `uint8` (a kernel writing bools
    /// with byte arithmetic), then makes it bool again.
    ///
    /// # Safety
    /// `f` leaves every byte of the tensor 0 or 1: any other byte read as a
    /// Rust `bool` later would be undefined behaviour.
    pub unsafe fn as_bool_bytes_mut<R>(&mut self, f: impl FnOnce(&mut Tensor) -> R) -> R {
        assert_eq!(self.dtype, DType::Bool, "bool bytes of a non-bool tensor");
        self.dtype = DType::UInt8;
        let r = f(self);
        self.dtype = DType::Bool;
        r
    }

    /// The same memory with another shape, strides and offset (a view).
    pub fn view(&self, shape: &[usize], strides: &[isize], offset: usize) -> Result<Tensor> {
        Tensor::from_parts(
            self.dtype,
            shape.into(),
            strides.into(),
            offset,
            self.buffer.clone(),
        )
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Byte strides.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// Byte offset of element 0 in the buffer.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The shared buffer.
    pub fn buffer(&self) -> &Arc<Buffer> {
        &self.buffer
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pointer to element 0.
    pub fn as_ptr(&self) -> *const u8 {
        // `offset` is at most the buffer's length (`check_layout`), so this
        // is the in-bounds `add`; `wrapping_add` needs no proof of it.
        self.buffer.as_ptr().wrapping_add(self.offset)
    }

    /// Whether the elements are laid out in C order without gaps.
    pub fn is_c_contiguous(&self) -> bool {
        self.contiguous
    }

    /// Whether the two tensors share memory (the same buffer).
    pub fn shares_buffer(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.buffer, &other.buffer)
    }

    /// The elements as a slice, when contiguous and of type `T`.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        if T::DTYPE != self.dtype || !self.is_c_contiguous() {
            return None;
        }
        // SAFETY: contiguous, so the `len` elements from `as_ptr` are the
        // layout's, which `check_layout` (`layout::nbytes`, `layout::extent`)
        // or `fresh`/`contiguous_in` (`layout::nbytes` against the buffer's
        // length) put inside the buffer, aligned; and of dtype `T`.
        Some(unsafe { std::slice::from_raw_parts(self.as_ptr() as *const T, self.len()) })
    }

    /// The elements as a mutable slice, when contiguous, of type `T`, and the
    /// only handle to a writable buffer (so no one else can observe writes).
    pub fn as_mut_slice<T: Element>(&mut self) -> Option<&mut [T]> {
        if T::DTYPE != self.dtype || !self.is_c_contiguous() || Arc::strong_count(&self.buffer) != 1
        {
            return None;
        }
        let base = self.buffer.as_mut_ptr()?;
        // SAFETY: as `as_slice`, and this tensor holds the only reference to
        // the buffer, so the mutable borrow is exclusive.
        Some(unsafe { std::slice::from_raw_parts_mut(base.add(self.offset) as *mut T, self.len()) })
    }

    /// As [`Tensor::as_mut_slice`], for a writer the buffer was granted to
    /// although another handle to it exists (a loan the program made,
    /// `Pool::take_loan`, whose other handle is the storage slot).
    ///
    /// # Safety
    /// Nothing may read or write the buffer through another handle while
    /// the slice lives.
    pub unsafe fn as_granted_mut_slice<T: Element>(&mut self) -> Option<&mut [T]> {
        if T::DTYPE != self.dtype || !self.is_c_contiguous() {
            return None;
        }
        let base = self.buffer.as_mut_ptr()?;
        // SAFETY: in bounds and aligned as `as_slice`; exclusive by the
        // caller's promise.
        Some(unsafe { std::slice::from_raw_parts_mut(base.add(self.offset) as *mut T, self.len()) })
    }

    /// Element `i`, counting in C order (taken modulo the length: every
    /// index is reduced modulo its axis' length). Panics on an empty tensor,
    /// which has no element to read.
    pub fn get(&self, i: usize) -> Scalar {
        assert!(!self.is_empty(), "get({i}) of an empty tensor");
        let mut rest = i;
        let mut at = self.offset as isize;
        for (&n, &s) in self.shape.iter().zip(&self.strides).rev() {
            at += (rest % n.max(1)) as isize * s;
            rest /= n.max(1);
        }
        // SAFETY: each axis' index is below its length (the `%` above) and
        // the tensor is not empty (asserted), so `at` is an element of the
        // layout, inside the extent `check_layout` bounded by the buffer.
        let ptr = unsafe { self.buffer.as_ptr().offset(at) };
        element::read_scalar(self.dtype, ptr)
    }

    /// Every element widened to `f64`, in C order; `None` unless they are
    /// all floats. What tests compare results with.
    pub fn float_values(&self) -> Option<Vec<f64>> {
        (0..self.len())
            .map(|i| match self.get(i) {
                Scalar::Float(x, _) => Some(x),
                _ => None,
            })
            .collect()
    }

    /// The bytes in C order (copied when the layout is not contiguous;
    /// a `MemoryError` if that copy cannot be allocated).
    pub fn to_c_bytes(&self) -> Result<Vec<u8>> {
        let size = self.dtype.itemsize();
        if self.is_c_contiguous() {
            // SAFETY: contiguous and in bounds (construction invariant:
            // `len * size` is the checked byte size, inside the buffer).
            return Ok(
                unsafe { std::slice::from_raw_parts(self.as_ptr(), self.len() * size) }.to_vec(),
            );
        }
        crate::kernels::copy::to_contiguous(self)?.to_c_bytes()
    }

    /// Same dtype, shape and values, NaN equal to NaN.
    pub fn same_values(&self, other: &Tensor) -> bool {
        self.dtype == other.dtype
            && self.shape == other.shape
            && (0..self.len()).all(|i| element::scalar_eq_nan(self.get(i), other.get(i)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_read_and_view() {
        let t = Tensor::from_vec(vec![2, 3], (0..6).map(|v| v as f64).collect()).unwrap();
        assert!(t.is_c_contiguous());
        assert_eq!(t.get(4), Scalar::Float(4.0, DType::Float64));
        let tr = t.view(&[3, 2], &[8, 24], 0).unwrap();
        assert!(!tr.is_c_contiguous());
        assert_eq!(tr.get(1), Scalar::Float(3.0, DType::Float64));
        assert!(tr.shares_buffer(&t));
        assert_eq!(tr.to_c_bytes().unwrap().len(), 48);
        assert!(t.view(&[3, 3], &[24, 8], 0).is_err());
        assert!(t.view(&[2], &[4], 0).is_err());
        assert!(Tensor::from_vec(vec![3], vec![1i32, 2]).is_err());
    }

    #[test]
    fn mutable_only_when_unique() {
        let mut t = Tensor::zeros(DType::Int32, &[3]).unwrap();
        assert!(t.as_mut_slice::<i32>().is_some());
        let alias = t.clone();
        assert!(t.as_mut_slice::<i32>().is_none());
        drop(alias);
        t.as_mut_slice::<i32>().unwrap()[1] = 7;
        assert_eq!(t.get(1), Scalar::Int(7));
    }
}
