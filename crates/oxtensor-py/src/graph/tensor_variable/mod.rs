//! `TensorVariable`: the operators and methods PyTensor users write on
//! tensors (`x * 2`, `x.T`, `x.sum(axis=1)`, `x @ y`, ...). Each builds
//! nodes of built-in ops in Rust.

pub mod math;
mod operators;
pub mod reductions;
pub mod shape;

use crate::convert::constant::{as_tensor_variable, constant};
use crate::graph::types::parse_dtype;
use crate::graph::variable::PyVariable;
use crate::ops::make_node::{apply_core, dimshuffle, elemwise, tensor_type_of};
use oxtensor_core::dtype::DType;
use oxtensor_core::ops::blas::Dot;
use oxtensor_core::ops::shape::{Reshape, Shape};
use oxtensor_core::scalar::{ScalarKind, ScalarOp};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::Arc;

/// `oxtensor.tensor.variable.TensorVariable`.
#[pyclass(extends = PyVariable, subclass, module = "oxtensor.tensor.variable", name = "TensorVariable")]
pub struct PyTensorVariable;

pub(crate) type Out<'py> = PyResult<Bound<'py, PyAny>>;

/// `x.astype(dtype)`: `x` itself when the dtype already matches.
pub fn cast<'py>(x: &Bound<'py, PyAny>, dtype: DType) -> Out<'py> {
    let from = tensor_type_of(x)?.dtype;
    if from == dtype {
        return Ok(x.clone());
    }
    // PyTensor's `cast` refuses to drop an imaginary part silently.
    if from.is_complex() && !dtype.is_complex() {
        return Err(PyTypeError::new_err(
            "Casting from complex to real is ambiguous: consider real(), imag(), angle() or abs()",
        ));
    }
    elemwise(x.py(), ScalarOp::Cast(dtype), vec![x.clone()])
}

/// `x.reshape(shape)`: a constant shape gives a static output shape.
pub fn reshape<'py>(
    x: &Bound<'py, PyAny>,
    shape: Bound<'py, PyAny>,
    ndim: Option<usize>,
) -> Out<'py> {
    let py = x.py();
    let shape = if let Ok(n) = shape.extract::<i64>() {
        PyList::new(py, [n])?.into_any()
    } else {
        shape
    };
    let symbolic_entries = !shape.is_instance_of::<PyVariable>()
        && shape
            .try_iter()
            .map(|mut it| it.any(|e| e.is_ok_and(|e| e.is_instance_of::<PyVariable>())))
            .unwrap_or(false);
    let shape = if shape.is_instance_of::<PyVariable>() {
        shape
    } else if symbolic_entries {
        // `(n, -1)` with a symbolic `n`: a MakeVector of the entries.
        as_tensor_variable(shape, None, None, None)?
    } else {
        constant(
            shape,
            None,
            Some(1),
            Some(pyo3::types::PyString::new(py, "int64").into_any()),
        )?
    };
    let st = tensor_type_of(&shape)?;
    let ndim = match (ndim, st.shape.first().copied().flatten()) {
        (Some(n), _) => n,
        (None, Some(n)) => n as usize,
        (None, None) => {
            return Err(PyValueError::new_err(
                "The length of the shape vector is not known; pass ndim=",
            ))
        }
    };
    apply_core(py, Arc::new(Reshape { ndim }), vec![x.clone(), shape])
}

/// `dot(x, y)` for vectors and matrices, or a product with a 0-d operand.
pub fn dot<'py>(x: &Bound<'py, PyAny>, y: Bound<'py, PyAny>) -> Out<'py> {
    let y = as_tensor_variable(y, None, None, None)?;
    // PyTensor's `dot`: a 0-d operand scales the other (`l * r`).
    if tensor_type_of(x)?.ndim() == 0 || tensor_type_of(&y)?.ndim() == 0 {
        return elemwise(x.py(), ScalarOp::Kind(ScalarKind::Mul), vec![x.clone(), y]);
    }
    apply_core(x.py(), Arc::new(Dot), vec![x.clone(), y])
}

fn order_from_args<'py>(args: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
    if args.len() == 1 {
        let first = args.get_item(0)?;
        if first.is_instance_of::<PyList>() || first.is_instance_of::<PyTuple>() {
            return Ok(first);
        }
        // `x.transpose(np.array([1, 0]))`, as PyTensor takes it.
        let ndarray = first.py().import("numpy")?.getattr("ndarray")?;
        if first.is_instance(&ndarray)? && first.getattr("ndim")?.extract::<usize>()? == 1 {
            return first.call_method0("tolist");
        }
    }
    Ok(args.clone().into_any())
}

