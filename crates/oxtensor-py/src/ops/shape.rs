//! Python classes of the shape, creation and joining ops (`SpecifyShape`,
//! `Alloc`, `AllocEmpty`, `ARange`, `Eye`, `MakeVector`, `Repeat`, `Join`,
//! `Split`): each holds its core op; `make_node` types their outputs from
//! constant inputs as PyTensor does (`known_types`).

use crate::errors::IntoPyResult;
use crate::graph::types::parse_dtype;
use crate::ops::op::PyOp;
use crate::ops::props::{core_of, core_props, field_op, op_args};
use oxtensor_core::dtype::DType;
use oxtensor_core::ops::alloc::{Alloc, AllocEmpty};
use oxtensor_core::ops::arange::{ARange, Eye};
use oxtensor_core::ops::join::Join;
use oxtensor_core::ops::known::KnownInputs;
use oxtensor_core::ops::make_vector::MakeVector;
use oxtensor_core::ops::repeat::Repeat;
use oxtensor_core::ops::specify_shape::SpecifyShape;
use oxtensor_core::ops::split::Split;
use oxtensor_core::tensor::Tensor;
use oxtensor_core::types::{TensorType, Type};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// PyTensor's `_output_type_depends_on_input_value`: the output type
/// follows the values of constant inputs (`known_types`).
macro_rules! value_dependent {
    ($py:ident) => {
        #[pymethods]
        impl $py {
            #[classattr]
            fn _output_type_depends_on_input_value() -> bool {
                true
            }
        }
    };
}

