//! `CAReduce` and its subclasses `Sum`, `Prod`, `Max`, `Min`, `All`, `Any`
//! (`oxtensor.tensor.math`): the dtypes not given are resolved per input.

use crate::errors::IntoPyResult;
use crate::graph::types::parse_dtype;
use crate::ops::classes::{core_op, op_object};
use crate::ops::op::PyOp;
use crate::ops::props::{new_args, NewArgs};
use crate::ops::scalar::{self};
use oxtensor_core::ops::prod_without_zeros::ProdWithoutZeros;
use oxtensor_core::ops::reduce::{normalize_axes, CAReduce};
use oxtensor_core::ops::OpRef;
use oxtensor_core::reduction::ReduceKind;
use oxtensor_core::types::TensorType;
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// `CAReduce`: a reduction. Constructed with `axis`, and optionally `dtype`
/// and `acc_dtype`; the dtypes not given are resolved per input in `make_node`.
/// `CAReduce(scalar_op, axis)` itself (PyTensor's base class) folds a scalar
/// op that one of the kinds folds, and keeps the input's dtype unless
/// `upcast_discrete_output`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.elemwise", name = "CAReduce")]
pub struct PyCAReduce {
    kind: ReduceKind,
    /// `ProdWithoutZeros`: a `Prod` whose core op skips the zeros.
    without_zeros: bool,
    /// `Prod`'s promise that the input has no zeros: kept, with no effect
    /// (the gradient handles zeros either way).
    no_zeros_in_input: bool,
    axis: Option<Vec<i64>>,
    dtype: Option<oxtensor_core::dtype::DType>,
    acc_dtype: Option<oxtensor_core::dtype::DType>,
    /// Made as `CAReduce(scalar_op, ...)`, with its `upcast_discrete_output`.
    generic: Option<bool>,
}

/// The kinds `CAReduce(scalar_op)` finds by the scalar op's name (`and_`
/// and `or_` give `All`/`Any`, made bitwise for integers in `resolve`).
const KINDS: [ReduceKind; 7] = [
    ReduceKind::Sum,
    ReduceKind::Prod,
    ReduceKind::Max,
    ReduceKind::Min,
    ReduceKind::All,
    ReduceKind::Any,
    ReduceKind::BitXor,
];

