//! Built-in tensor ops as Python classes (`Elemwise`, `DimShuffle`, the
//! `CAReduce` family, `Shape`, `Shape_i`, `Reshape`, `Dot`): each holds its
//! core op; props, `str` and equality come from the core.

use crate::errors::IntoPyResult;
use crate::graph::types::parse_dtype;
use crate::ops::op::PyOp;
use crate::scalar_ops::{self, PyScalarOp};
use oxtensor_core::ops::blas::Dot;
use oxtensor_core::ops::dimshuffle::{Axis, DimShuffle};
use oxtensor_core::ops::elemwise::Elemwise;
use oxtensor_core::ops::grad_ops::GradOp;
use oxtensor_core::ops::ifelse::IfElse;
use oxtensor_core::ops::reduce::{normalize_axes, CAReduce, ReduceKind};
use oxtensor_core::ops::scalar::ScalarOp;
use oxtensor_core::ops::shape::{Reshape, Shape, ShapeI};
use oxtensor_core::ops::OpRef;
use oxtensor_core::types::TensorType;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::{Arc, Mutex};

pub(crate) fn core_of<'a, T: 'static>(op: &'a PyRef<'_, PyOp>) -> PyResult<&'a T> {
    op.core
        .as_ref()
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| PyRuntimeError::new_err("built-in op without its core op"))
}

/// `(args, kwargs)` of `__getnewargs_ex__`.
pub(crate) type NewArgs<'py> = (Bound<'py, PyTuple>, Bound<'py, PyDict>);

/// `__getnewargs_ex__` from the op's own attributes, so that `copy` and
/// `pickle` call the constructor again (`Shape_i(i)`, `DimShuffle(
/// input_ndim=..., new_order=...)`) and the core op is rebuilt from them.
pub(crate) fn new_args<'py>(
    op: &Bound<'py, PyAny>,
    args: &[&str],
    kwargs: &[&str],
) -> PyResult<NewArgs<'py>> {
    let py = op.py();
    let values = args
        .iter()
        .map(|a| op.getattr(*a))
        .collect::<PyResult<Vec<_>>>()?;
    let named = PyDict::new(py);
    for k in kwargs {
        named.set_item(k, op.getattr(*k)?)?;
    }
    Ok((PyTuple::new(py, values)?, named))
}

// ---- Elemwise --------------------------------------------------------------

/// `Elemwise(scalar_op, inplace_pattern=None, name=None)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.elemwise", name = "Elemwise")]
pub struct PyElemwise {
    name: Option<String>,
}

#[pymethods]
impl PyElemwise {
    #[new]
    #[pyo3(signature = (scalar_op, inplace_pattern = None, name = None, nfunc_spec = None))]
    fn new(
        scalar_op: Bound<'_, PyScalarOp>,
        inplace_pattern: Option<Bound<'_, PyDict>>,
        name: Option<String>,
        nfunc_spec: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let _ = nfunc_spec;
        let mut pattern: Vec<(usize, usize)> = match inplace_pattern {
            Some(d) => d
                .iter()
                .map(|(k, v)| Ok((k.extract()?, v.extract()?)))
                .collect::<PyResult<_>>()?,
            None => Vec::new(),
        };
        pattern.sort_unstable();
        let core = Elemwise {
            scalar_op: scalar_op.borrow().op.clone(),
            inplace_pattern: pattern,
        };
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyElemwise { name }))
    }

    #[classattr]
    fn __props__() -> (&'static str, &'static str) {
        ("scalar_op", "inplace_pattern")
    }

    /// `Elemwise(scalar_op, inplace_pattern=..., name=...)` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &["scalar_op"], &["inplace_pattern", "name"])
    }

    /// The scalar op mapped over the tensors.
    #[getter]
    fn scalar_op(slf: PyRef<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        scalar_ops::instance(py, core_of::<Elemwise>(slf.as_super())?.scalar_op.clone())
    }

    /// `{output: input}` pairs computed in place.
    #[getter]
    fn inplace_pattern<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (o, i) in &core_of::<Elemwise>(slf.as_super())?.inplace_pattern {
            d.set_item(o, i)?;
        }
        Ok(d)
    }

    /// `{output: [input]}`, from the inplace pattern.
    #[getter]
    fn destroy_map<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (o, i) in &core_of::<Elemwise>(slf.as_super())?.inplace_pattern {
            d.set_item(o, vec![*i])?;
        }
        Ok(d)
    }

    /// The name given at construction, if any.
    #[getter]
    fn name(&self) -> Option<String> {
        self.name.clone()
    }

    fn __str__(slf: PyRef<'_, Self>) -> PyResult<String> {
        match &slf.name {
            Some(n) => Ok(n.clone()),
            None => Ok(oxtensor_core::ops::Op::describe(core_of::<Elemwise>(
                slf.as_super(),
            )?)),
        }
    }
}

