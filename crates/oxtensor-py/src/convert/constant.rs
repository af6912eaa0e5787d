//! Turning Python values into graph constants (`as_tensor_variable`,
//! `constant`) with PyTensor's autocasting, and `TensorType.filter`.

use crate::errors::IntoPyResult;
use crate::graph::apply::PyApply;
use crate::graph::construct;
use crate::graph::types::{parse_dtype, PyTensorType};
use crate::graph::variable::PyVariable;
use oxtensor_core::dtype::{self, DType};
use oxtensor_core::tensor::Tensor;
use oxtensor_core::types::TensorType;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyTuple};

pub(crate) fn numpy(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("numpy")
}

/// The dtype PyTensor's autocaster gives a plain Python value, if it is one.
fn autocast(value: &Bound<'_, PyAny>) -> PyResult<Option<DType>> {
    if value.is_instance_of::<PyBool>() {
        return Ok(Some(DType::Bool));
    }
    if value.is_instance_of::<PyInt>() {
        let v: i128 = value.extract().map_err(|_| {
            PyValueError::new_err("Python int too large to convert to a tensor constant")
        })?;
        return dtype::autocast_int(v).py().map(Some);
    }
    // `np.float64` subclasses `float` but has a dtype of its own to keep.
    if value.is_instance_of::<PyFloat>() && !value.hasattr("dtype")? {
        return Ok(Some(dtype::autocast_float(value.extract()?)));
    }
    if let Ok(c) = value.cast::<PyComplex>() {
        let exact = (c.real() as f32) as f64 == c.real() && (c.imag() as f32) as f64 == c.imag();
        return Ok(Some(if exact {
            DType::Complex64
        } else {
            DType::Complex128
        }));
    }
    Ok(None)
}

/// `x` as an ndarray of the dtype `constant` would give it.
fn to_array<'py>(x: &Bound<'py, PyAny>, dtype: Option<DType>) -> PyResult<Bound<'py, PyAny>> {
    let np = numpy(x.py())?;
    let target = match dtype {
        Some(d) => Some(d),
        None => autocast(x)?,
    };
    let arr = match target {
        Some(d) => np.call_method1("asarray", (x, d.name()))?,
        None => np.call_method1("asarray", (x,))?,
    };
    if dtype.is_some() && !x.is_instance_of::<PyFloat>() {
        let back = np.call_method1("asarray", (x,))?;
        if !np.call_method1("array_equal", (&arr, &back))?.is_truthy()? {
            return Err(PyTypeError::new_err(format!(
                "Value {} cannot be represented exactly as {}",
                x.repr()?,
                target.map(|d| d.name()).unwrap_or("?")
            )));
        }
    }
    let kind = arr.getattr("dtype")?.getattr("kind")?.to_string();
    if matches!(kind.as_str(), "O" | "U" | "S" | "V" | "M" | "m") {
        return Err(PyTypeError::new_err(format!(
            "Cannot convert {} to a tensor constant (NumPy dtype kind '{kind}')",
            x.repr()?
        )));
    }
    Ok(arr)
}

/// `data` with `ndim` dimensions: leading length-1 axes dropped or added.
fn fit_ndim<'py>(arr: Bound<'py, PyAny>, ndim: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
    let Some(want) = ndim else { return Ok(arr) };
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    if shape.len() == want {
        return Ok(arr);
    }
    if shape.len() > want && shape[..shape.len() - want].iter().all(|&d| d == 1) {
        return arr.call_method1(
            "reshape",
            (PyTuple::new(arr.py(), &shape[shape.len() - want..])?,),
        );
    }
    if shape.len() < want {
        let padded: Vec<usize> = std::iter::repeat_n(1, want - shape.len())
            .chain(shape)
            .collect();
        return arr.call_method1("reshape", (PyTuple::new(arr.py(), padded)?,));
    }
    Err(PyValueError::new_err(format!(
        "ndarray could not be cast to constant with {want} dimensions"
    )))
}

