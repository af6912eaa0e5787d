//! Python classes and builders of the axis-wise ops: `Softmax`,
//! `LogSoftmax`, `LogSumExp` and `Argmax`. Each class holds its core op;
//! the `_core` functions normalise axes against the input's rank (so
//! negative axes work) and build the node.

use crate::errors::IntoPyResult;
use crate::graph::tensor_variable::reductions::parse_axes;
use crate::ops::classes::core_op;
use crate::ops::make_node::{apply_core, dimshuffle, tensor_type_of};
use crate::ops::op::PyOp;
use crate::ops::props::core_of;
use oxtensor_core::build::reinsert_axes;
use oxtensor_core::kernels::softmax::SoftmaxKind;
use oxtensor_core::ops::argmax::Argmax;
use oxtensor_core::ops::logsumexp::LogSumExp;
use oxtensor_core::ops::reduce::normalize_axes;
use oxtensor_core::ops::softmax::Softmax;
use oxtensor_core::ops::OpRef;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

type Out<'py> = PyResult<Bound<'py, PyAny>>;

/// A constructor's axes: non-negative (the op does not know the rank yet).
pub(crate) fn constructor_axes(
    op: &str,
    axis: Option<Bound<'_, PyAny>>,
) -> PyResult<Option<Vec<usize>>> {
    let Some(axes) = parse_axes(axis)? else {
        return Ok(None);
    };
    let mut out = axes
        .iter()
        .map(|&a| {
            usize::try_from(a).map_err(|_| {
                PyValueError::new_err(format!(
                    "{op}(axis={a}): a constructed op needs non-negative axes; \
                     the functions (e.g. softmax(x, axis=-1)) accept negative ones"
                ))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    out.sort_unstable();
    out.dedup();
    Ok(Some(out))
}

pub(crate) fn axes_tuple<'py>(py: Python<'py>, axis: Option<Vec<usize>>) -> PyResult<Py<PyAny>> {
    Ok(match axis {
        Some(a) => PyTuple::new(py, a)?.into_any().unbind(),
        None => py.None(),
    })
}

macro_rules! softmax_class {
    ($rs:ident, $kind:ident, $pyname:literal) => {
        #[doc = concat!("`", $pyname, "(axis)`: normalises along `axis`, an int or a tuple (`None`: all elements).")]
        #[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.special", name = $pyname)]
        pub struct $rs {
            /// The axes as given when one counts from the end (`axis=-1`):
            /// the rank is not known until the op is applied, so such an op
            /// has no core op and compares by its props; each node gets the
            /// op with the axes normalised.
            from_end: Option<Vec<i64>>,
        }

        $crate::ops::props::op_args!($rs, props ["axis"], [], ["axis"]);

        #[pymethods]
        impl $rs {
            #[new]
            #[pyo3(signature = (axis = None))]
            fn new(axis: Option<Bound<'_, PyAny>>) -> PyResult<PyClassInitializer<Self>> {
                if let Some(axes) = negative_axes(axis.as_ref())? {
                    let base = PyClassInitializer::from(PyOp { core: None });
                    return Ok(base.add_subclass($rs { from_end: Some(axes) }));
                }
                let axis = constructor_axes($pyname, axis)?;
                let core = Softmax {
                    kind: SoftmaxKind::$kind,
                    axis,
                };
                Ok(PyOp::builtin(Arc::new(core)).add_subclass($rs { from_end: None }))
            }

            /// The axes as a tuple, or `None`.
            #[getter]
            fn axis(slf: PyRef<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
                if let Some(axes) = &slf.from_end {
                    return Ok(PyTuple::new(py, axes)?.into_any().unbind());
                }
                let a = core_of::<Softmax>(slf.as_super())?.axis.clone();
                axes_tuple(py, a)
            }

            /// The node of the op with its axes normalised against the
            /// input's rank (a `ValueError` when out of bounds).
            #[pyo3(signature = (*inputs))]
            fn make_node<'py>(
                slf: &Bound<'py, Self>,
                inputs: &Bound<'py, PyTuple>,
            ) -> PyResult<Bound<'py, PyAny>> {
                let Some(axes) = slf.borrow().from_end.clone() else {
                    return PyOp::make_node(slf.as_super(), inputs);
                };
                let [x] = <[Bound<'py, PyAny>; 1]>::try_from(inputs.iter().collect::<Vec<_>>())
                    .map_err(|v| {
                        PyTypeError::new_err(format!("{} takes one input, got {}", $pyname, v.len()))
                    })?;
                let x = crate::convert::constant::as_tensor_variable(x, None, None, None)?;
                let ndim = tensor_type_of(&x)?.ndim();
                let core = Softmax {
                    kind: SoftmaxKind::$kind,
                    axis: Some(normalize_axes(&axes, ndim).py()?),
                };
                let op = softmax_object(slf.py(), &(Arc::new(core) as OpRef))?;
                op.bind(slf.py()).call_method1("make_node", (x,))
            }
        }
    };
}

/// The constructor's axes when one of them is negative, else `None`.
fn negative_axes(axis: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    let axes = parse_axes(axis.cloned())?;
    Ok(axes.filter(|a| a.iter().any(|&i| i < 0)))
}

softmax_class!(PySoftmax, Softmax, "Softmax");
softmax_class!(PyLogSoftmax, LogSoftmax, "LogSoftmax");

/// The Python class of a core op whose one parameter is `axis: Option<Vec<usize>>`.
macro_rules! axes_class {
    ($rs:ident, $core:ident, $pyname:literal, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.math", name = $pyname)]
        pub struct $rs;

        $crate::ops::props::op_args!($rs, props["axis"], [], ["axis"]);

        #[pymethods]
        impl $rs {
            #[new]
            #[pyo3(signature = (axis = None))]
            fn new(axis: Option<Bound<'_, PyAny>>) -> PyResult<PyClassInitializer<Self>> {
                let axis = $crate::ops::special::constructor_axes($pyname, axis)?;
                Ok(PyOp::builtin(Arc::new($core { axis })).add_subclass($rs))
            }

            /// The reduced axes as a tuple, or `None` for all.
            #[getter]
            fn axis(slf: PyRef<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
                let core = $crate::ops::props::core_of::<$core>(slf.as_super())?;
                $crate::ops::special::axes_tuple(py, core.axis.clone())
            }
        }
    };
}
pub(crate) use axes_class;

axes_class!(
    PyLogSumExp,
    LogSumExp,
    "LogSumExp",
    "`LogSumExp(axis)`: `log(sum(exp(x), axis))` in one op."
);
axes_class!(
    PyArgmax,
    Argmax,
    "Argmax",
    "`Argmax(axis)`: int64 positions of the maxima."
);

/// The Python object of a `Softmax`: `Softmax` or `LogSoftmax` by its kind.
pub fn softmax_object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    let base = PyOp::builtin(core.clone());
    Ok(match core_op::<Softmax>(core)?.kind {
        SoftmaxKind::Softmax => {
            Py::new(py, base.add_subclass(PySoftmax { from_end: None }))?.into_any()
        }
        SoftmaxKind::LogSoftmax => {
            Py::new(py, base.add_subclass(PyLogSoftmax { from_end: None }))?.into_any()
        }
    })
}

fn softmax_node<'py>(
    kind: SoftmaxKind,
    x: Bound<'py, PyAny>,
    axis: Option<Bound<'py, PyAny>>,
) -> Out<'py> {
    let x = crate::convert::constant::as_tensor_variable(x, None, None, None)?;
    let ndim = tensor_type_of(&x)?.ndim();
    let axis = match parse_axes(axis)?.as_deref() {
        None => None,
        Some([a]) => Some(*a),
        Some(_) => return Err(PyTypeError::new_err("softmax takes one axis or None")),
    };
    let op = Softmax::new(kind, axis, ndim).py()?;
    apply_core(x.py(), Arc::new(op), vec![x])
}