// ---- DimShuffle ------------------------------------------------------------

/// `DimShuffle(input_ndim=..., new_order=...)`, with `"x"` for new axes.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.elemwise", name = "DimShuffle")]
pub struct PyDimShuffle;

/// Reads a `new_order` of ints and `"x"`.
pub fn parse_order(order: &Bound<'_, PyAny>) -> PyResult<Vec<Axis>> {
    order
        .try_iter()?
        .map(|a| {
            let a = a?;
            if a.cast::<PyString>()
                .is_ok_and(|s| s.to_str().is_ok_and(|s| s == "x"))
            {
                return Ok(None);
            }
            let i: i64 = a.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "DimShuffle indices must be Python ints or 'x'; got {}",
                    a.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            usize::try_from(i).map(Some).map_err(|_| {
                PyTypeError::new_err(format!("DimShuffle indices must be non-negative, got {i}"))
            })
        })
        .collect()
}

#[pymethods]
impl PyDimShuffle {
    #[new]
    #[pyo3(signature = (*, input_ndim, new_order))]
    fn new(input_ndim: usize, new_order: Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let core = DimShuffle::new(input_ndim, parse_order(&new_order)?).py()?;
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyDimShuffle))
    }

    #[classattr]
    fn __props__() -> (&'static str, &'static str) {
        ("input_ndim", "new_order")
    }

    /// `DimShuffle(input_ndim=..., new_order=...)` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &[], &["input_ndim", "new_order"])
    }

    /// The input's rank.
    #[getter]
    fn input_ndim(slf: PyRef<'_, Self>) -> PyResult<usize> {
        Ok(core_of::<DimShuffle>(slf.as_super())?.input_ndim)
    }

    /// The order, `"x"` for new axes.
    #[getter]
    fn new_order<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let order = &core_of::<DimShuffle>(slf.as_super())?.new_order;
        let items: Vec<Bound<'py, PyAny>> = order
            .iter()
            .map(|a| match a {
                Some(i) => Ok(i.into_pyobject(py)?.into_any()),
                None => Ok(PyString::new(py, "x").into_any()),
            })
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, items)
    }

    /// Kept input axes, in output order.
    #[getter]
    fn shuffle(slf: PyRef<'_, Self>) -> PyResult<Vec<usize>> {
        Ok(core_of::<DimShuffle>(slf.as_super())?.shuffle())
    }

    /// Dropped input axes.
    #[getter]
    fn drop(slf: PyRef<'_, Self>) -> PyResult<Vec<usize>> {
        Ok(core_of::<DimShuffle>(slf.as_super())?.drop())
    }

    /// Output positions of new axes.
    #[getter]
    fn augment(slf: PyRef<'_, Self>) -> PyResult<Vec<usize>> {
        Ok(core_of::<DimShuffle>(slf.as_super())?.augment())
    }

    /// The output is a view of the input.
    #[getter]
    fn view_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(0, vec![0])?;
        Ok(d)
    }
}

// ---- CAReduce and subclasses -----------------------------------------------