/// The reduction kind folding `scalar_op` (`add` → `Sum`, ...).
fn kind_of(scalar_op: &Bound<'_, PyAny>) -> PyResult<ReduceKind> {
    let op = scalar_op.cast::<scalar::PyScalarOp>().map_err(|_| {
        PyTypeError::new_err(format!(
            "CAReduce needs a scalar op (such as oxtensor.scalar.add), got {scalar_op}"
        ))
    })?;
    let name = op.getattr("name")?.extract::<String>()?;
    KINDS
        .into_iter()
        .find(|k| k.scalar_name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = KINDS.iter().map(|k| k.scalar_name()).collect();
            PyNotImplementedError::new_err(format!(
                "CAReduce of the scalar op {name} is not implemented; oxtensor reduces with {}",
                names.join(", ")
            ))
        })
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
    /// The core reduction, once the op is resolved for an input.
    fn resolved<'a>(slf: &'a PyRef<'_, Self>) -> Option<&'a CAReduce> {
        slf.as_super().core.as_ref().and_then(reduce_of)
    }

    fn template(
        kind: ReduceKind,
        axis: Option<Bound<'_, PyAny>>,
        dtype: Option<Bound<'_, PyAny>>,
        acc_dtype: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        Ok(Self::fields(kind, axis, dtype, acc_dtype)?.initializer())
    }

    fn fields(
        kind: ReduceKind,
        axis: Option<Bound<'_, PyAny>>,
        dtype: Option<Bound<'_, PyAny>>,
        acc_dtype: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let dtype_of = |d: Option<Bound<'_, PyAny>>| {
            d.filter(|d| !d.is_none())
                .map(|d| parse_dtype(&d))
                .transpose()
        };
        Ok(PyCAReduce {
            kind,
            without_zeros: false,
            no_zeros_in_input: false,
            generic: None,
            axis: parse_axis(axis)?,
            dtype: dtype_of(dtype)?,
            acc_dtype: dtype_of(acc_dtype)?,
        })
    }

    fn initializer(self) -> PyClassInitializer<Self> {
        let core = self.resolved_if_possible();
        PyClassInitializer::from(PyOp { core }).add_subclass(self)
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
                Some(self.wrapped(CAReduce {
                    kind: self.kind,
                    axis,
                    dtype,
                    acc_dtype,
                }))
            }
            _ => None,
        }
    }

    /// The core op of a resolved reduction: itself, or `ProdWithoutZeros`.
    fn wrapped(&self, reduce: CAReduce) -> OpRef {
        match self.without_zeros {
            true => Arc::new(ProdWithoutZeros { reduce }),
            false => Arc::new(reduce),
        }
    }

    /// The core op for an input of this type.
    pub fn resolve(&self, input: &TensorType) -> PyResult<CAReduce> {
        let axis = scalar_input_axes(self.axis.as_deref(), input.ndim())?;
        let is_bool = input.dtype == oxtensor_core::dtype::DType::Bool;
        // `CAReduce(and_)`/`CAReduce(or_)` fold the bits of integers (`all`
        // and `any` only ever reduce bools).
        let kind = match (self.generic, self.kind) {
            (Some(_), ReduceKind::All) if !is_bool => ReduceKind::BitAnd,
            (Some(_), ReduceKind::Any) if !is_bool => ReduceKind::BitOr,
            (_, k) => k,
        };
        if kind.is_bitwise() && !input.dtype.is_discrete() {
            return Err(PyTypeError::new_err(format!(
                "CAReduce{{{}}} folds the bits of integers or bools, not {}",
                kind.scalar_name(),
                input.dtype
            )));
        }
        let mut op = CAReduce::new(kind, axis.as_deref(), input).py()?;
        if let Some(upcast) = self.generic {
            if !upcast {
                op.dtype = input.dtype;
            }
        }
        if let Some(d) = self.dtype {
            op.dtype = d;
        }
        if let Some(d) = self.acc_dtype {
            // All/Any accumulate truth values: a bool accumulator loses nothing.
            let truth = matches!(self.kind, ReduceKind::All | ReduceKind::Any);
            // Integers may accumulate in any float or complex dtype.
            let widened = input.dtype.is_discrete() && d.is_continuous();
            if !truth && !widened && !input.dtype.can_cast_safely(d) {
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
    /// `CAReduce(scalar_op, axis=None, dtype=None, acc_dtype=None,
    /// upcast_discrete_output=False)`.
    #[new]
    #[pyo3(signature = (scalar_op, axis = None, dtype = None, acc_dtype = None, upcast_discrete_output = false))]
    fn new(
        scalar_op: &Bound<'_, PyAny>,
        axis: Option<Bound<'_, PyAny>>,
        dtype: Option<Bound<'_, PyAny>>,
        acc_dtype: Option<Bound<'_, PyAny>>,
        upcast_discrete_output: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        let kind = kind_of(scalar_op)?;
        let mut this = PyCAReduce {
            kind,
            without_zeros: false,
            no_zeros_in_input: false,
            generic: Some(upcast_discrete_output),
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
        // Resolved for each input: the dtype rule differs from the kind's.
        let (dtype, acc_dtype) = (this.dtype.take(), this.acc_dtype.take());
        let core = this.resolved_if_possible();
        this.dtype = dtype;
        this.acc_dtype = acc_dtype;
        Ok(PyClassInitializer::from(PyOp { core }).add_subclass(this))
    }

    #[classattr]
    fn __props__<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let names = [
            "scalar_op",
            "axis",
            "dtype",
            "acc_dtype",
            "upcast_discrete_output",
        ];
        PyTuple::new(py, names)
    }

    /// The constructor's arguments (`copy` and `pickle` call it): the scalar
    /// op too for `CAReduce` itself.
    fn __getnewargs_ex__<'py>(slf: &Bound<'py, Self>) -> PyResult<NewArgs<'py>> {
        let keys = ["axis", "dtype", "acc_dtype"];
        if slf.borrow().generic.is_some() {
            let keys = ["axis", "dtype", "acc_dtype", "upcast_discrete_output"];
            return new_args(slf.as_any(), &["scalar_op"], &keys);
        }
        new_args(slf.as_any(), &[], &keys)
    }

    /// Reduces `input`; unresolved dtypes follow PyTensor's defaults.
    fn make_node<'py>(
        slf: &Bound<'py, Self>,
        input: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let input = crate::convert::constant::as_tensor_variable(input, None, None, None)?;
        let ty = crate::ops::make_node::tensor_type_of(&input)?;
        let core: OpRef = {
            let this = slf.borrow();
            this.wrapped(this.resolve(&ty)?)
        };
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
        scalar::scalar_op(py, self.kind.scalar_name())
    }

    /// Axes as a tuple, or `None` for all.
    #[getter]
    fn axis<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Py<PyAny>> {
        let resolved = Self::resolved(&slf).map(|c| c.axis.clone());
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
        let resolved = Self::resolved(&slf).map(|c| c.dtype);
        resolved.or(slf.dtype).map(|d| d.to_string())
    }

    /// Accumulator dtype (`None` until resolved for an input).
    #[getter]
    fn acc_dtype(slf: PyRef<'_, Self>) -> Option<String> {
        let resolved = Self::resolved(&slf).map(|c| c.acc_dtype);
        resolved.or(slf.acc_dtype).map(|d| d.to_string())
    }

    /// Sums of small integers widen their output dtype (`CAReduce` itself:
    /// only when asked to).
    #[getter]
    fn upcast_discrete_output(&self) -> bool {
        self.generic.unwrap_or(true)
    }

    fn __str__(slf: PyRef<'_, Self>) -> String {
        if slf.generic.is_some() {
            let axis = match &slf.axis {
                None => "axes=None".to_string(),
                Some(a) if a.len() == 1 => format!("axis={}", a[0]),
                Some(a) => format!("axes={a:?}"),
            };
            return format!("CAReduce{{{}, {axis}}}", slf.kind.scalar_name());
        }
        match &slf.as_super().core {
            Some(c) => c.describe(),
            None => {
                let axis = match &slf.axis {
                    None => "axes=None".to_string(),
                    Some(a) if a.len() == 1 => format!("axis={}", a[0]),
                    Some(a) => format!("axes={a:?}"),
                };
                let name = match slf.without_zeros {
                    true => "ProdWithoutZeros",
                    false => slf.kind.class_name(),
                };
                format!("{name}{{{axis}}}")
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
    PyMax => Max, "Max";
    PyMin => Min, "Min";
    PyAll => All, "All";
    PyAny_ => Any, "Any";
}

/// `Prod(axis=None, dtype=None, acc_dtype=None, no_zeros_in_input=False)`.
#[pyclass(extends = PyCAReduce, subclass, module = "oxtensor.tensor.math", name = "Prod")]
pub struct PyProd;

#[pymethods]
impl PyProd {
    #[new]
    #[pyo3(signature = (axis = None, dtype = None, acc_dtype = None, no_zeros_in_input = false))]
    fn new(
        axis: Option<Bound<'_, PyAny>>,
        dtype: Option<Bound<'_, PyAny>>,
        acc_dtype: Option<Bound<'_, PyAny>>,
        no_zeros_in_input: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        let mut fields = PyCAReduce::fields(ReduceKind::Prod, axis, dtype, acc_dtype)?;
        fields.no_zeros_in_input = no_zeros_in_input;
        Ok(fields.initializer().add_subclass(PyProd))
    }

    /// Whether the caller promised an input without zeros.
    #[getter]
    fn no_zeros_in_input(slf: PyRef<'_, Self>) -> bool {
        slf.as_super().no_zeros_in_input
    }
}

/// The reduction a core op folds: a `CAReduce`'s own, or the one inside
/// `ProdWithoutZeros`.
fn reduce_of(core: &OpRef) -> Option<&CAReduce> {
    let any = core.as_any();
    any.downcast_ref::<CAReduce>()
        .or_else(|| any.downcast_ref::<ProdWithoutZeros>().map(|p| &p.reduce))
}

/// `ProdWithoutZeros(axis=None, dtype=None, acc_dtype=None)`: the product
/// of the nonzero elements; its gradient is undefined.
#[pyclass(extends = PyCAReduce, subclass, module = "oxtensor.tensor.math", name = "ProdWithoutZeros")]
pub struct PyProdWithoutZeros;

#[pymethods]
impl PyProdWithoutZeros {
    #[new]
    #[pyo3(signature = (axis = None, dtype = None, acc_dtype = None))]
    fn new(
        axis: Option<Bound<'_, PyAny>>,
        dtype: Option<Bound<'_, PyAny>>,
        acc_dtype: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let mut fields = PyCAReduce::fields(ReduceKind::Prod, axis, dtype, acc_dtype)?;
        fields.without_zeros = true;
        Ok(fields.initializer().add_subclass(PyProdWithoutZeros))
    }
}

/// The Python object of a `ProdWithoutZeros` core op.
pub fn prod_without_zeros_object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    let p = core_op::<ProdWithoutZeros>(core)?;
    let base = reduce_init(core.clone(), &p.reduce, true);
    Ok(Py::new(py, base.add_subclass(PyProdWithoutZeros))?.into_any())
}

/// The Python object of a `CAReduce`: `Sum`, `Prod`, ... by its kind.
pub fn object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    let base = composite_reduce_init(core.clone(), core_op::<CAReduce>(core)?);
    Ok(match core_op::<CAReduce>(core)?.kind {
        ReduceKind::Sum => Py::new(py, base.add_subclass(PySum))?.into_any(),
        ReduceKind::Prod => Py::new(py, base.add_subclass(PyProd))?.into_any(),
        ReduceKind::Max => Py::new(py, base.add_subclass(PyMax))?.into_any(),
        ReduceKind::Min => Py::new(py, base.add_subclass(PyMin))?.into_any(),
        ReduceKind::All => Py::new(py, base.add_subclass(PyAll))?.into_any(),
        ReduceKind::Any => Py::new(py, base.add_subclass(PyAny_))?.into_any(),
        // PyTensor's base class itself: `CAReduce(or_)` has no subclass.
        ReduceKind::BitAnd | ReduceKind::BitOr | ReduceKind::BitXor => {
            Py::new(py, base)?.into_any()
        }
    })
}