/// A class without props: `Name()` rebuilds it.
macro_rules! plain_op {
    ($(#[$doc:meta])* $py:ident, $core:expr, $module:literal, $name:literal) => {
        $(#[$doc])*
        #[pyclass(extends = PyOp, subclass, module = $module, name = $name)]
        pub struct $py;

        op_args!($py, [], []);
        value_dependent!($py);

        #[pymethods]
        impl $py {
            #[new]
            fn new() -> PyClassInitializer<Self> {
                PyOp::builtin(Arc::new($core)).add_subclass($py)
            }
        }
    };
}

/// A class whose one prop is its output dtype: `Name(dtype)` rebuilds it.
macro_rules! dtype_op {
    ($(#[$doc:meta])* $py:ident, $core:ident, $module:literal, $name:literal, $default:expr) => {
        $(#[$doc])*
        #[pyclass(extends = PyOp, subclass, module = $module, name = $name)]
        pub struct $py;

        op_args!($py, ["dtype"], []);
        value_dependent!($py);

        #[pymethods]
        impl $py {
            #[new]
            #[pyo3(signature = (dtype = None))]
            fn new(dtype: Option<Bound<'_, PyAny>>) -> PyResult<PyClassInitializer<Self>> {
                let dtype = match dtype {
                    Some(d) if !d.is_none() => parse_dtype(&d)?,
                    _ => $default,
                };
                Ok(PyOp::builtin(Arc::new($core { dtype })).add_subclass($py))
            }

            /// The output dtype.
            #[getter]
            fn dtype(slf: PyRef<'_, Self>) -> PyResult<&'static str> {
                Ok(core_of::<$core>(slf.as_super())?.dtype.name())
            }
        }
    };
}

plain_op!(
    /// `SpecifyShape()`: inputs are the tensor and one length per axis (-1: any).
    PySpecifyShape, SpecifyShape, "oxtensor.tensor.shape", "SpecifyShape"
);
plain_op!(
    /// `Alloc()`: inputs are the value and one length per output axis.
    PyAlloc, Alloc, "oxtensor.tensor.basic", "Alloc"
);
plain_op!(
    /// `Join()`: inputs are the axis and the tensors.
    PyJoin, Join, "oxtensor.tensor.basic", "Join"
);
dtype_op!(
    /// `AllocEmpty(dtype)`: an uninitialised array of the given shape.
    PyAllocEmpty, AllocEmpty, "oxtensor.tensor.basic", "AllocEmpty", DType::Float64
);
dtype_op!(
    /// `ARange(dtype)`: inputs are start, stop and step.
    PyARange, ARange, "oxtensor.tensor.basic", "ARange", DType::Int64
);
dtype_op!(
    /// `Eye(dtype)`: inputs are n, m and the diagonal k.
    PyEye, Eye, "oxtensor.tensor.basic", "Eye", DType::Float64
);
dtype_op!(
    /// `MakeVector(dtype='int64')`: a vector from scalars.
    PyMakeVector, MakeVector, "oxtensor.tensor.basic", "MakeVector", DType::Int64
);

/// `{i: [0]}` for outputs `0..n`: views of the first input.
fn views_of_first(py: Python<'_>, n: usize) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for i in 0..n {
        d.set_item(i, vec![0])?;
    }
    Ok(d)
}

#[pymethods]
impl PySpecifyShape {
    /// The output is a view of the input.
    #[getter]
    fn view_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        views_of_first(py, 1)
    }
}

field_op!(
    PySplit,
    Split { len_splits: usize },
    "oxtensor.tensor.basic",
    "Split",
    "`Split(len_splits)`: inputs are the tensor, the axis and the lengths.",
    "The number of outputs."
);

#[pymethods]
impl PySplit {
    #[classattr]
    fn _output_type_depends_on_input_value() -> bool {
        true
    }

    /// Every output is a view of the input.
    #[getter]
    fn view_map<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let n = core_of::<Split>(slf.as_super())?.len_splits;
        views_of_first(slf.py(), n)
    }
}

/// `Repeat(axis)`: inputs are the tensor and the repeats.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.extra_ops", name = "Repeat")]
pub struct PyRepeat;

op_args!(PyRepeat, ["axis"], []);

#[pymethods]
impl PyRepeat {
    #[new]
    fn new(axis: i64) -> PyResult<PyClassInitializer<Self>> {
        let axis = usize::try_from(axis).map_err(|_| {
            pyo3::exceptions::PyValueError::new_err(
                "Repeat Op only accepts positive integer axis. Use the helper `repeat` to handle axis=None.",
            )
        })?;
        Ok(PyOp::builtin(Arc::new(Repeat { axis })).add_subclass(PyRepeat))
    }
}

core_props!(
    PyRepeat,
    Repeat {
        /// The axis.
        axis: usize,
    }
);

/// Output types of a constant-reading op (`make_node`): the values of
/// constant inputs refine the static shapes.
pub fn known_types(
    op: &dyn KnownInputs,
    inputs: &[Bound<'_, PyAny>],
    types: &[TensorType],
) -> PyResult<Vec<Type>> {
    let mut values: Vec<Option<Tensor>> = Vec::with_capacity(inputs.len());
    for (inp, ty) in inputs.iter().zip(types) {
        let var = inp.cast::<crate::graph::variable::PyVariable>()?;
        let data = var.borrow_mut().data_obj(inp.py())?;
        values.push(match data {
            Some(d) => Some(crate::convert::array::tensor_from_array(&d)?),
            None => underlying_int_constant(inp, ty)?,
        });
    }
    let tys: Vec<Type> = types.iter().cloned().map(Type::from).collect();
    let known: Vec<Option<&Tensor>> = values.iter().map(Option::as_ref).collect();
    op.known_output_types(&tys.iter().collect::<Vec<_>>(), &known)
        .py()
}

/// A 0-d integer input computed from constants alone (`cast(1, "int32")`),
/// read as PyTensor's `make_node`s read an axis or a length, with
/// `get_underlying_scalar_constant_value`.
fn underlying_int_constant(inp: &Bound<'_, PyAny>, ty: &TensorType) -> PyResult<Option<Tensor>> {
    if ty.ndim() != 0 || !ty.dtype.is_integer() {
        return Ok(None);
    }
    let Some(v) = crate::ops::make_node::entry_value(inp)? else {
        return Ok(None);
    };
    let np = crate::convert::constant::numpy(inp.py())?;
    let arr = np.call_method1("asarray", (v, ty.dtype.name()))?;
    Ok(Some(crate::convert::array::tensor_from_array(&arr)?))
}

/// `as_tensor_variable` of a list holding symbolic variables, as PyTensor:
/// scalars become a `MakeVector` of their upcast dtype (each cast to it),
/// anything else is stacked (`Join` of `ExpandDims` along a new axis 0).
pub fn stack_list<'py>(seq: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    use crate::ops::make_node::{apply_core, dimshuffle, elemwise, tensor_type_of};
    let py = seq.py();
    let items: Vec<Bound<'py, PyAny>> = seq
        .try_iter()?
        .map(|i| crate::convert::constant::as_tensor_variable(i?, None, None, None))
        .collect::<PyResult<_>>()?;
    let types: Vec<TensorType> = items.iter().map(tensor_type_of).collect::<PyResult<_>>()?;
    if items.is_empty() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "cannot stack an empty list",
        ));
    }
    if types.iter().all(|t| t.ndim() == 0) {
        let dtypes: Vec<DType> = types.iter().map(|t| t.dtype).collect();
        let dtype = oxtensor_core::dtype::upcast(&dtypes).py()?;
        let cast: Vec<Bound<'py, PyAny>> = items
            .into_iter()
            .zip(&types)
            .map(|(v, t)| match t.dtype == dtype {
                true => Ok(v),
                false => elemwise(py, oxtensor_core::scalar::ScalarOp::Cast(dtype), vec![v]),
            })
            .collect::<PyResult<_>>()?;
        return apply_core(py, Arc::new(MakeVector { dtype }), cast);
    }
    let mut args = vec![crate::convert::constant::as_tensor_variable(
        0i64.into_pyobject(py)?.into_any(),
        None,
        None,
        None,
    )?];
    for (v, t) in items.iter().zip(&types) {
        let order = std::iter::once(None)
            .chain((0..t.ndim()).map(Some))
            .collect();
        args.push(dimshuffle(v, order)?);
    }
    apply_core(py, Arc::new(Join), args)
}