/// `CAReduce`: a reduction. Constructed with `axis`, and optionally `dtype`
/// and `acc_dtype`; the dtypes not given are resolved per input in `make_node`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.elemwise", name = "CAReduce")]
pub struct PyCAReduce {
    kind: ReduceKind,
    axis: Option<Vec<i64>>,
    dtype: Option<oxtensor_core::dtype::DType>,
    acc_dtype: Option<oxtensor_core::dtype::DType>,
}

fn parse_axis(axis: Option<Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    match axis {
        None => Ok(None),
        Some(a) if a.is_none() => Ok(None),
        Some(a) => match a.extract::<i64>() {
            Ok(i) => Ok(Some(vec![i])),
            Err(_) => Ok(Some(a.extract::<Vec<i64>>().map_err(|_| {
                PyTypeError::new_err("axis must be None, an int or a sequence of ints")
            })?)),
        },
    }
}

impl PyCAReduce {
    fn template(
        kind: ReduceKind,
        axis: Option<Bound<'_, PyAny>>,
        dtype: Option<Bound<'_, PyAny>>,
        acc_dtype: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let this = PyCAReduce {
            kind,
            axis: parse_axis(axis)?,
            dtype: dtype
                .filter(|d| !d.is_none())
                .map(|d| parse_dtype(&d))
                .transpose()?,
            acc_dtype: acc_dtype
                .filter(|d| !d.is_none())
                .map(|d| parse_dtype(&d))
                .transpose()?,
        };
        let core = this.resolved_if_possible();
        Ok(PyClassInitializer::from(PyOp { core }).add_subclass(this))
    }

    /// A core op is known up front only when nothing depends on the input.
    fn resolved_if_possible(&self) -> Option<OpRef> {
        let axis = self
            .axis
            .as_ref()
            .map(|a| a.iter().map(|&i| i as usize).collect::<Vec<_>>());
        let all_non_negative = self.axis.as_ref().is_none_or(|a| a.iter().all(|&i| i >= 0));
        match (self.dtype, self.acc_dtype, all_non_negative) {
            (Some(dtype), Some(acc_dtype), true) => {
                let mut axis = axis;
                if let Some(a) = axis.as_mut() {
                    a.sort_unstable();
                }
                Some(Arc::new(CAReduce {
                    kind: self.kind,
                    axis,
                    dtype,
                    acc_dtype,
                }))
            }
            _ => None,
        }
    }

    /// The core op for an input of this type.
    pub fn resolve(&self, input: &TensorType) -> PyResult<CAReduce> {
        let mut op = CAReduce::new(self.kind, self.axis.as_deref(), input).py()?;
        if let Some(d) = self.dtype {
            op.dtype = d;
        }
        if let Some(d) = self.acc_dtype {
            // All/Any accumulate truth values: a bool accumulator loses nothing.
            let truth = matches!(self.kind, ReduceKind::All | ReduceKind::Any);
            if !truth && !input.dtype.can_cast_safely(d) {
                return Err(PyTypeError::new_err(format!(
                    "Cannot build {} node with input dtype {} and acc_dtype {d}, as \
                     precision would be lost: give an acc_dtype at least as precise as \
                     {}, or dtype instead of acc_dtype",
                    oxtensor_core::ops::Op::describe(&op),
                    input.dtype,
                    input.dtype
                )));
            }
            op.acc_dtype = d;
        }
        Ok(op)
    }
}

#[pymethods]
impl PyCAReduce {
    #[classattr]
    fn __props__() -> (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ) {
        (
            "scalar_op",
            "axis",
            "dtype",
            "acc_dtype",
            "upcast_discrete_output",
        )
    }

