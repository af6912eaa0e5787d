//! `TensorVariable`: the operators and methods PyTensor users write on
//! tensors (`x * 2`, `x.T`, `x.sum(axis=1)`, `x @ y`, ...). Each builds
//! nodes of built-in ops in Rust.

pub mod math;
pub mod shape;

use crate::convert::constant::{as_tensor_variable, constant};
use crate::graph::types::parse_dtype;
use crate::graph::variable::PyVariable;
use crate::ops::make_node::{apply_core, dimshuffle, elemwise, tensor_type_of};
use crate::ops::reduce::{axes_for, reduction};
use oxtensor_core::dtype::DType;
use oxtensor_core::ops::blas::Dot;
use oxtensor_core::ops::dimshuffle::Axis;
use oxtensor_core::ops::reduce::ReduceKind;
use oxtensor_core::ops::scalar::{ScalarKind, ScalarOp};
use oxtensor_core::ops::shape::{Reshape, Shape, ShapeI};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::Arc;

/// `oxtensor.tensor.variable.TensorVariable`.
#[pyclass(extends = PyVariable, subclass, module = "oxtensor.tensor.variable", name = "TensorVariable")]
pub struct PyTensorVariable;

type Out<'py> = PyResult<Bound<'py, PyAny>>;

fn binary<'py>(kind: ScalarKind, a: &Bound<'py, PyAny>, b: Bound<'py, PyAny>) -> Out<'py> {
    elemwise(a.py(), ScalarOp::Kind(kind), vec![a.clone(), b])
}

fn reflected<'py>(kind: ScalarKind, a: &Bound<'py, PyAny>, b: Bound<'py, PyAny>) -> Out<'py> {
    elemwise(a.py(), ScalarOp::Kind(kind), vec![b, a.clone()])
}

fn unary<'py>(kind: ScalarKind, a: &Bound<'py, PyAny>) -> Out<'py> {
    elemwise(a.py(), ScalarOp::Kind(kind), vec![a.clone()])
}

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

/// A reduction with optional `keepdims`, as `x.sum(...)` and friends build it.
pub fn reduce<'py>(
    x: &Bound<'py, PyAny>,
    kind: ReduceKind,
    axis: Option<Bound<'py, PyAny>>,
    keepdims: bool,
    dtype: Option<DType>,
) -> Out<'py> {
    reduce_acc(x, kind, axis, keepdims, dtype, None)
}

/// [`reduce`] with an accumulator dtype (`x.sum(acc_dtype=...)`).
pub fn reduce_acc<'py>(
    x: &Bound<'py, PyAny>,
    kind: ReduceKind,
    axis: Option<Bound<'py, PyAny>>,
    keepdims: bool,
    dtype: Option<DType>,
    acc_dtype: Option<DType>,
) -> Out<'py> {
    let ty = tensor_type_of(x)?;
    let axis = parse_axes(axis)?;
    let op = reduction(kind, axis.clone(), &ty, dtype, acc_dtype)?;
    let out = apply_core(x.py(), Arc::new(op), vec![x.clone()])?;
    if !keepdims {
        return Ok(out);
    }
    restore_axes(&out, &axes_for(axis, ty.ndim())?, ty.ndim())
}

/// Re-inserts reduced axes as length-1 axes (`keepdims=True`).
pub(crate) fn restore_axes<'py>(
    out: &Bound<'py, PyAny>,
    reduced: &[usize],
    ndim: usize,
) -> Out<'py> {
    let mut next = 0;
    let order: Vec<Axis> = (0..ndim)
        .map(|d| {
            if reduced.contains(&d) {
                None
            } else {
                next += 1;
                Some(next - 1)
            }
        })
        .collect();
    dimshuffle(out, order)
}

pub(crate) fn parse_axes(axis: Option<Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    match axis {
        None => Ok(None),
        Some(a) if a.is_none() => Ok(None),
        Some(a) => match a.extract::<i64>() {
            Ok(i) => Ok(Some(vec![i])),
            Err(_) => a.extract::<Vec<i64>>().map(Some).map_err(|_| {
                PyTypeError::new_err("axis must be None, an int or a sequence of ints")
            }),
        },
    }
}