/// `softmax(x, axis)`.
#[pyfunction]
#[pyo3(signature = (x, axis = None))]
pub fn softmax<'py>(x: Bound<'py, PyAny>, axis: Option<Bound<'py, PyAny>>) -> Out<'py> {
    softmax_node(SoftmaxKind::Softmax, x, axis)
}

/// `log_softmax(x, axis)`.
#[pyfunction]
#[pyo3(signature = (x, axis = None))]
pub fn log_softmax<'py>(x: Bound<'py, PyAny>, axis: Option<Bound<'py, PyAny>>) -> Out<'py> {
    softmax_node(SoftmaxKind::LogSoftmax, x, axis)
}

/// Builds a reducing op over `axis` and re-inserts the axes for `keepdims`.
fn reducing<'py>(
    x: Bound<'py, PyAny>,
    axis: Option<Bound<'py, PyAny>>,
    keepdims: bool,
    make: impl FnOnce(Option<&[i64]>, usize) -> oxtensor_core::Result<OpRef>,
) -> Out<'py> {
    let x = crate::convert::constant::as_tensor_variable(x, None, None, None)?;
    let ndim = tensor_type_of(&x)?.ndim();
    let axes = parse_axes(axis)?;
    let op = make(axes.as_deref(), ndim).py()?;
    let out = apply_core(x.py(), op, vec![x])?;
    if !keepdims {
        return Ok(out);
    }
    let reduced = match axes {
        Some(a) => normalize_axes(&a, ndim).py()?,
        None => (0..ndim).collect(),
    };
    dimshuffle(&out, reinsert_axes(ndim, &reduced))
}

/// `logsumexp` and `argmax`: a reducing op over `axis`, made by its `new`.
macro_rules! reducing_fns {
    ($($name:ident => $op:ident, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (x, axis = None, keepdims = false))]
        pub fn $name<'py>(
            x: Bound<'py, PyAny>,
            axis: Option<Bound<'py, PyAny>>,
            keepdims: bool,
        ) -> Out<'py> {
            reducing(x, axis, keepdims, |a, nd| Ok(Arc::new($op::new(a, nd)?) as OpRef))
        }
    )*};
}

reducing_fns! {
    logsumexp => LogSumExp, "`logsumexp(x, axis, keepdims)`.";
    argmax => Argmax, "`argmax(x, axis, keepdims)`.";
}

/// Adds the functions to the module (the classes: `ops/classes.rs`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(softmax, m)?)?;
    m.add_function(wrap_pyfunction!(log_softmax, m)?)?;
    m.add_function(wrap_pyfunction!(logsumexp, m)?)?;
    m.add_function(wrap_pyfunction!(argmax, m)?)?;
    Ok(())
}