    /// `Sum(axis=..., dtype=..., acc_dtype=...)` (the class of the op)
    /// rebuilds it; a template keeps its unresolved dtypes as `None`.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &[], &["axis", "dtype", "acc_dtype"])
    }

    /// Reduces `input`; unresolved dtypes follow PyTensor's defaults.
    fn make_node<'py>(
        slf: &Bound<'py, Self>,
        input: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let input = crate::convert::constant::as_tensor_variable(input, None, None, None)?;
        let ty = crate::ops::make_node::tensor_type_of(&input)?;
        let core: OpRef = Arc::new(slf.borrow().resolve(&ty)?);
        let same = slf
            .as_super()
            .borrow()
            .core
            .as_ref()
            .is_some_and(|c| oxtensor_core::ops::ops_equal(c, &core));
        let op = if same {
            slf.clone().into_any().unbind()
        } else {
            op_object(py, &core)?
        };
        Ok(crate::ops::make_node::builtin(op.bind(py), &core, vec![input])?.into_any())
    }

    /// The folded scalar op (`add`, `maximum`, ...).
    #[getter]
    fn scalar_op(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        scalar_ops::scalar_op(py, self.kind.scalar_name())
    }

    /// Axes as a tuple, or `None` for all.
    #[getter]
    fn axis<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Py<PyAny>> {
        let resolved = slf.as_super().core.as_ref().and_then(|c| {
            c.as_any()
                .downcast_ref::<CAReduce>()
                .map(|c| c.axis.clone())
        });
        let axis: Option<Vec<i64>> = match resolved {
            Some(a) => a.map(|a| a.into_iter().map(|i| i as i64).collect()),
            None => slf.axis.clone(),
        };
        Ok(match axis {
            Some(a) => PyTuple::new(py, a)?.into_any().unbind(),
            None => py.None(),
        })
    }

    /// Output dtype (`None` until resolved for an input).
    #[getter]
    fn dtype(slf: PyRef<'_, Self>) -> Option<String> {
        let resolved = slf
            .as_super()
            .core
            .as_ref()
            .and_then(|c| c.as_any().downcast_ref::<CAReduce>().map(|c| c.dtype));
        resolved.or(slf.dtype).map(|d| d.to_string())
    }

    /// Accumulator dtype (`None` until resolved for an input).
    #[getter]
    fn acc_dtype(slf: PyRef<'_, Self>) -> Option<String> {
        let resolved = slf
            .as_super()
            .core
            .as_ref()
            .and_then(|c| c.as_any().downcast_ref::<CAReduce>().map(|c| c.acc_dtype));
        resolved.or(slf.acc_dtype).map(|d| d.to_string())
    }

    /// Sums of small integers widen their output dtype.
    #[getter]
    fn upcast_discrete_output(&self) -> bool {
        true
    }

    fn __str__(slf: PyRef<'_, Self>) -> String {
        match &slf.as_super().core {
            Some(c) => c.describe(),
            None => {
                let axis = match &slf.axis {
                    None => "axes=None".to_string(),
                    Some(a) if a.len() == 1 => format!("axis={}", a[0]),
                    Some(a) => format!("axes={a:?}"),
                };
                format!("{}{{{axis}}}", slf.kind.class_name())
            }
        }
    }
}

macro_rules! reductions {
    ($($rs:ident => $kind:ident, $pyname:literal;)*) => {$(
        #[doc = concat!("`", $pyname, "(axis=None, dtype=None, acc_dtype=None)`.")]
        #[pyclass(extends = PyCAReduce, subclass, module = "oxtensor.tensor.math", name = $pyname)]
        pub struct $rs;

        #[pymethods]
        impl $rs {
            #[new]
            #[pyo3(signature = (axis = None, dtype = None, acc_dtype = None))]
            fn new(axis: Option<Bound<'_, PyAny>>, dtype: Option<Bound<'_, PyAny>>, acc_dtype: Option<Bound<'_, PyAny>>) -> PyResult<PyClassInitializer<Self>> {
                Ok(PyCAReduce::template(ReduceKind::$kind, axis, dtype, acc_dtype)?.add_subclass($rs))
            }
        }
    )*};
}

reductions! {
    PySum => Sum, "Sum";
    PyProd => Prod, "Prod";
    PyMax => Max, "Max";
    PyMin => Min, "Min";
    PyAll => All, "All";
    PyAny_ => Any, "Any";
}

