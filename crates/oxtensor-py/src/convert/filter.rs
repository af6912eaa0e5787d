//! `TensorType.filter` (a value checked, and converted without loss unless
//! downcasting is allowed) and `values_eq`/`values_eq_approx`, PyTensor's
//! comparison of two values of a type.

use crate::convert::constant::numpy;
use crate::errors::IntoPyResult;
use crate::graph::types::{parse_dtype, PyTensorType};
use oxtensor_core::dtype::{self, DType};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::IntoPyDict;
use pyo3::types::PyFloat;

/// `TensorType.filter(data, strict, allow_downcast)`: the data as an ndarray
/// of this type, or a `TypeError` saying why not.
pub fn filter_tensor(
    ty: &Bound<'_, PyTensorType>,
    data: Bound<'_, PyAny>,
    strict: bool,
    allow_downcast: bool,
) -> PyResult<Py<PyAny>> {
    let py = ty.py();
    let np = numpy(py)?;
    let inner = &ty.get().inner;
    let want = inner.dtype;
    let is_array = data.is_instance(&np.getattr("ndarray")?)?;
    // The kernels read elements through typed pointers, which need
    // alignment; PyTensor refuses such arrays the same way.
    if is_array
        && !data
            .getattr("flags")?
            .getattr("aligned")?
            .extract::<bool>()?
    {
        return Err(PyTypeError::new_err(format!(
            "{}: the numpy.ndarray given is not aligned; pass a copy (numpy.require(x, requirements='A'))",
            ty.str()?
        )));
    }
    let arr = if is_array && parse_dtype(&data.getattr("dtype")?)? == want {
        data
    } else if strict {
        return Err(PyTypeError::new_err(format!(
            "{} expected an ndarray object with dtype = {want} (got {}).",
            ty.str()?,
            if is_array {
                data.getattr("dtype")?.str()?.to_string()
            } else {
                data.get_type().name()?.to_string()
            }
        )));
    } else if allow_downcast || (data.is_instance_of::<PyFloat>() && want == dtype::floatx()) {
        // Converted, then cast: a downcast wraps out-of-range integers as
        // NumPy's `astype` does, which is what PyTensor's users rely on.
        let arr = np.call_method1("asarray", (&data,))?;
        arr.call_method1("astype", (want.name(),))?
    } else {
        convert_losslessly(ty, &np, data, want)?
    };
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    inner.check_shape(&shape).py()?;
    Ok(arr.unbind())
}

pub(crate) fn convert_losslessly<'py>(
    ty: &Bound<'py, PyTensorType>,
    np: &Bound<'py, PyModule>,
    data: Bound<'py, PyAny>,
    want: DType,
) -> PyResult<Bound<'py, PyAny>> {
    let arr = np.call_method1("asarray", (&data,))?;
    if data.is_instance_of::<pyo3::types::PyString>() {
        // Text: NumPy's own conversion (`ValueError` for "abc"), as in PyTensor.
        np.call_method1("asarray", (&data, want.name()))?;
    }
    let have = parse_dtype(&arr.getattr("dtype")?).map_err(|_| {
        PyTypeError::new_err(format!(
            "{} cannot store a value of type {}",
            ty.str().map(|s| s.to_string()).unwrap_or_default(),
            crate::errors::type_name(&data)
        ))
    })?;
    let is_array = data.is_instance(&np.getattr("ndarray")?)?;
    let converted = if have.can_cast_safely(want) {
        Some(arr.call_method1("astype", (want.name(),))?)
    } else if is_array {
        None
    } else if have.is_integer() && want.is_integer() {
        // NumPy's conversion: `OverflowError` for an integer out of range.
        Some(np.call_method1("asarray", (&data, want.name()))?)
    } else {
        exact_conversion(np, &arr, have, want)?
    };
    let Some(converted) = converted else {
        return Err(PyTypeError::new_err(format!(
            "{} cannot store a value of dtype {have} without risking loss of precision. If you do not mind this loss, you can: 1) explicitly cast your data to {want}, or 2) set \"allow_input_downcast=True\" when calling \"function\". Value: \"{}\"",
            ty.str()?,
            arr.repr()?
        )));
    };
    Ok(converted)
}