/// `oxtensor.tensor.constant(x, name=None, ndim=None, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (x, name = None, ndim = None, dtype = None))]
pub fn constant<'py>(
    x: Bound<'py, PyAny>,
    name: Option<Bound<'py, PyAny>>,
    ndim: Option<usize>,
    dtype: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let dtype = dtype.map(|d| parse_dtype(&d)).transpose()?;
    let mut x = x;
    // A tensor constant is returned as it is when it fits; otherwise its
    // data makes the new constant (another rank, dtype or name), as in
    // PyTensor.
    if x.is_instance_of::<PyVariable>() && x.cast::<PyVariable>()?.borrow().is_constant() {
        if let Ok(tt) = x.getattr("type")?.cast_into::<PyTensorType>() {
            let inner = &tt.get().inner;
            let same_name = match &name {
                Some(n) => n.eq(x.getattr("name")?)?,
                None => true,
            };
            let fits = ndim.is_none_or(|n| n == inner.ndim())
                && dtype.is_none_or(|d| d == inner.dtype)
                && same_name;
            if fits {
                return Ok(x);
            }
            x = x.getattr("data")?;
        }
    }
    if let Some(t) = scalar_tensor(&x, dtype)? {
        let shape = vec![1; ndim.unwrap_or(0)];
        let t = t
            .view(&shape, &vec![0; shape.len()], 0)
            .map_err(crate::errors::to_pyerr)?;
        return constant_from_tensor(x.py(), t, name);
    }
    if x.is_instance(&numpy(x.py())?.getattr("ma")?.getattr("MaskedArray")?)? {
        return Err(pyo3::exceptions::PyNotImplementedError::new_err(
            "MaskedArrays are not supported: pass the data (`x.data`) or fill the masked \
             entries (`x.filled(value)`)",
        ));
    }
    let arr = fit_ndim(to_array(&x, dtype)?, ndim)?;
    constant_from_array(arr, name)
}

/// A plain Python number as a 0-d tensor of its autocast (or the given)
/// dtype, built in Rust: the common case of `x * 2.0` needs no NumPy call.
fn scalar_tensor(x: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Option<Tensor>> {
    let value = if x.is_instance_of::<PyBool>() {
        Tensor::scalar(x.extract::<bool>()?)
    } else if x.is_instance_of::<PyFloat>() {
        Tensor::scalar(x.extract::<f64>()?)
    } else if x.is_instance_of::<PyInt>() {
        match x.extract::<i64>() {
            Ok(v) => Tensor::scalar(v),
            Err(_) => Tensor::scalar(x.extract::<u64>().map_err(|_| {
                PyValueError::new_err("Python int too large to convert to a tensor constant")
            })?),
        }
    } else {
        return Ok(None);
    };
    let Some(auto) = autocast(x)? else {
        return Ok(None);
    };
    let target = dtype.unwrap_or(auto);
    let cast = oxtensor_core::kernels::elemwise::cast::cast(&value, target).py()?;
    // An explicit dtype must hold the value exactly (floats may round).
    let exact = || {
        oxtensor_core::kernels::elemwise::cast::cast(&cast, value.dtype())
            .is_ok_and(|c| c.same_values(&value))
    };
    if dtype.is_some() && !x.is_instance_of::<PyFloat>() && !exact() {
        return Err(PyTypeError::new_err(format!(
            "Value {} cannot be represented exactly as {target}",
            x.repr()?
        )));
    }
    Ok(Some(cast))
}

/// A `TensorConstant` over a core tensor (exposed as a read-only ndarray view).
fn constant_from_tensor<'py>(
    py: Python<'py>,
    t: Tensor,
    name: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let ty = TensorType::new(t.dtype(), t.shape().iter().map(|&d| Some(d as u64))).py()?;
    let ty = PyTensorType::get(py, &ty)?;
    construct::tensor_constant_of(py, ty.into_any(), t, name)
}

/// A `TensorConstant` holding an ndarray, typed with its full static shape.
pub fn constant_from_array<'py>(
    arr: Bound<'py, PyAny>,
    name: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let t = crate::convert::array::tensor_from_array(&arr)?;
    oxtensor_core::vm::fork::enter();
    let owned = oxtensor_core::kernels::copy::copy_contiguous(&t).py()?;
    constant_from_tensor(arr.py(), owned, name)
}

/// Constant data made read-only: an ndarray is copied unless it already is
/// read-only (the caller's array keeps its flags); other data is kept.
pub fn freeze(data: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    let np = numpy(data.py())?;
    if data.is_instance(&np.getattr("ndarray")?)? {
        return read_only(data);
    }
    Ok(data)
}

/// A read-only array: the given one if it is already, else a read-only copy
/// (the caller's array keeps its flags).
fn read_only(arr: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    if !arr.getattr("flags")?.getattr("writeable")?.is_truthy()? {
        return Ok(arr);
    }
    let copy = arr.call_method0("copy")?;
    copy.call_method(
        "setflags",
        (),
        Some(&[("write", false)].into_py_dict(arr.py())?),
    )?;
    Ok(copy)
}

use pyo3::types::IntoPyDict;