fn reduce_object(py: Python<'_>, core: &CAReduce) -> PyResult<Py<PyAny>> {
    let template = PyCAReduce {
        kind: core.kind,
        axis: core
            .axis
            .as_ref()
            .map(|a| a.iter().map(|&i| i as i64).collect()),
        dtype: Some(core.dtype),
        acc_dtype: Some(core.acc_dtype),
    };
    let base = PyClassInitializer::from(PyOp {
        core: Some(Arc::new(core.clone())),
    })
    .add_subclass(template);
    Ok(match core.kind {
        ReduceKind::Sum => Py::new(py, base.add_subclass(PySum))?.into_any(),
        ReduceKind::Prod => Py::new(py, base.add_subclass(PyProd))?.into_any(),
        ReduceKind::Max => Py::new(py, base.add_subclass(PyMax))?.into_any(),
        ReduceKind::Min => Py::new(py, base.add_subclass(PyMin))?.into_any(),
        ReduceKind::All => Py::new(py, base.add_subclass(PyAll))?.into_any(),
        ReduceKind::Any => Py::new(py, base.add_subclass(PyAny_))?.into_any(),
    })
}

/// The base of a fused `Sum`'s Python object (`pickle/composite.rs`): a
/// `CAReduce` whose core op is `core`, reducing as `r` does.
pub(crate) fn composite_reduce_init(core: OpRef, r: &CAReduce) -> PyClassInitializer<PyCAReduce> {
    let template = PyCAReduce {
        kind: r.kind,
        axis: r
            .axis
            .as_ref()
            .map(|a| a.iter().map(|&i| i as i64).collect()),
        dtype: Some(r.dtype),
        acc_dtype: Some(r.acc_dtype),
    };
    PyClassInitializer::from(PyOp { core: Some(core) }).add_subclass(template)
}

/// Builds the core `CAReduce` for `x.sum(axis)` and friends.
pub fn reduction(
    kind: ReduceKind,
    axis: Option<Vec<i64>>,
    input: &TensorType,
    dtype: Option<oxtensor_core::dtype::DType>,
    acc_dtype: Option<oxtensor_core::dtype::DType>,
) -> PyResult<CAReduce> {
    let template = PyCAReduce {
        kind,
        axis,
        dtype,
        acc_dtype,
    };
    template.resolve(input)
}

/// Axes normalised against a rank, as reductions use them.
pub fn axes_for(axis: Option<Vec<i64>>, ndim: usize) -> PyResult<Vec<usize>> {
    match axis {
        None => Ok((0..ndim).collect()),
        Some(a) => normalize_axes(&a, ndim).py(),
    }
}

// ---- Shape, Shape_i, Reshape, Dot ------------------------------------------

/// `Shape`: the shape as an int64 vector.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.shape", name = "Shape")]
pub struct PyShape;

#[pymethods]
impl PyShape {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Shape)).add_subclass(PyShape)
    }

    /// `Shape()` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &[], &[])
    }

    #[classattr]
    fn __props__<'py>(py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }

    /// Only the input's shape matters, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![false]]
    }
}

/// `Shape_i(i)`: the length of axis `i`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.shape", name = "Shape_i")]
pub struct PyShapeI;

#[pymethods]
impl PyShapeI {
    #[new]
    fn new(i: usize) -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(ShapeI { i })).add_subclass(PyShapeI)
    }

    #[classattr]
    fn __props__() -> (&'static str,) {
        ("i",)
    }

    /// `Shape_i(i)` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &["i"], &[])
    }

    /// The axis.
    #[getter]
    fn i(slf: PyRef<'_, Self>) -> PyResult<usize> {
        Ok(core_of::<ShapeI>(slf.as_super())?.i)
    }

    /// Only the input's shape matters, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![false]]
    }
}

/// `Reshape(ndim)`: inputs are the tensor and its new shape.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.shape", name = "Reshape")]
pub struct PyReshape;

