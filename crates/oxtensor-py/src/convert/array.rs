//! NumPy arrays ↔ core tensors without copying. An array going in becomes a
//! read-only tensor over its memory, kept alive by a reference to the array;
//! a tensor going out becomes an ndarray whose base object (a capsule)
//! holds the tensor's buffer, except small results, which are cheaper to copy
//! into an array NumPy owns ([`array_copied`]). Misaligned or byte-swapped
//! data is converted first, never misread.

use numpy::npyffi::{self, NpyTypes, NPY_TYPES, PY_ARRAY_API};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use oxtensor_core::dtype::DType;
use oxtensor_core::kernels::elemwise::cast::bools_are_canonical;
use oxtensor_core::tensor::{Buffer, Dims, HostHandle, Strides, Tensor};
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use smallvec::SmallVec;
use std::ffi::{c_void, CStr};
use std::ptr::NonNull;
use std::sync::Arc;

/// The name of the capsules that keep core buffers alive as the `base` of
/// the ndarrays viewing them.
const OWNER: &CStr = c"oxtensor._core.buffer";

/// A new capsule holding one strong reference to `buf`. A capsule rather
/// than a pyclass instance: one is made and freed for every array a
/// compiled function returns, and a pyclass instance cost about 1,300 more
/// machine instructions to create and destroy (callgrind, `x * 2 + 1` on
/// 10 elements: a sixth of the call).
fn owner_capsule(py: Python<'_>, buf: &Arc<Buffer>) -> PyResult<*mut ffi::PyObject> {
    let raw = Arc::into_raw(buf.clone()) as *mut c_void;
    // SAFETY: `raw` is a leaked strong reference that `release_owner` takes
    // back exactly once, when the capsule dies; the name is 'static.
    let capsule = unsafe { ffi::PyCapsule_New(raw, OWNER.as_ptr(), Some(release_owner)) };
    if capsule.is_null() {
        // SAFETY: the capsule was not made, so the reference is still ours.
        drop(unsafe { Arc::from_raw(raw as *const Buffer) });
        return Err(PyErr::fetch(py));
    }
    Ok(capsule)
}

/// The capsule's destructor: drops the buffer reference it held.
unsafe extern "C" fn release_owner(capsule: *mut ffi::PyObject) {
    // SAFETY: only capsules made by `owner_capsule` (with this name and a
    // leaked `Arc<Buffer>`) have this destructor.
    unsafe {
        let raw = ffi::PyCapsule_GetPointer(capsule, OWNER.as_ptr());
        if !raw.is_null() {
            drop(Arc::from_raw(raw as *const Buffer));
        }
    }
}

/// The dtype of an ndarray from its descriptor's kind and item size (field
/// reads, no string work), or a `TypeError` for dtypes oxtensor lacks.
pub fn array_dtype(arr: &Bound<'_, PyUntypedArray>) -> PyResult<DType> {
    let descr = arr.dtype();
    descr_dtype(&descr).ok_or_else(|| {
        let name = descr.str().map(|s| s.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!(
            "oxtensor has no dtype for NumPy arrays of dtype {name}"
        ))
    })
}

fn descr_dtype(descr: &Bound<'_, PyArrayDescr>) -> Option<DType> {
    match (descr.kind(), descr.itemsize()) {
        (b'b', 1) => Some(DType::Bool),
        (b'i', 1) => Some(DType::Int8),
        (b'i', 2) => Some(DType::Int16),
        (b'i', 4) => Some(DType::Int32),
        (b'i', 8) => Some(DType::Int64),
        (b'u', 1) => Some(DType::UInt8),
        (b'u', 2) => Some(DType::UInt16),
        (b'u', 4) => Some(DType::UInt32),
        (b'u', 8) => Some(DType::UInt64),
        (b'f', 2) => Some(DType::Float16),
        (b'f', 4) => Some(DType::Float32),
        (b'f', 8) => Some(DType::Float64),
        (b'c', 8) => Some(DType::Complex64),
        (b'c', 16) => Some(DType::Complex128),
        _ => None,
    }
}

