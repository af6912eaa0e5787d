//! Calls of a compiled `Function` through CPython's vectorcall protocol.
//!
//! PyO3 gives a class's `__call__` only the `tp_call` slot, so every call
//! packs its arguments into a tuple that PyO3 then unpacks again: about 300
//! machine instructions of a 4,600-instruction small call (callgrind,
//! `x * 2 + 1` on 10 float64). CPython lets an object instead carry a
//! vectorcall function at an offset its type declares
//! (`tp_vectorcall_offset` with `Py_TPFLAGS_HAVE_VECTORCALL`); the arguments
//! then arrive as a C array. Each `Function` stores [`call`] in its
//! `vectorcall` field, and the first call through `tp_call` tells the type
//! where that field is ([`install`]). Keyword calls and calls that do not
//! give every input positionally fall back to the tuple path.

use crate::compile::function::PyFunction;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

static INSTALLED: Once = Once::new();

/// Makes the `Function` type dispatch calls to each instance's `vectorcall`
/// field, `field` being that field in `obj` (its offset in the object is
/// the same in every instance: the class cannot be subclassed).
pub fn install(obj: &Bound<'_, PyFunction>, field: &ffi::vectorcallfunc) {
    INSTALLED.call_once(|| {
        let offset = field as *const ffi::vectorcallfunc as isize - obj.as_ptr() as isize;
        let tp = obj.get_type().as_type_ptr();
        // SAFETY: `tp` is the class's live type object; the offset lies
        // inside every instance (measured on one, fixed by the layout) and
        // holds a valid `vectorcallfunc` from construction on. The GIL is
        // held, so no call reads the type while it changes.
        unsafe {
            (*tp).tp_vectorcall_offset = offset as ffi::Py_ssize_t;
            (*tp).tp_flags |= ffi::Py_TPFLAGS_HAVE_VECTORCALL;
            ffi::PyType_Modified(tp);
        }
    });
}

/// The vectorcall entry point: runs the call, turning errors and panics
/// into a Python exception (a panic must not unwind into C).
///
/// # Safety
/// Called by CPython with the GIL held, `callable` a `Function`, `args` its
/// positional arguments followed by the values of the keywords named in
/// `kwnames` (a tuple, or NULL).
pub unsafe extern "C" fn call(
    callable: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargsf: usize,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls us holding the GIL. PyO3's own count of it is
    // not raised (its `attach` would take `PyGILState_Ensure`'s slow path,
    // ~150 instructions): Python objects this call drops are released at
    // once where we know the GIL is held (`array::release_array`), else
    // queued by PyO3 until its next entry.
    let py = unsafe { Python::assume_attached() };
    // SAFETY: the caller's contract (see above).
    let run = || unsafe { dispatch(py, callable, args, nargsf, kwnames) };
    let err = match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(obj)) => return obj.into_ptr(),
        Ok(Err(e)) => e,
        Err(payload) => crate::errors::panics::internal_error(payload.as_ref()),
    };
    // Raised through PyO3's own entry: it drops the Python objects queued
    // while this call ran (an error's own message, a Python op's exception),
    // which no later call through here would ever release (one string
    // leaked per failing call).
    Python::attach(|py| err.restore(py));
    std::ptr::null_mut()
}

/// [`call`]'s work, with PyO3 types.
///
/// # Safety
/// As [`call`].
unsafe fn dispatch(
    py: Python<'_>,
    callable: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargsf: usize,
    kwnames: *mut ffi::PyObject,
) -> PyResult<Py<PyAny>> {
    // SAFETY: `callable` is a live `Function` (only its type has this slot).
    let func =
        unsafe { Bound::from_borrowed_ptr(py, callable).cast_into_unchecked::<PyFunction>() };
    let this = func.try_borrow()?;
    // SAFETY: CPython's vectorcall contract: `nargs` positional arguments,
    // then one per keyword name, all borrowed for the call.
    let (nargs, n_kw) = unsafe {
        let nargs = ffi::PyVectorcall_NARGS(nargsf) as usize;
        let n_kw = if kwnames.is_null() {
            0
        } else {
            ffi::PyTuple_GET_SIZE(kwnames) as usize
        };
        (nargs, n_kw)
    };
    let argv: &[*mut ffi::PyObject] = if nargs + n_kw == 0 {
        &[]
    } else {
        // SAFETY: as above; `args` holds `nargs + n_kw` pointers.
        unsafe { std::slice::from_raw_parts(args, nargs + n_kw) }
    };
    // SAFETY: every pointer in `argv` is a live object borrowed for the call.
    let arg = |p: &*mut ffi::PyObject| unsafe { Bound::from_borrowed_ptr(py, *p) };
    if n_kw == 0 && nargs == this.inputs.len() {
        return this.call_positional(py, argv.iter().map(arg));
    }
    let positional = PyTuple::new(py, argv[..nargs].iter().map(arg))?;
    let keywords = if n_kw == 0 {
        None
    } else {
        // SAFETY: a non-NULL `kwnames` is a tuple of strings, borrowed.
        let names = unsafe { Bound::from_borrowed_ptr(py, kwnames) };
        let dict = PyDict::new(py);
        for (name, value) in names.try_iter()?.zip(argv[nargs..].iter().map(arg)) {
            dict.set_item(name?, value)?;
        }
        Some(dict)
    };
    this.call(&positional, keywords.as_ref())
}