#[pymethods]
impl PyReshape {
    #[new]
    fn new(ndim: usize) -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Reshape { ndim })).add_subclass(PyReshape)
    }

    #[classattr]
    fn __props__() -> (&'static str,) {
        ("ndim",)
    }

    /// `Reshape(ndim)` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &["ndim"], &[])
    }

    /// The output rank.
    #[getter]
    fn ndim(slf: PyRef<'_, Self>) -> PyResult<usize> {
        Ok(core_of::<Reshape>(slf.as_super())?.ndim)
    }

    /// The shape input changes the output's shape, not its elements.
    fn connection_pattern(&self, node: Bound<'_, PyAny>) -> Vec<Vec<bool>> {
        let _ = node;
        vec![vec![true], vec![false]]
    }
}

/// `Dot`: vector and matrix products.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.math", name = "Dot")]
pub struct PyDot;

#[pymethods]
impl PyDot {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(Dot)).add_subclass(PyDot)
    }

    /// `Dot()` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &[], &[])
    }

    #[classattr]
    fn __props__<'py>(py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }
}

/// `IfElse(n_outs)`: lazy choice between two branches (`if{}`).
#[pyclass(extends = PyOp, subclass, module = "oxtensor.ifelse", name = "IfElse")]
pub struct PyIfElse;

#[pymethods]
impl PyIfElse {
    #[new]
    #[pyo3(signature = (n_outs, as_view = false, name = None))]
    fn new(n_outs: usize, as_view: bool, name: Option<String>) -> PyClassInitializer<Self> {
        let _ = (as_view, name);
        PyOp::builtin(Arc::new(IfElse { n_outs })).add_subclass(PyIfElse)
    }

    #[classattr]
    fn __props__() -> (&'static str,) {
        ("n_outs",)
    }

    /// `IfElse(n_outs)` rebuilds it.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        new_args(slf.as_any(), &["n_outs"], &[])
    }

    /// Number of outputs.
    #[getter]
    fn n_outs(slf: PyRef<'_, Self>) -> PyResult<usize> {
        Ok(core_of::<IfElse>(slf.as_super())?.n_outs)
    }
}

/// The gradient-shaping identities (`zero_grad`, `grad_clip`, ...): one
/// class, its `str` naming the kind (`ZeroGrad`, `GradClip{lower=-1.0, upper=1.0}`).
#[pyclass(extends = PyOp, subclass, module = "oxtensor.gradient", name = "GradOp")]
pub struct PyGradOp;

#[pymethods]
impl PyGradOp {
    #[classattr]
    fn __props__<'py>(py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }

    /// A view of the input.
    #[getter]
    fn view_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(0, vec![0])?;
        Ok(d)
    }
}

// ---- Python objects for core ops -------------------------------------------

/// `DimShuffle` objects by `(input_ndim, new_order)`; the order inline, so
/// a lookup allocates nothing. FxHash: these caches are consulted for every
/// node a user builds.
type Cache = Mutex<FxHashMap<(usize, SmallVec<[Axis; 6]>), Py<PyAny>>>;
static ELEMWISE: PyOnceLock<Mutex<FxHashMap<ScalarOp, Py<PyAny>>>> = PyOnceLock::new();
static DIMSHUFFLE: PyOnceLock<Cache> = PyOnceLock::new();

fn cached<K: std::hash::Hash + Eq + Clone>(
    py: Python<'_>,
    cell: &'static PyOnceLock<Mutex<FxHashMap<K, Py<PyAny>>>>,
    key: &K,
    make: impl FnOnce() -> PyResult<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let map = cell.get_or_init(py, || Mutex::new(FxHashMap::default()));
    if let Some(o) = map
        .lock()
        .map_err(|_| PyRuntimeError::new_err("op cache poisoned"))?
        .get(key)
    {
        return Ok(o.clone_ref(py));
    }
    let obj = make()?;
    map.lock()
        .map_err(|_| PyRuntimeError::new_err("op cache poisoned"))?
        .insert(key.clone(), obj.clone_ref(py));
    Ok(obj)
}