/// A tensor viewing `obj` when it is an ndarray of exactly `dtype` whose
/// shape passes `fits` (converted first, as [`tensor_from_array`] does,
/// when it cannot be viewed as is); `None` for anything else. This is a
/// compiled function's per-argument fast path, so the array's fields are
/// read once. `bool_bytes`: the program reads this bool input as bytes
/// (`Program::takes_bool_bytes`), so its bytes need no check.
pub fn exact_view(
    obj: &Bound<'_, PyAny>,
    dtype: DType,
    fits: impl FnOnce(&[usize]) -> bool,
    bool_bytes: bool,
) -> PyResult<Option<Tensor>> {
    let Ok(arr) = obj.cast::<PyUntypedArray>() else {
        return Ok(None);
    };
    let descr = arr.dtype();
    if descr_dtype(&descr) != Some(dtype) || !fits(arr.shape()) {
        return Ok(None);
    }
    if !(arr.is_aligned() && descr.is_native_byteorder().unwrap_or(true)) {
        return tensor_from_array(obj).map(Some);
    }
    let t = view(obj, arr, dtype)?;
    if bool_bytes || bools_are_canonical(&t) {
        Ok(Some(t))
    } else {
        tensor_from_array(obj).map(Some)
    }
}

/// NumPy's type number for a dtype: the one `np.int64`/`np.uint64` stand
/// for on this platform (C `long` where it has 64 bits, else `long long`),
/// so an element taken from an output is an `np.int64` as in PyTensor,
/// not the equal but distinct `np.longlong`.
fn npy_type(dtype: DType) -> NPY_TYPES {
    use DType::*;
    let long_is_64 = std::mem::size_of::<std::os::raw::c_long>() == 8;
    match dtype {
        Int64 if long_is_64 => NPY_TYPES::NPY_LONG,
        UInt64 if long_is_64 => NPY_TYPES::NPY_ULONG,
        Bool => NPY_TYPES::NPY_BOOL,
        Int8 => NPY_TYPES::NPY_BYTE,
        Int16 => NPY_TYPES::NPY_SHORT,
        Int32 => NPY_TYPES::NPY_INT,
        Int64 => NPY_TYPES::NPY_LONGLONG,
        UInt8 => NPY_TYPES::NPY_UBYTE,
        UInt16 => NPY_TYPES::NPY_USHORT,
        UInt32 => NPY_TYPES::NPY_UINT,
        UInt64 => NPY_TYPES::NPY_ULONGLONG,
        Float16 => NPY_TYPES::NPY_HALF,
        Float32 => NPY_TYPES::NPY_FLOAT,
        Float64 => NPY_TYPES::NPY_DOUBLE,
        Complex64 => NPY_TYPES::NPY_CFLOAT,
        Complex128 => NPY_TYPES::NPY_CDOUBLE,
    }
}

/// Whether the array can be viewed as is: aligned and in native byte order.
fn well_behaved(arr: &Bound<'_, PyUntypedArray>) -> bool {
    let native = arr.dtype().is_native_byteorder().unwrap_or(true);
    let aligned = arr.is_aligned();
    native && aligned
}

/// A tensor viewing `obj`'s memory (converted first when misaligned or
/// byte-swapped). `obj` must be an ndarray.
pub fn tensor_from_array(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    // Its checks and conversions may run parallel loops (see `fork.rs`).
    oxtensor_core::vm::fork::enter();
    let arr = obj.cast::<PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a NumPy array, got {}",
            crate::errors::type_name(obj)
        ))
    })?;
    if !well_behaved(arr) {
        // A copy (`np.array` copies by default) is aligned and native;
        // `ascontiguousarray` would return a contiguous misaligned array
        // as is, and this function would recurse forever.
        let np = obj.py().import("numpy")?;
        let dtype = array_dtype(arr)?;
        let fixed = np.call_method1("array", (obj, dtype.name()))?;
        return tensor_from_array(&fixed);
    }
    let t = view(obj, arr, array_dtype(arr)?)?;
    if !bools_are_canonical(&t) {
        // Bytes other than 0/1 seen as bool: NumPy reads them as true.
        let fixed = obj
            .call_method1("view", ("uint8",))?
            .call_method1("astype", ("bool",))?;
        return tensor_from_array(&fixed);
    }
    Ok(t)
}