/// The base of a reduction's Python object: a `CAReduce` whose core op is
/// `core` (a `CAReduce`, or a fused `Sum` in `pickle/composite.rs`),
/// reducing as `r` does.
pub(crate) fn composite_reduce_init(core: OpRef, r: &CAReduce) -> PyClassInitializer<PyCAReduce> {
    reduce_init(core, r, false)
}

fn reduce_init(core: OpRef, r: &CAReduce, without_zeros: bool) -> PyClassInitializer<PyCAReduce> {
    let template = PyCAReduce {
        kind: r.kind,
        without_zeros,
        no_zeros_in_input: false,
        generic: None,
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
        without_zeros: false,
        no_zeros_in_input: false,
        generic: None,
        axis,
        dtype,
        acc_dtype,
    };
    template.resolve(input)
}

/// The axes to reduce: as given, except for a 0-d input, which PyTensor
/// (as NumPy's `squeeze`) treats as 1-d here: axis `0` or `-1` reduces
/// nothing (an empty tuple), any other is NumPy's `AxisError`.
fn scalar_input_axes(axis: Option<&[i64]>, ndim: usize) -> PyResult<Option<Vec<i64>>> {
    match axis {
        Some(a) if ndim == 0 => {
            if a.iter().all(|&i| i == 0 || i == -1) {
                if a.len() > 1 {
                    // 0 and -1 name the same (only) axis.
                    return Err(PyValueError::new_err(format!("repeated axis in {a:?}")));
                }
                return Ok(Some(Vec::new()));
            }
            let shown = match a {
                [one] => format!("({one},)"),
                _ => format!(
                    "({})",
                    a.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                ),
            };
            Python::attach(|py| {
                let cls = py.import("numpy.exceptions")?.getattr("AxisError")?;
                let msg = format!("axis {shown} is out of bounds for array of dimension 0");
                Err(PyErr::from_value(cls.call1((msg,))?))
            })
        }
        _ => Ok(axis.map(<[i64]>::to_vec)),
    }
}

/// Axes normalised against a rank, as reductions use them.
pub fn axes_for(axis: Option<Vec<i64>>, ndim: usize) -> PyResult<Vec<usize>> {
    match axis {
        None => Ok((0..ndim).collect()),
        Some(a) => normalize_axes(&a, ndim).py(),
    }
}