/// `mean`: the sum divided by the number of reduced elements.
pub fn mean<'py>(
    x: &Bound<'py, PyAny>,
    axis: Option<Bound<'py, PyAny>>,
    keepdims: bool,
) -> Out<'py> {
    let py = x.py();
    let ty = tensor_type_of(x)?;
    let axes = axes_for(parse_axes(axis.clone())?, ty.ndim())?;
    let mut s = reduce(x, ReduceKind::Sum, axis, false, None)?;
    let float = if matches!(
        tensor_type_of(&s)?.dtype,
        DType::Float16 | DType::Float32 | DType::Complex64
    ) {
        DType::Float32
    } else {
        DType::Float64
    };
    for &a in &axes {
        let len = apply_core(py, Arc::new(ShapeI { i: a }), vec![x.clone()])?;
        s = elemwise(
            py,
            ScalarOp::Kind(ScalarKind::TrueDiv),
            vec![s, cast(&len, float)?],
        )?;
    }
    // The float32 division is an accumulator, as in NumPy and PyTensor:
    // the mean of float16 data is float16.
    if ty.dtype == DType::Float16 {
        s = cast(&s, DType::Float16)?;
    }
    let out = if keepdims {
        restore_axes(&s, &axes, ty.ndim())?
    } else {
        s
    };
    // PyTensor names the mean `mean` (dprint shows it); with no axis to
    // reduce, `out` may be `x` itself, whose name stays.
    if !axes.is_empty() {
        out.setattr("name", "mean")?;
    }
    Ok(out)
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

    fn __add__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Add, slf.as_any(), other)
    }
    fn __radd__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Add, slf.as_any(), other)
    }
    fn __sub__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Sub, slf.as_any(), other)
    }
    fn __rsub__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Sub, slf.as_any(), other)
    }
    fn __mul__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Mul, slf.as_any(), other)
    }
    fn __rmul__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Mul, slf.as_any(), other)
    }
    fn __truediv__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::TrueDiv, slf.as_any(), other)
    }
    fn __rtruediv__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::TrueDiv, slf.as_any(), other)
    }
    fn __floordiv__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::IntDiv, slf.as_any(), other)
    }
    fn __rfloordiv__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::IntDiv, slf.as_any(), other)
    }
    fn __mod__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Mod, slf.as_any(), other)
    }
    fn __rmod__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Mod, slf.as_any(), other)
    }
    fn __pow__<'py>(
        slf: &Bound<'py, Self>,
        other: Bound<'py, PyAny>,
        modulo: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        if modulo.is_some_and(|m| !m.is_none()) {
            return Err(PyTypeError::new_err(
                "pow() with a modulus is not supported for tensors",
            ));
        }
        binary(ScalarKind::Pow, slf.as_any(), other)
    }
    fn __rpow__<'py>(
        slf: &Bound<'py, Self>,
        other: Bound<'py, PyAny>,
        modulo: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        let _ = modulo;
        reflected(ScalarKind::Pow, slf.as_any(), other)
    }
    fn __and__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::And, slf.as_any(), other)
    }
    fn __rand__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::And, slf.as_any(), other)
    }
    fn __or__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Or, slf.as_any(), other)
    }
    fn __ror__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Or, slf.as_any(), other)
    }
    fn __xor__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Xor, slf.as_any(), other)
    }
    fn __rxor__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        reflected(ScalarKind::Xor, slf.as_any(), other)
    }
    fn __lt__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Lt, slf.as_any(), other)
    }
    fn __le__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Le, slf.as_any(), other)
    }
    fn __gt__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Gt, slf.as_any(), other)
    }
    fn __ge__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        binary(ScalarKind::Ge, slf.as_any(), other)
    }
    fn __neg__<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        unary(ScalarKind::Neg, slf.as_any())
    }
    fn __abs__<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        unary(ScalarKind::Abs, slf.as_any())
    }
    fn __invert__<'py>(slf: &Bound<'py, Self>) -> Out<'py> {
        unary(ScalarKind::Invert, slf.as_any())
    }
    fn __matmul__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        crate::ops::matmul::matmul(slf.clone().into_any(), other)
    }
    fn __rmatmul__<'py>(slf: &Bound<'py, Self>, other: Bound<'py, PyAny>) -> Out<'py> {
        crate::ops::matmul::matmul(other, slf.clone().into_any())
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

    #[pyo3(signature = (axis = None, dtype = None, keepdims = false, acc_dtype = None))]
    fn sum<'py>(
        slf: &Bound<'py, Self>,
        axis: Option<Bound<'py, PyAny>>,
        dtype: Option<Bound<'py, PyAny>>,
        keepdims: bool,
        acc_dtype: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        let parse = |d: Option<Bound<'py, PyAny>>| {
            d.filter(|d| !d.is_none())
                .map(|d| parse_dtype(&d))
                .transpose()
        };
        let (dtype, acc_dtype) = (parse(dtype)?, parse(acc_dtype)?);
        reduce_acc(
            slf.as_any(),
            ReduceKind::Sum,
            axis,
            keepdims,
            dtype,
            acc_dtype,
        )
    }

    #[pyo3(signature = (axis = None, dtype = None, keepdims = false, acc_dtype = None))]
    fn prod<'py>(
        slf: &Bound<'py, Self>,
        axis: Option<Bound<'py, PyAny>>,
        dtype: Option<Bound<'py, PyAny>>,
        keepdims: bool,
        acc_dtype: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        let parse = |d: Option<Bound<'py, PyAny>>| {
            d.filter(|d| !d.is_none())
                .map(|d| parse_dtype(&d))
                .transpose()
        };
        let (dtype, acc_dtype) = (parse(dtype)?, parse(acc_dtype)?);
        reduce_acc(
            slf.as_any(),
            ReduceKind::Prod,
            axis,
            keepdims,
            dtype,
            acc_dtype,
        )
    }

    #[pyo3(signature = (axis = None, keepdims = false))]
    fn max<'py>(
        slf: &Bound<'py, Self>,
        axis: Option<Bound<'py, PyAny>>,
        keepdims: bool,
    ) -> Out<'py> {
        reduce(slf.as_any(), ReduceKind::Max, axis, keepdims, None)
    }

    #[pyo3(signature = (axis = None, keepdims = false))]
    fn min<'py>(
        slf: &Bound<'py, Self>,
        axis: Option<Bound<'py, PyAny>>,
        keepdims: bool,
    ) -> Out<'py> {
        reduce(slf.as_any(), ReduceKind::Min, axis, keepdims, None)
    }

    #[pyo3(signature = (axis = None, keepdims = false))]
    fn all<'py>(
        slf: &Bound<'py, Self>,
        axis: Option<Bound<'py, PyAny>>,
        keepdims: bool,
    ) -> Out<'py> {
        reduce(slf.as_any(), ReduceKind::All, axis, keepdims, None)
    }

    #[pyo3(signature = (axis = None, keepdims = false))]
    fn any<'py>(
        slf: &Bound<'py, Self>,
        axis: Option<Bound<'py, PyAny>>,
        keepdims: bool,
    ) -> Out<'py> {
        reduce(slf.as_any(), ReduceKind::Any, axis, keepdims, None)
    }

    #[pyo3(signature = (axis = None, dtype = None, keepdims = false, acc_dtype = None))]
    fn mean<'py>(
        slf: &Bound<'py, Self>,
        axis: Option<Bound<'py, PyAny>>,
        dtype: Option<Bound<'py, PyAny>>,
        keepdims: bool,
        acc_dtype: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        let _ = acc_dtype;
        let out = mean(slf.as_any(), axis, keepdims)?;
        match dtype.filter(|d| !d.is_none()) {
            Some(d) => cast(&out, parse_dtype(&d)?),
            None => Ok(out),
        }
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
        crate::ops::subtensor::call_python(slf.py(), "_getitem", (slf.clone(), args))
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