/// `oxtensor.tensor.as_tensor_variable(x, name=None, ndim=None)`.
#[pyfunction]
#[pyo3(signature = (x, name = None, ndim = None, dtype = None))]
pub fn as_tensor_variable<'py>(
    x: Bound<'py, PyAny>,
    name: Option<Bound<'py, PyAny>>,
    ndim: Option<usize>,
    dtype: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    // Variables first: they are nearly every input of every node built.
    if x.is_instance_of::<PyVariable>() {
        return tensor_variable_of(x, ndim);
    }
    if let Ok(node) = x.cast::<PyApply>() {
        let op = node.borrow().op_obj(x.py());
        let n_outputs = node.getattr("outputs")?.len()?;
        let no_default = op.getattr("default_output").map_or(true, |d| d.is_none());
        if no_default && n_outputs != 1 {
            return Err(PyTypeError::new_err(format!(
                "Multi-output Op without default_output encountered ({}): pass one of \
                 its outputs",
                op.str()?
            )));
        }
        let out = node.borrow().default_output_obj(x.py())?;
        return as_tensor_variable(out.into_bound(x.py()), name, ndim, dtype);
    }
    if x.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "Cannot cast True or False as a tensor variable. Please use np.array(True) or np.array(False) if you need these constants. This error might be caused by using the == operator on Variables. v == w does not do what you think it does, use oxtensor.tensor.eq(v, w) instead.",
        ));
    }
    if (x.is_instance_of::<PyList>() || x.is_instance_of::<PyTuple>()) && contains_variable(&x)? {
        if let Some(data) = constants_data(&x)? {
            return constant(data, name, ndim, dtype);
        }
        return crate::ops::shape::stack_list(&x);
    }
    if x.is_none() {
        return Err(PyTypeError::new_err(
            "Cannot convert None to a tensor variable",
        ));
    }
    constant(x, name, ndim, dtype)
}

/// `oxtensor._core.stack_list(seq)`: the entries of `seq` as tensors,
/// stacked along a new first axis (0-d entries, constants included, give
/// one `MakeVector` of their upcast dtype, as PyTensor's `stack`), never
/// folded into one constant as `as_tensor_variable(seq)` folds constants.
#[pyfunction]
pub fn stack_list<'py>(seq: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    crate::ops::shape::stack_list(&seq)
}

/// A sequence whose variables are all constants (at its top level) as the
/// list of their data, which makes one constant, as in PyTensor; `None`
/// when a symbolic variable is among them.
fn constants_data<'py>(seq: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let out = PyList::empty(seq.py());
    for item in seq.try_iter()? {
        let item = item?;
        if let Ok(v) = item.cast::<PyVariable>() {
            if !v.borrow().is_constant() {
                return Ok(None);
            }
            out.append(item.getattr("data")?)?;
        } else if (item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>())
            && contains_variable(&item)?
        {
            return Ok(None);
        } else {
            out.append(item)?;
        }
    }
    Ok(Some(out.into_any()))
}

fn contains_variable(seq: &Bound<'_, PyAny>) -> PyResult<bool> {
    for item in seq.try_iter()? {
        let item = item?;
        if item.is_instance_of::<PyVariable>()
            || ((item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>())
                && contains_variable(&item)?)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A tensor variable as is, or with `ndim` dimensions (dropping leading
/// broadcastable axes or padding on the left).
fn tensor_variable_of(x: Bound<'_, PyAny>, ndim: Option<usize>) -> PyResult<Bound<'_, PyAny>> {
    // The Rust field, not `getattr`: this runs for every operand of every op.
    let ty = x.cast::<PyVariable>()?.borrow().ty(x.py());
    if ty.is_instance_of::<crate::graph::types::PyScalarType>() {
        // A scalar variable becomes a 0-d tensor (`tensor_from_scalar`), as
        // in PyTensor.
        let op = x
            .py()
            .import("oxtensor.scalar.conversion")?
            .getattr("tensor_from_scalar")?;
        return tensor_variable_of(op.call1((x,))?, ndim);
    }
    let Ok(tt) = ty.cast::<PyTensorType>() else {
        return Err(PyTypeError::new_err(format!(
            "Variable type field must be a TensorType, got {} of type {}",
            x.str()?,
            ty.str()?
        )));
    };
    let have = tt.get().inner.ndim();
    let Some(want) = ndim.filter(|&w| w != have) else {
        return Ok(x);
    };
    let order: Vec<Option<usize>> = if want > have {
        std::iter::repeat_n(None, want - have)
            .chain((0..have).map(Some))
            .collect()
    } else {
        let drop = have - want;
        if tt.get().inner.shape[..drop].iter().any(|d| *d != Some(1)) {
            return Err(PyValueError::new_err(format!(
                "Tensor of type {} could not be cast to have {want} dimensions",
                ty.str()?
            )));
        }
        (drop..have).map(Some).collect()
    };
    crate::ops::make_node::dimshuffle(&x, order)
}
