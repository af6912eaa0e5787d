//! The indexing ops as Python classes (`Subtensor`, `AdvancedSubtensor1`,
//! `AdvancedSubtensor`; the increment ops are in `ops/inc_subtensor.rs`), with `idx_list` as PyTensor spells it (a tuple
//! of input positions and slices of positions). Their `make_node` reads
//! constant index inputs so constant slices give static lengths.

use crate::convert::constant::as_tensor_variable;
use crate::errors::IntoPyResult;
use crate::graph::apply::PyApply;
use crate::graph::variable::PyVariable;
use crate::ops::make_node::tensor_type_of;
use crate::ops::op::PyOp;
use crate::ops::props::{core_props, op_args, unit_op, view_of_input};
use oxtensor_core::ops::advanced_subtensor::{AdvancedSubtensor, AdvancedSubtensor1};
use oxtensor_core::ops::subtensor::Subtensor;
use oxtensor_core::ops::OpRef;
use oxtensor_core::tensor::index::{index_constant, IdxEntry};
use oxtensor_core::types::{TensorType, Type};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySlice, PyTuple};
use std::sync::Arc;

/// Reads `idx_list`: a sequence of ints and slices of ints or `None`.
pub(crate) fn parse_idx_list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<IdxEntry>> {
    let pos = |v: Bound<'_, PyAny>| -> PyResult<Option<usize>> {
        if v.is_none() {
            return Ok(None);
        }
        v.extract::<usize>().map(Some)
    };
    obj.try_iter()?
        .map(|e| {
            let e = e?;
            if let Ok(s) = e.cast::<PySlice>() {
                return Ok(IdxEntry::Slice {
                    start: pos(s.getattr("start")?)?,
                    stop: pos(s.getattr("stop")?)?,
                    step: pos(s.getattr("step")?)?,
                });
            }
            e.extract::<usize>().map(IdxEntry::Index).map_err(|_| {
                PyTypeError::new_err(format!(
                    "idx_list entries must be input positions (ints) or slices of them, got {}",
                    e.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })
        })
        .collect()
}

/// An op's `idx_list`, which Python sees as a tuple of input positions
/// and slices of them.
pub(crate) struct IdxList(pub Vec<IdxEntry>);

impl<'py> IntoPyObject<'py> for IdxList {
    type Target = PyTuple;
    type Output = Bound<'py, PyTuple>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        idx_list_tuple(py, &self.0)
    }
}

/// `idx_list` as a Python tuple.
fn idx_list_tuple<'py>(py: Python<'py>, list: &[IdxEntry]) -> PyResult<Bound<'py, PyTuple>> {
    let items: Vec<Bound<'py, PyAny>> = list
        .iter()
        .map(|e| match *e {
            IdxEntry::Index(i) => Ok(i.into_pyobject(py)?.into_any()),
            IdxEntry::Slice { start, stop, step } => {
                let builtins = py.import("builtins")?;
                builtins.getattr("slice")?.call1((start, stop, step))
            }
        })
        .collect::<PyResult<_>>()?;
    PyTuple::new(py, items)
}

/// A constant index input's [`index_constant`] (a scalar's value, a mask's
/// count of `true`s), else `None`.
fn const_index(var: &Bound<'_, PyAny>, ty: &TensorType) -> PyResult<Option<i64>> {
    let scalar_int = ty.ndim() == 0 && ty.dtype.is_integer();
    let mask = ty.ndim() > 0 && ty.dtype == oxtensor_core::dtype::DType::Bool;
    if !scalar_int && !mask {
        return Ok(None);
    }
    let v = var.cast::<PyVariable>()?;
    let data = v.borrow_mut().data_obj(var.py())?;
    match data {
        Some(d) => Ok(index_constant(&crate::convert::array::tensor_from_array(
            &d,
        )?)),
        None => Ok(None),
    }
}