/// Python data (numbers, lists) converted to `want` when no value changes.
/// Complex data must have no imaginary part; its real part is converted, as
/// a complex to real `astype` warns (ComplexWarning) even on exact values.
pub(crate) fn exact_conversion<'py>(
    np: &Bound<'py, PyModule>,
    arr: &Bound<'py, PyAny>,
    have: DType,
    want: DType,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let source = if have.is_complex() && !want.is_complex() {
        if arr.getattr("imag")?.call_method0("any")?.is_truthy()? {
            return Ok(None);
        }
        arr.getattr("real")?
    } else {
        arr.clone()
    };
    let converted = source.call_method1("astype", (want.name(),))?;
    let same = np
        .call_method1("array_equal", (&converted, &source))?
        .is_truthy()?;
    Ok(same.then_some(converted))
}

/// Whether two values are ndarrays of the same shape (and, if `same_dtype`, dtype).
pub(crate) fn same_layout(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    same_dtype: bool,
) -> PyResult<bool> {
    let same_shape = a.getattr("shape")?.eq(b.getattr("shape")?)?;
    Ok(same_shape && (!same_dtype || a.getattr("dtype")?.eq(b.getattr("dtype")?)?))
}

/// Whether an array holds floats or complex numbers (where NaN exists).
pub(crate) fn is_inexact(a: &Bound<'_, PyAny>) -> PyResult<bool> {
    let kind = a.getattr("dtype")?.getattr("kind")?.to_string();
    Ok(kind == "f" || kind == "c")
}

/// `TensorType.values_eq`: same shape (and dtype when forced) and equal
/// values, NaN matching NaN (a value computed twice must compare equal).
pub fn values_eq(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>, same_dtype: bool) -> PyResult<bool> {
    let np = numpy(a.py())?;
    let (a, b) = (
        np.call_method1("asarray", (a,))?,
        np.call_method1("asarray", (b,))?,
    );
    if !same_layout(&a, &b, same_dtype)? {
        return Ok(false);
    }
    let equal_nan = is_inexact(&a)? && is_inexact(&b)?;
    let kwargs = [("equal_nan", equal_nan)].into_py_dict(a.py())?;
    np.call_method("array_equal", (a, b), Some(&kwargs))?
        .is_truthy()
}

/// PyTensor's default tolerances (`tensor/math.py:_get_atol_rtol`): the
/// narrowest float dtype of the two decides.
pub(crate) fn default_tolerances(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<(f64, f64)> {
    let names = [a, b]
        .iter()
        .map(|x| Ok(x.getattr("dtype")?.str()?.to_string()))
        .collect::<PyResult<Vec<_>>>()?;
    let has = |set: &[&str]| names.iter().any(|n| set.contains(&n.as_str()));
    Ok(if has(&["float16"]) {
        (1e-3, 1e-3)
    } else if has(&["float32", "complex64"]) {
        (1e-5, 1e-5)
    } else {
        (1e-5, 1e-8)
    })
}

/// `TensorType.values_eq_approx`: ndarrays of the same shape and dtype that
/// are close (`rtol`/`atol` default by dtype), NaN matching NaN and infinities
/// of the same sign matching; `allow_remove_nan`/`allow_remove_inf` also
/// accept any value where `a` is NaN/infinite. Exact for discrete dtypes.
pub fn values_eq_approx(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    allow_remove_inf: bool,
    allow_remove_nan: bool,
    tolerances: (Option<f64>, Option<f64>),
) -> PyResult<bool> {
    let np = numpy(a.py())?;
    let ndarray = np.getattr("ndarray")?;
    if !a.is_instance(&ndarray)? || !b.is_instance(&ndarray)? || !same_layout(a, b, true)? {
        return Ok(false);
    }
    if !is_inexact(a)? {
        return np.call_method1("array_equal", (a, b))?.is_truthy();
    }
    let (rtol, atol) = default_tolerances(a, b)?;
    let (rtol, atol) = (tolerances.0.unwrap_or(rtol), tolerances.1.unwrap_or(atol));
    let kwargs = [("equal_nan", true)].into_py_dict(a.py())?;
    let mut close = np.call_method("isclose", (a, b, rtol, atol), Some(&kwargs))?;
    if allow_remove_nan {
        close = close.call_method1("__or__", (np.call_method1("isnan", (a,))?,))?;
    }
    if allow_remove_inf {
        close = close.call_method1("__or__", (np.call_method1("isinf", (a,))?,))?;
    }
    close.call_method0("all")?.is_truthy()
}
