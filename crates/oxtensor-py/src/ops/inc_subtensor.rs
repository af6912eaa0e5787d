//! The increment ops as Python classes: `IncSubtensor`,
//! `AdvancedIncSubtensor1` and `AdvancedIncSubtensor`, with PyTensor's
//! props; `inplace=True` gives the version that writes into `x` itself
//! (`destroy_map = {0: [0]}`), which the inplace phase puts in graphs.

use crate::errors::IntoPyResult;
use crate::ops::op::PyOp;
use crate::ops::props::{core_of, core_props, inplace_props, op_args};
use crate::ops::subtensor::{indexing_make_node, parse_idx_list, IdxList};
use oxtensor_core::ops::advanced_inc_subtensor::{AdvancedIncSubtensor, AdvancedIncSubtensor1};
use oxtensor_core::ops::subtensor::IncSubtensor;
use pyo3::exceptions::{PyNotImplementedError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// The getters every increment op has: `inplace`, its `destroy_map` and
/// `set_instead_of_inc`, read from the core op; with `idx_list`, that
/// prop too and the indexing ops' `make_node`.
macro_rules! inc_flags {
    ($py:ty, $core:ty) => {
        inplace_props!($py, $core, "Whether it writes into `x` itself.");
        core_props!(
            $py,
            $core {
                /// Set instead of increment.
                set_instead_of_inc: bool,
            }
        );
    };
    ($py:ty, $core:ty, idx_list) => {
        inc_flags!($py, $core);
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

/// `IncSubtensor(idx_list, inplace=False, set_instead_of_inc=False, ...)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.subtensor", name = "IncSubtensor")]
pub struct PyIncSubtensor;

op_args!(
    PyIncSubtensor,
    props ["idx_list", "inplace", "set_instead_of_inc", "destroyhandler_tolerate_aliased"],
    ["idx_list"],
    ["inplace", "set_instead_of_inc", "destroyhandler_tolerate_aliased"]
);
inc_flags!(PyIncSubtensor, IncSubtensor, idx_list);

#[pymethods]
impl PyIncSubtensor {
    #[new]
    #[pyo3(signature = (idx_list, inplace = false, set_instead_of_inc = false, destroyhandler_tolerate_aliased = None))]
    fn new(
        idx_list: Bound<'_, PyAny>,
        inplace: bool,
        set_instead_of_inc: bool,
        destroyhandler_tolerate_aliased: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let mut core = IncSubtensor::new(parse_idx_list(&idx_list)?, set_instead_of_inc).py()?;
        core.inplace = inplace;
        if let Some(pairs) = destroyhandler_tolerate_aliased.filter(|p| !p.is_none()) {
            core.tolerate_aliased = pairs.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "IncSubtensor: destroyhandler_tolerate_aliased must be (destroyed, other) \
                     pairs of input positions, got {pairs}"
                ))
            })?;
        }
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyIncSubtensor))
    }

    /// The `(destroyed, other)` input pairs the destroy handler lets alias.
    #[getter]
    fn destroyhandler_tolerate_aliased<'py>(
        slf: PyRef<'_, Self>,
        py: Python<'py>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let pairs = &core_of::<IncSubtensor>(slf.as_super())?.tolerate_aliased;
        PyTuple::new(py, pairs.iter().copied())
    }
}

/// `AdvancedIncSubtensor1(inplace=False, set_instead_of_inc=False)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.subtensor", name = "AdvancedIncSubtensor1")]
pub struct PyAdvancedIncSubtensor1;

op_args!(
    PyAdvancedIncSubtensor1,
    [],
    ["inplace", "set_instead_of_inc"]
);
inc_flags!(PyAdvancedIncSubtensor1, AdvancedIncSubtensor1);

#[pymethods]
impl PyAdvancedIncSubtensor1 {
    #[new]
    #[pyo3(signature = (inplace = false, set_instead_of_inc = false))]
    fn new(inplace: bool, set_instead_of_inc: bool) -> PyResult<PyClassInitializer<Self>> {
        let core = AdvancedIncSubtensor1 {
            set_instead_of_inc,
            inplace,
        };
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyAdvancedIncSubtensor1))
    }
}

/// `AdvancedIncSubtensor(idx_list, inplace=False, set_instead_of_inc=False, ignore_duplicates=False)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.subtensor", name = "AdvancedIncSubtensor")]
pub struct PyAdvancedIncSubtensor;

op_args!(PyAdvancedIncSubtensor, props ["idx_list", "inplace", "set_instead_of_inc", "ignore_duplicates"], ["idx_list"], ["inplace", "set_instead_of_inc"]);
inc_flags!(PyAdvancedIncSubtensor, AdvancedIncSubtensor, idx_list);

#[pymethods]
impl PyAdvancedIncSubtensor {
    #[new]
    #[pyo3(signature = (idx_list, inplace = false, set_instead_of_inc = false, ignore_duplicates = false))]
    fn new(
        idx_list: Bound<'_, PyAny>,
        inplace: bool,
        set_instead_of_inc: bool,
        ignore_duplicates: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        if ignore_duplicates {
            return Err(PyNotImplementedError::new_err(
                "not supported: the op AdvancedIncSubtensor(ignore_duplicates=True); \
                 inc_subtensor(..., ignore_duplicates=True) builds NumPy's `x[idx] += y`",
            ));
        }
        let mut core =
            AdvancedIncSubtensor::new(parse_idx_list(&idx_list)?, set_instead_of_inc).py()?;
        core.inplace = inplace;
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyAdvancedIncSubtensor))
    }

    /// Always `False`: repeated indices accumulate.
    #[getter]
    fn ignore_duplicates(&self) -> bool {
        false
    }
}