#[pymethods]
impl PyTensorVariable {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyVariable::shell()).add_subclass(PyTensorVariable)
    }

    /// Above NumPy's, so `ndarray + x` calls `x.__radd__` instead of making
    /// an object array of variables (PyTensor's value).
    #[classattr]
    fn __array_priority__() -> f64 {
        1000.0
    }

    /// Variables hash by identity (defining `<` would otherwise drop the hash).
    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        (slf.as_ptr() as isize) >> 4
    }

    /// Number of dimensions.
    #[getter]
    fn ndim(slf: &Bound<'_, Self>) -> PyResult<usize> {
        Ok(tensor_type_of(slf.as_any())?.ndim())
    }

    /// The dtype, as a string.
    #[getter]
    fn dtype(slf: &Bound<'_, Self>) -> PyResult<&'static str> {
        Ok(tensor_type_of(slf.as_any())?.dtype.name())
    }

    /// Which dimensions are statically 1.
    #[getter]
    fn broadcastable<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(slf.py(), tensor_type_of(slf.as_any())?.broadcastable())
    }

    /// The symbolic shape (`Shape`), an int64 vector.
    #[getter]
    fn shape<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        apply_core(slf.py(), Arc::new(Shape), vec![slf.clone().into_any()])
    }

    /// The transpose (all axes reversed).
    #[getter(T)]
    fn transpose_property<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        let n = tensor_type_of(slf.as_any())?.ndim();
        dimshuffle(slf.as_any(), (0..n).rev().map(Some).collect())
    }

    /// `x.dimshuffle(1, "x", 0)` or `x.dimshuffle([1, "x", 0])`.
    #[pyo3(signature = (*pattern))]
    fn dimshuffle<'py>(slf: &Bound<'py, Self>, pattern: &Bound<'py, PyTuple>) -> Out<'py> {
        let order = crate::ops::dimshuffle::parse_order(&order_from_args(pattern)?)?;
        dimshuffle(slf.as_any(), order)
    }

    /// Permutes the axes (reversed when none are given).
    #[pyo3(signature = (*axes))]
    fn transpose<'py>(slf: &Bound<'py, Self>, axes: &Bound<'py, PyTuple>) -> Out<'py> {
        if axes.is_empty() {
            return Self::transpose_property(slf);
        }
        let order = crate::ops::dimshuffle::parse_order(&order_from_args(axes)?)?;
        dimshuffle(slf.as_any(), order)
    }

    /// `x.reshape(shape, ndim=None)`.
    #[pyo3(signature = (shape, *more, ndim = None))]
    fn reshape<'py>(
        slf: &Bound<'py, Self>,
        shape: Bound<'py, PyAny>,
        more: &Bound<'py, PyTuple>,
        ndim: Option<usize>,
    ) -> Out<'py> {
        let shape = if more.is_empty() {
            shape
        } else {
            let mut all = vec![shape];
            all.extend(more.iter());
            PyTuple::new(slf.py(), all)?.into_any()
        };
        reshape(slf.as_any(), shape, ndim)
    }

    /// All elements as a vector.
    #[pyo3(signature = (ndim = 1))]
    fn flatten<'py>(slf: &Bound<'py, Self>, ndim: usize) -> Out<'py> {
        if ndim != 1 {
            return crate::graph::tensor_variable::shape::flatten_to(slf, ndim);
        }
        reshape(
            slf.as_any(),
            PyList::new(slf.py(), [-1i64])?.into_any(),
            Some(1),
        )
    }

    fn astype<'py>(slf: &Bound<'py, Self>, dtype: Bound<'py, PyAny>) -> Out<'py> {
        cast(slf.as_any(), parse_dtype(&dtype)?)
    }

    fn dot<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        dot(slf.as_any(), other)
    }

    /// `x[...]`: basic indexing (`Subtensor`, a view) or advanced indexing.
    fn __getitem__<'py>(slf: &Bound<'py, Self>, args: Bound<'py, PyAny>) -> Out<'py> {
        crate::convert::index_args::getitem(slf.clone().into_any(), args, None)
    }

    /// Iterates over `x[i]` when the length is static, else a `TypeError`.
    fn __iter__<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        crate::ops::subtensor::call_python(slf.py(), "_iter", (slf.clone(),))
    }

    /// `x[i].set(y)`: `set_subtensor(x[i], y)`.
    fn set<'py>(slf: &Bound<'py, Self>, y: Bound<'py, PyAny>) -> Out<'py> {
        crate::ops::subtensor::call_python(slf.py(), "set_subtensor", (slf.clone(), y))
    }

    /// `x[i].inc(y)`: `inc_subtensor(x[i], y)`.
    fn inc<'py>(slf: &Bound<'py, Self>, y: Bound<'py, PyAny>) -> Out<'py> {
        crate::ops::subtensor::call_python(slf.py(), "inc_subtensor", (slf.clone(), y))
    }
}