/// The Python object of a core op from one op family's module, or `None`
/// if the op is not of that family.
type FamilyObject = fn(Python<'_>, &OpRef) -> Option<PyResult<Py<PyAny>>>;

/// Families of built-in ops whose Python classes live in their own files
/// (one entry per file; each returns `None` for ops that are not its own).
const FAMILY_OBJECTS: &[FamilyObject] = &[
    crate::ops::special::special_object,
    crate::ops::sort::sort_object,
    crate::ops::subtensor::family_object,
    crate::ops::linalg::linalg_object,
    crate::ops::nonzero::family_object,
    crate::ops::bincount::family_object,
    crate::ops::shape::family_object,
    crate::ops::rewritten::family_object,
    crate::pickle::composite::PyCompositeReduce::object,
];

/// The Python object for a core op. Ops are immutable, so plain `Elemwise`
/// and `DimShuffle` instances are shared.
pub fn op_object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    let any = core.as_any();
    if let Some(e) = any.downcast_ref::<Elemwise>() {
        let make = || {
            Ok(Py::new(
                py,
                PyOp::builtin(core.clone()).add_subclass(PyElemwise { name: None }),
            )?
            .into_any())
        };
        // A composite is one fused node's: cached, it would outlive it.
        let composite = matches!(e.scalar_op, ScalarOp::Composite(_));
        return if e.inplace_pattern.is_empty() && !composite {
            cached(py, &ELEMWISE, &e.scalar_op, make)
        } else {
            make()
        };
    }
    if let Some(d) = any.downcast_ref::<DimShuffle>() {
        let key = (d.input_ndim, SmallVec::from_slice(&d.new_order));
        return cached(py, &DIMSHUFFLE, &key, || {
            Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass(PyDimShuffle))?.into_any())
        });
    }
    if let Some(r) = any.downcast_ref::<CAReduce>() {
        return reduce_object(py, r);
    }
    if any.is::<Shape>() {
        return Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass(PyShape))?.into_any());
    }
    if any.is::<ShapeI>() {
        return Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass(PyShapeI))?.into_any());
    }
    if any.is::<Reshape>() {
        return Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass(PyReshape))?.into_any());
    }
    if any.is::<IfElse>() {
        return Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass(PyIfElse))?.into_any());
    }
    if any.is::<Dot>() {
        return Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass(PyDot))?.into_any());
    }
    if any.is::<GradOp>() {
        return Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass(PyGradOp))?.into_any());
    }
    if let Some(host) = any.downcast_ref::<crate::ops::host_op::HostOp>() {
        return Ok(host.obj.clone_ref(py));
    }
    for family in FAMILY_OBJECTS {
        if let Some(obj) = family(py, core) {
            return obj;
        }
    }
    Err(PyTypeError::new_err(format!(
        "op {} has no Python class",
        core.describe()
    )))
}

/// `oxtensor._core.elemwise_op(scalar_op)`: the shared `Elemwise` of a scalar op.
#[pyfunction]
pub fn elemwise_op(py: Python<'_>, scalar_op: Bound<'_, PyScalarOp>) -> PyResult<Py<PyAny>> {
    let core: OpRef = Arc::new(Elemwise::new(scalar_op.borrow().op.clone()));
    op_object(py, &core)
}

/// Adds the classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyElemwise>()?;
    m.add_class::<PyDimShuffle>()?;
    m.add_class::<PyCAReduce>()?;
    m.add_class::<PySum>()?;
    m.add_class::<PyProd>()?;
    m.add_class::<PyMax>()?;
    m.add_class::<PyMin>()?;
    m.add_class::<PyAll>()?;
    m.add_class::<PyAny_>()?;
    m.add_class::<PyShape>()?;
    m.add_class::<PyShapeI>()?;
    m.add_class::<PyReshape>()?;
    m.add_class::<PyDot>()?;
    m.add_class::<PyIfElse>()?;
    m.add_class::<PyGradOp>()?;
    m.add_function(wrap_pyfunction!(elemwise_op, m)?)?;
    Ok(())
}