/// A writable tensor over `obj`'s own memory when it is a writeable,
/// aligned, native-order ndarray of exactly `dtype` (not bool: its bytes
/// would need a check) whose shape passes `fits`; `None` otherwise. Only
/// for an argument the compiled function destroys (an input the caller
/// marked mutable, or a shared variable with an update): the inplace node
/// then writes into the caller's array (`kernels/alloc/granted.rs`).
pub fn writable_view(
    obj: &Bound<'_, PyAny>,
    dtype: DType,
    fits: impl FnOnce(&[usize]) -> bool,
) -> PyResult<Option<Tensor>> {
    let Ok(arr) = obj.cast::<PyUntypedArray>() else {
        return Ok(None);
    };
    let descr = arr.dtype();
    // SAFETY: `as_array_ptr` is the live array object.
    let flags = unsafe { (*arr.as_array_ptr()).fields.flags };
    let usable = descr_dtype(&descr) == Some(dtype)
        && dtype != DType::Bool
        && fits(arr.shape())
        && arr.is_aligned()
        && descr.is_native_byteorder().unwrap_or(true)
        && flags & npyffi::NPY_ARRAY_WRITEABLE != 0;
    if !usable {
        return Ok(None);
    }
    view_of(obj, arr, dtype, true).map(Some)
}

/// A read-only tensor over a well-behaved array's memory, kept alive by a
/// reference to the array.
fn view(obj: &Bound<'_, PyAny>, arr: &Bound<'_, PyUntypedArray>, dtype: DType) -> PyResult<Tensor> {
    view_of(obj, arr, dtype, false)
}

/// A tensor over a well-behaved array's memory, kept alive by a reference
/// to the array; `writable` only for arrays NumPy lets us write.
fn view_of(
    obj: &Bound<'_, PyAny>,
    arr: &Bound<'_, PyUntypedArray>,
    dtype: DType,
    writable: bool,
) -> PyResult<Tensor> {
    let shape = Dims::from_slice(arr.shape());
    let strides = Strides::from_slice(arr.strides());
    // SAFETY: `as_array_ptr` is the live array object; its `data` field is
    // the address of element 0.
    let data = unsafe { (*arr.as_array_ptr()).fields.data as *mut u8 };
    let (lo, hi) = extent(dtype, &shape, &strides);
    let n: usize = shape.iter().product();
    let base = if n == 0 {
        data
    } else {
        data.wrapping_offset(lo)
    };
    let len = if n == 0 { 0 } else { (hi - lo) as usize };
    let ptr = NonNull::new(base).unwrap_or(NonNull::dangling());
    // SAFETY: `ptr..ptr+len` covers every element of the array (its extent),
    // which stays valid while the array object — held by the buffer — lives.
    // The view is read-only unless the array is writeable and the caller
    // let the function destroy it (`writable_view`).
    let buffer = unsafe { Buffer::from_handle(ptr, len, writable, array_handle(obj)) };
    let offset = if n == 0 { 0 } else { (-lo) as usize };
    // SAFETY: the layout is the array's own over the extent computed from
    // it, and the array is aligned (checked by every caller).
    Ok(unsafe { Tensor::from_parts_unchecked(dtype, shape, strides, offset, buffer) })
}

/// A strong reference to `obj` as a buffer's host handle.
fn array_handle(obj: &Bound<'_, PyAny>) -> HostHandle {
    // SAFETY: a live object's pointer is never null. `release_array` takes
    // back the reference leaked here, once; dropping a `Py` never blocks
    // (without the interpreter lock, PyO3 queues the decrement for the next
    // time a thread holds it).
    unsafe {
        let object = NonNull::new_unchecked(obj.clone().into_ptr()).cast::<()>();
        HostHandle::new(object, release_array)
    }
}

/// Gives back the reference an [`array_handle`] holds: at once when this
/// thread holds the GIL (a call's arguments, dropped at the end of the
/// call, even where PyO3 does not know it holds the GIL: see
/// `compile/vectorcall.rs`), else through PyO3, which queues the decrement until a
/// thread holds it.
unsafe fn release_array(object: NonNull<()>) {
    // SAFETY: `object` is a strong reference leaked by `array_handle`;
    // `PyGILState_Check` may be called from any thread, and a decrement
    // with the GIL held is always sound. (`Py<PyAny>` is a transparent
    // wrapper of the object pointer.)
    unsafe {
        if ffi::PyGILState_Check() == 1 {
            ffi::Py_DecRef(object.as_ptr().cast());
        } else {
            drop(std::mem::transmute::<NonNull<ffi::PyObject>, Py<PyAny>>(
                object.cast(),
            ));
        }
    }
}

