//! `TensorVariable`'s reductions (`x.sum()`, `x.max(axis=1)`, `x.mean()`,
//! ...): `CAReduce` nodes with PyTensor's dtype rules and `keepdims`.

use super::{Out, PyTensorVariable};
use crate::convert::scratch_graph::ScratchGraph;
use crate::errors::IntoPyResult;
use crate::graph::types::parse_dtype;
use crate::ops::make_node::{apply_core, dimshuffle, tensor_type_of};
use crate::ops::reduce::{axes_for, reduction};
use oxtensor_core::build::variance;
use oxtensor_core::dtype::DType;
use oxtensor_core::reduction::ReduceKind;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use std::sync::Arc;

/// A reduction with optional `keepdims` and accumulator dtype, as
/// `x.sum(...)` and friends build it.
pub fn reduce<'py>(
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
    let order = oxtensor_core::build::reinsert_axes(ndim, reduced);
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

/// `mean`: the sum divided by the number of reduced elements
/// (`oxtensor_core::build::variance::mean` builds it).
pub fn mean<'py>(
    x: &Bound<'py, PyAny>,
    axis: Option<Bound<'py, PyAny>>,
    keepdims: bool,
    dtype: Option<DType>,
) -> Out<'py> {
    let axes = parse_axes(axis)?;
    let mut scratch = ScratchGraph::default();
    let id = scratch.leaf(x)?;
    let out = variance::mean(&mut scratch.g, id, axes.as_deref(), keepdims, dtype).py()?;
    scratch.export(x.py(), out)
}

/// `dtype=` / `acc_dtype=` arguments: `None` leaves them to the rules.
fn optional_dtype(d: Option<Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    d.filter(|d| !d.is_none())
        .map(|d| parse_dtype(&d))
        .transpose()
}

/// One `#[pymethods]` block of reductions: `name => kind` for those that
/// take dtypes (`sum`, `prod`), `name => kind` for those that do not.
macro_rules! reductions {
    (
        with_dtypes { $($acc:ident => $akind:ident;)* }
        plain { $($name:ident => $kind:ident;)* }
    ) => {
        #[pymethods]
        impl PyTensorVariable {
            $(
                #[pyo3(signature = (axis = None, dtype = None, keepdims = false, acc_dtype = None))]
                fn $acc<'py>(
                    slf: &Bound<'py, Self>,
                    axis: Option<Bound<'py, PyAny>>,
                    dtype: Option<Bound<'py, PyAny>>,
                    keepdims: bool,
                    acc_dtype: Option<Bound<'py, PyAny>>,
                ) -> Out<'py> {
                    let (dtype, acc_dtype) = (optional_dtype(dtype)?, optional_dtype(acc_dtype)?);
                    let kind = ReduceKind::$akind;
                    reduce(slf.as_any(), kind, axis, keepdims, dtype, acc_dtype)
                }
            )*
            $(
                #[pyo3(signature = (axis = None, keepdims = false))]
                fn $name<'py>(
                    slf: &Bound<'py, Self>,
                    axis: Option<Bound<'py, PyAny>>,
                    keepdims: bool,
                ) -> Out<'py> {
                    reduce(slf.as_any(), ReduceKind::$kind, axis, keepdims, None, None)
                }
            )*
        }
    };
}

reductions! {
    with_dtypes {
        sum => Sum;
        prod => Prod;
    }
    plain {
        max => Max;
        min => Min;
        all => All;
        any => Any;
    }
}

#[pymethods]
impl PyTensorVariable {
    #[pyo3(signature = (axis = None, dtype = None, keepdims = false, acc_dtype = None))]
    fn mean<'py>(
        slf: &Bound<'py, Self>,
        axis: Option<Bound<'py, PyAny>>,
        dtype: Option<Bound<'py, PyAny>>,
        keepdims: bool,
        acc_dtype: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        let _ = acc_dtype;
        mean(slf.as_any(), axis, keepdims, optional_dtype(dtype)?)
    }
}