/// Builds the node of an indexing op, typing its output with the known
/// constants among the index inputs (constant slices have static lengths).
pub(crate) fn indexing_node<'py>(
    op: &Bound<'py, PyAny>,
    core: &OpRef,
    inputs: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyApply>> {
    let py = op.py();
    let inputs: Vec<Bound<'py, PyAny>> = inputs
        .iter()
        .map(|i| as_tensor_variable(i, None, None, None))
        .collect::<PyResult<_>>()?;
    let types: Vec<TensorType> = inputs.iter().map(tensor_type_of).collect::<PyResult<_>>()?;
    let refs: Vec<&TensorType> = types.iter().collect();
    let consts = |skip: usize| -> PyResult<Vec<Option<i64>>> {
        inputs
            .iter()
            .zip(&types)
            .skip(skip)
            .map(|(v, t)| const_index(v, t))
            .collect()
    };
    let any = core.as_any();
    let out: Type = if let Some(s) = any.downcast_ref::<Subtensor>() {
        s.output_type(&refs, &consts(1)?).py()?.into()
    } else if let Some(s) = any.downcast_ref::<AdvancedSubtensor>() {
        s.output_type(&refs, &consts(1)?).py()?.into()
    } else {
        let tys: Vec<Type> = types.iter().cloned().map(Type::from).collect();
        let mut outs = core.output_types(&tys.iter().collect::<Vec<_>>()).py()?;
        outs.remove(0)
    };
    let outputs = PyList::empty(py);
    outputs.append(crate::graph::construct::tensor_variable(
        py,
        crate::graph::types::py_type(py, &out)?,
        None,
    )?)?;
    PyApply::create(py, op.clone().unbind(), PyList::new(py, inputs)?, outputs)
}

pub(crate) fn core_ref(op: &Bound<'_, PyAny>) -> PyResult<OpRef> {
    op.cast::<PyOp>()?
        .borrow()
        .core
        .clone()
        .ok_or_else(|| PyTypeError::new_err("built-in op without its core op"))
}

/// `make_node(*inputs)` of an indexing op class: the inputs checked and
/// typed by its core op ([`indexing_node`]).
macro_rules! indexing_make_node {
    ($($py:ty),*) => {$(
        #[pymethods]
        impl $py {
            #[pyo3(signature = (*inputs))]
            fn make_node<'py>(
                slf: &Bound<'py, Self>,
                inputs: &Bound<'py, PyTuple>,
            ) -> PyResult<Bound<'py, $crate::graph::apply::PyApply>> {
                let core = $crate::ops::subtensor::core_ref(slf.as_any())?;
                $crate::ops::subtensor::indexing_node(slf.as_any(), &core, inputs)
            }
        }
    )*};
}
pub(crate) use indexing_make_node;

/// An indexing op class built from its `idx_list` alone (`Subtensor`,
/// `AdvancedSubtensor`), its `make_node` typing the output with the
/// constant index inputs.
macro_rules! indexing_class {
    ($py:ident, $core:ident, $name:literal, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.subtensor", name = $name)]
        pub struct $py;

        op_args!($py, ["idx_list"], []);

        #[pymethods]
        impl $py {
            #[new]
            fn new(idx_list: Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
                let core = $core::new(parse_idx_list(&idx_list)?).py()?;
                Ok(PyOp::builtin(Arc::new(core)).add_subclass($py))
            }
        }

        core_props!(
            $py,
            $core {
                /// Input positions and slices of them, one entry per indexed axis.
                idx_list: IdxList = |c| IdxList(c.idx_list.clone()),
            }
        );

        indexing_make_node!($py);
    };
}

indexing_class!(
    PySubtensor,
    Subtensor,
    "Subtensor",
    "`Subtensor(idx_list)`: basic indexing, a view of the input."
);

#[pymethods]
impl PySubtensor {
    /// The output is a view of the input.
    #[getter]
    fn view_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        view_of_input(py)
    }
}

unit_op!(
    PyAdvancedSubtensor1,
    AdvancedSubtensor1,
    "oxtensor.tensor.subtensor",
    "AdvancedSubtensor1",
    "`AdvancedSubtensor1()`: `x[ilist]` for one integer vector on axis 0."
);

indexing_class!(
    PyAdvancedSubtensor,
    AdvancedSubtensor,
    "AdvancedSubtensor",
    "`AdvancedSubtensor(idx_list)`: integer arrays and boolean masks, with slices."
);

/// Calls `oxtensor.tensor.subtensor.<name>(*args)`: `x[...]`, `x[i].set(y)`
/// and `x[i].inc(y)` are argument normalisation written in Python.
pub fn call_python<'py>(
    py: Python<'py>,
    name: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("oxtensor.tensor.subtensor")?
        .getattr(name)?
        .call1(args)
}
