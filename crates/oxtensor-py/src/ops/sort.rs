//! Python classes of the sorting and running ops: `SortOp`, `ArgSortOp`
//! (`oxtensor.tensor.sort`) and `CumOp` (`oxtensor.tensor.extra_ops`).
//! The functions (`sort`, `cumsum`, ...) are plain Python over these.
//! `inplace=True` (not among PyTensor's props, which have no such
//! variant) is the version the inplace phase puts in graphs.

use crate::errors::choice;
use crate::ops::classes::core_op;
use crate::ops::op::PyOp;
use crate::ops::props::{core_props, inplace_props, op_args, unit_op};
use oxtensor_core::ops::cumulative::{CumMode, CumOp};
use oxtensor_core::ops::sort::{Sort, TakeAlongAxis};
use oxtensor_core::ops::OpRef;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Arc;

macro_rules! sort_class {
    ($rs:ident, $indices:literal, $pyname:literal) => {
        #[doc = concat!("`", $pyname, "(kind='quicksort')`: inputs are the tensor and the axis.")]
        #[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.sort", name = $pyname)]
        pub struct $rs;

        op_args!($rs, props ["kind"], [], ["kind", "inplace"]);

        #[pymethods]
        impl $rs {
            #[new]
            #[pyo3(signature = (kind = "quicksort", order = None, *, inplace = false))]
            fn new(
                kind: &str,
                order: Option<Bound<'_, PyAny>>,
                inplace: bool,
            ) -> PyResult<PyClassInitializer<Self>> {
                if order.is_some_and(|o| !o.is_none()) {
                    return Err(PyValueError::new_err(concat!(
                        $pyname,
                        ": order argument is not applicable (oxtensor sorts no structured arrays by field)"
                    )));
                }
                let core = Sort {
                    indices: $indices,
                    kind: kind.to_string(),
                    inplace: inplace && !$indices,
                };
                Ok(PyOp::builtin(Arc::new(core)).add_subclass($rs))
            }
        }

        inplace_props!(
            $rs,
            Sort,
            "Whether the sorted values overwrite the input (always `False` for `ArgSortOp`)."
        );
        core_props!($rs, Sort {
            /// NumPy's sorting algorithm name (kept; every kind sorts alike).
            kind: String = |c| c.kind.clone(),
        });
    };
}

sort_class!(PySortOp, false, "SortOp");
sort_class!(PyArgSortOp, true, "ArgSortOp");

/// `CumOp(axis, mode='add')`: running sum (`add`) or product (`mul`).
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.extra_ops", name = "CumOp")]
pub struct PyCumOp;

// `inplace` is passed by name and is not among PyTensor's props.
op_args!(PyCumOp, props ["axis", "mode"], ["axis", "mode"], ["inplace"]);

#[pymethods]
impl PyCumOp {
    #[new]
    #[pyo3(signature = (axis, mode = "add", *, inplace = false))]
    fn new(
        axis: Bound<'_, PyAny>,
        mode: &str,
        inplace: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        let a: i64 = axis.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "axis must be an integer, got {}",
                axis.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        let axis = usize::try_from(a).map_err(|_| {
            PyValueError::new_err(format!(
                "CumOp(axis={a}): a constructed op needs a non-negative axis; \
                 cumsum(x, axis=-1) accepts negative ones"
            ))
        })?;
        let modes = [("add", CumMode::Add), ("mul", CumMode::Mul)];
        let mode = choice(mode, &modes, |other| {
            format!("CumOp: mode must be 'add' or 'mul', got '{other}'")
        })?;
        let core = CumOp {
            axis,
            mode,
            inplace,
        };
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyCumOp))
    }
}

inplace_props!(PyCumOp, CumOp, "Whether the output overwrites the input.");
core_props!(PyCumOp, CumOp {
    /// The axis.
    axis: usize,
    /// `"add"` or `"mul"`.
    mode: &'static str = |c| match c.mode {
        CumMode::Add => "add",
        CumMode::Mul => "mul",
    },
});

unit_op!(
    PyTakeAlongAxis,
    TakeAlongAxis,
    "oxtensor.tensor.sort",
    "TakeAlongAxis",
    "`TakeAlongAxis()`: values picked along an axis by int64 indices shaped like them (inputs: values, indices, axis); `sort`'s gradient uses it."
);

/// The Python object of a `Sort`: `SortOp` or `ArgSortOp` by what it returns.
pub fn object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    let base = PyOp::builtin(core.clone());
    Ok(if core_op::<Sort>(core)?.indices {
        Py::new(py, base.add_subclass(PyArgSortOp))?.into_any()
    } else {
        Py::new(py, base.add_subclass(PySortOp))?.into_any()
    })
}
