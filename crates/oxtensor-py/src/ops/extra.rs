//! The `extra_ops` op classes without a family of their own
//! (`oxtensor.tensor.extra_ops`): `Bartlett`, `CpuContiguous`,
//! `DeepCopyOp` (of `oxtensor.compile.ops`),
//! `FillDiagonal`, `FillDiagonalOffset`, `SearchsortedOp`, `Unique`,
//! `UnravelIndex` and `RavelMultiIndex`. The functions users call are
//! plain Python over these.

use crate::errors::choice;
use crate::ops::op::PyOp;
use crate::ops::props::{core_props, op_args, str_op, unit_op, view_of_input};
use oxtensor_core::ops::bartlett::Bartlett;
use oxtensor_core::ops::cpu_contiguous::CpuContiguous;
use oxtensor_core::ops::deep_copy::DeepCopyOp;
use oxtensor_core::ops::fill_diagonal::{FillDiagonal, FillDiagonalOffset};
use oxtensor_core::ops::ravel_index::{OutOfRange, RavelMultiIndex, UnravelIndex};
use oxtensor_core::ops::searchsorted::SearchsortedOp;
use oxtensor_core::ops::unique::Unique;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// `RavelMultiIndex`'s `mode` values.
const OUT_OF_RANGE_MODES: [(&str, OutOfRange); 3] = [
    ("raise", OutOfRange::Raise),
    ("wrap", OutOfRange::Wrap),
    ("clip", OutOfRange::Clip),
];

unit_op!(
    PyBartlett,
    Bartlett,
    "oxtensor.tensor.extra_ops",
    "Bartlett",
    "`Bartlett`: the Bartlett window of `M` points."
);
unit_op!(
    PyCpuContiguous,
    CpuContiguous,
    "oxtensor.tensor.extra_ops",
    "CpuContiguous",
    "`CpuContiguous`: the input as a C-contiguous array."
);
unit_op!(
    PyDeepCopyOp,
    DeepCopyOp,
    "oxtensor.compile.ops",
    "DeepCopyOp",
    "`DeepCopyOp`: a copy of its input sharing no memory with it (the compiler \
     puts one on outputs that would alias an input or a constant)."
);
unit_op!(
    PyFillDiagonal,
    FillDiagonal,
    "oxtensor.tensor.extra_ops",
    "FillDiagonal",
    "`FillDiagonal`: inputs are the tensor and the scalar for its diagonal."
);
unit_op!(
    PyFillDiagonalOffset,
    FillDiagonalOffset,
    "oxtensor.tensor.extra_ops",
    "FillDiagonalOffset",
    "`FillDiagonalOffset`: inputs are the matrix, the scalar and the offset."
);

#[pymethods]
impl PyCpuContiguous {
    /// The output is the input when it is already C-contiguous.
    #[getter]
    fn view_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        view_of_input(py)
    }
}

/// `order` as Fortran (`'F'`) or C (`'C'`) order.
fn fortran_order(order: &str, op: &str) -> PyResult<bool> {
    choice(order, &[("C", false), ("F", true)], |other| {
        format!("{op}: order must be 'C' or 'F', got '{other}'")
    })
}

/// The `order` a Fortran-order flag came from: `'F'` or `'C'`.
fn order_name(fortran: bool) -> &'static str {
    if fortran {
        "F"
    } else {
        "C"
    }
}

str_op!(
    /// `SearchsortedOp(side='left')`: inputs are the sorted vector, the values
    /// and optionally the sorter.
    PySearchsortedOp("oxtensor.tensor.extra_ops", "SearchsortedOp"),
    side = "left" => searchsorted
);

/// The core op of `SearchsortedOp(side)`.
fn searchsorted(side: &str) -> PyResult<SearchsortedOp> {
    let right = choice(side, &[("left", false), ("right", true)], |other| {
        format!("'{other}' is an invalid value for keyword 'side'")
    })?;
    Ok(SearchsortedOp { right })
}

core_props!(PySearchsortedOp, SearchsortedOp {
    /// `'left'` or `'right'`.
    side: &'static str = |c| c.side(),
});

/// `Unique(return_index=False, return_inverse=False, return_counts=False,
/// axis=None)`: one input; the distinct values, then the outputs asked for.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.extra_ops", name = "Unique")]
pub struct PyUnique;

op_args!(
    PyUnique,
    ["return_index", "return_inverse", "return_counts", "axis"],
    []
);

#[pymethods]
impl PyUnique {
    #[new]
    #[pyo3(signature = (return_index = false, return_inverse = false, return_counts = false, axis = None))]
    fn new(
        return_index: bool,
        return_inverse: bool,
        return_counts: bool,
        axis: Option<i64>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let axis = axis
            .map(|a| {
                usize::try_from(a).map_err(|_| {
                    PyValueError::new_err(format!(
                        "Unique(axis={a}): a constructed op needs a non-negative axis; \
                         unique(x, axis=-1) accepts negative ones"
                    ))
                })
            })
            .transpose()?;
        let core = Unique {
            return_index,
            return_inverse,
            return_counts,
            axis,
        };
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyUnique))
    }
}

core_props!(PyUnique, Unique {
    /// Whether the first occurrences are an output.
    return_index: bool,
    /// Whether the inverse is an output.
    return_inverse: bool,
    /// Whether the counts are an output.
    return_counts: bool,
    /// The axis slices are compared along (`None`: elements).
    axis: Option<usize>,
});

str_op!(
    /// `UnravelIndex(order='C')`: inputs are the flat indices and the dims.
    PyUnravelIndex("oxtensor.tensor.extra_ops", "UnravelIndex"),
    order = "C" => unravel_index
);

/// The core op of `UnravelIndex(order)`.
fn unravel_index(order: &str) -> PyResult<UnravelIndex> {
    let fortran = fortran_order(order, "UnravelIndex")?;
    Ok(UnravelIndex { fortran })
}

core_props!(PyUnravelIndex, UnravelIndex {
    /// `'C'` or `'F'`.
    order: &'static str = |c| order_name(c.fortran),
});

/// `RavelMultiIndex(mode='raise', order='C')`: inputs are the coordinate
/// arrays and the dims.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.extra_ops", name = "RavelMultiIndex")]
pub struct PyRavelMultiIndex;

op_args!(PyRavelMultiIndex, ["mode", "order"], []);

#[pymethods]
impl PyRavelMultiIndex {
    #[new]
    #[pyo3(signature = (mode = "raise", order = "C"))]
    fn new(mode: &str, order: &str) -> PyResult<PyClassInitializer<Self>> {
        let mode = choice(mode, &OUT_OF_RANGE_MODES, |other| {
            format!("RavelMultiIndex: mode must be 'raise', 'wrap' or 'clip', got '{other}'")
        })?;
        let fortran = fortran_order(order, "RavelMultiIndex")?;
        let core = RavelMultiIndex { mode, fortran };
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyRavelMultiIndex))
    }
}

core_props!(PyRavelMultiIndex, RavelMultiIndex {
    /// `'raise'`, `'wrap'` or `'clip'`.
    mode: &'static str = |c| c.mode_name(),
    /// `'C'` or `'F'`.
    order: &'static str = |c| order_name(c.fortran),
});