/// The byte range `[lo, hi)` an array's elements span, relative to element 0.
fn extent(dtype: DType, shape: &[usize], strides: &[isize]) -> (isize, isize) {
    let (mut lo, mut hi) = (0isize, dtype.itemsize() as isize);
    for (&n, &s) in shape.iter().zip(strides) {
        if n == 0 {
            return (0, 0);
        }
        let span = (n as isize - 1) * s;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    (lo, hi)
}

/// An ndarray viewing `t`'s memory (no copy). `writeable` only applies to
/// memory Rust owns.
pub fn array_from_tensor<'py>(
    py: Python<'py>,
    t: &Tensor,
    writeable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut strides: SmallVec<[npyffi::npy_intp; 4]> =
        t.strides().iter().map(|&s| s as npyffi::npy_intp).collect();
    let writable = writeable && t.buffer().as_mut_ptr().is_some();
    let flags = if writable {
        npyffi::NPY_ARRAY_WRITEABLE
    } else {
        0
    } | npyffi::NPY_ARRAY_ALIGNED;
    // NULL strides mean C order: NumPy then sets the flags itself instead
    // of deriving them from the strides (`UpdateFlags`).
    let strides = if t.is_c_contiguous() {
        std::ptr::null_mut()
    } else {
        strides.as_mut_ptr()
    };
    // SAFETY: the strides describe `t`'s checked layout inside its buffer,
    // and the buffer lives as long as the array because the array's base
    // object (set below, reference stolen) owns an `Arc` to it.
    unsafe {
        let arr = new_array(py, t, strides, t.as_ptr() as *mut c_void, flags)?;
        let owner = owner_capsule(py, t.buffer())?;
        let raw = arr.as_ptr() as *mut npyffi::PyArrayObject;
        if PY_ARRAY_API.PyArray_SetBaseObject(py, raw, owner) != 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(arr)
    }
}

/// A new ndarray of `t`'s dtype and shape over `data` (NULL: NumPy
/// allocates it) with `strides` (NULL: C order) and `flags`.
///
/// # Safety
/// A non-null `data` must hold `t`'s layout for as long as the array lives
/// (the caller sets an owner); non-null `strides` has `t.ndim()` entries.
unsafe fn new_array<'py>(
    py: Python<'py>,
    t: &Tensor,
    strides: *mut npyffi::npy_intp,
    data: *mut c_void,
    flags: i32,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: DescrFromType returns a new reference (or NULL with an error
    // set), which NewFromDescr steals; the rest is the caller's contract.
    unsafe {
        let descr = PY_ARRAY_API.PyArray_DescrFromType(py, npy_type(t.dtype()) as i32);
        if descr.is_null() {
            return Err(PyErr::fetch(py));
        }
        let mut dims: SmallVec<[npyffi::npy_intp; 4]> =
            t.shape().iter().map(|&d| d as npyffi::npy_intp).collect();
        let subtype = npyffi::get_type_object(py, NpyTypes::PyArray_Type);
        let raw = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            subtype,
            descr,
            dims.len() as i32,
            dims.as_mut_ptr(),
            strides,
            data,
            flags,
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, raw)
    }
}

/// Outputs of at most this many bytes are returned as copies in arrays that
/// NumPy allocates (from its small-block cache), and their buffers go back
/// to the program's pool for the next call: a fresh buffer per call plus a
/// capsule owner, made and destroyed, cost about 500 machine instructions
/// more (callgrind, `x * 2 + 1` on 10 float64) than copying 80 bytes.
const COPY_OUT_BYTES: usize = 1024;

/// Whether an output is returned as a copy (see [`array_copied`]): small,
/// C-contiguous and in Rust's memory (an output that is a borrowed view of
/// an argument keeps aliasing it).
pub fn copies_out(t: &Tensor) -> bool {
    t.is_c_contiguous()
        && t.len() * t.dtype().itemsize() <= COPY_OUT_BYTES
        && t.buffer().is_rust_owned()
}

/// A new writeable, C-ordered ndarray that owns a copy of `t`'s elements
/// (`t` must be C-contiguous).
pub fn array_copied<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    debug_assert!(t.is_c_contiguous());
    // SAFETY: given NULL data and strides NumPy allocates a C-ordered array
    // of `t`'s shape; `t` holds exactly as many bytes at `as_ptr`,
    // contiguous, and cannot overlap the new array.
    unsafe {
        let arr = new_array(py, t, std::ptr::null_mut(), std::ptr::null_mut(), 0)?;
        let dst = (*(arr.as_ptr() as *mut npyffi::PyArrayObject)).fields.data as *mut u8;
        let bytes = t.len() * t.dtype().itemsize();
        std::ptr::copy_nonoverlapping(t.as_ptr(), dst, bytes);
        Ok(arr)
    }
}
