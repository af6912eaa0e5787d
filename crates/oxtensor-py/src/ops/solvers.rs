//! The linear solvers as Python classes holding their core ops: `Solve`,
//! `SolveTriangular`, `LUFactor`, `LUFactorGrad` and `PivotToPermutations`
//! (PyTensor's `SolveBase` family is Python: `oxtensor/tensor/solvers.py`).

use crate::errors::IntoPyResult;
use crate::ops::op::PyOp;
use crate::ops::props::{core_props, op_args, unit_op};
use oxtensor_core::ops::linalg::lu::{LuFactor, LuFactorGrad, PivotToPermutations};
use oxtensor_core::ops::linalg::solve::Solve;
use oxtensor_core::ops::linalg::solve_triangular::SolveTriangular;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// `Solve(*, assume_a="gen", lower=False, b_ndim=1, overwrite_a=False, overwrite_b=False)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.linalg", name = "Solve")]
pub struct PySolve;

op_args!(
    PySolve,
    [],
    ["assume_a", "lower", "b_ndim", "overwrite_a", "overwrite_b"]
);

#[pymethods]
impl PySolve {
    #[new]
    #[pyo3(signature = (*, assume_a = "gen", lower = false, b_ndim = 1, overwrite_a = false, overwrite_b = false))]
    fn new(
        assume_a: &str,
        lower: bool,
        b_ndim: usize,
        overwrite_a: bool,
        overwrite_b: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        let core = Solve::new(assume_a, lower, b_ndim, overwrite_a, overwrite_b).py()?;
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PySolve))
    }
}

core_props!(
    PySolve,
    Solve {
        /// The structure assumed of `a` (PyTensor's short name).
        assume_a: String = |c| c.assume_a.clone(),
        /// Which triangle a symmetric solve reads.
        lower: bool,
        /// The rank of `b`.
        b_ndim: usize,
        /// PyTensor's flag (the kernel never writes `a`).
        overwrite_a: bool,
        /// PyTensor's flag (the kernel never writes `b`).
        overwrite_b: bool,
    }
);

/// `SolveTriangular(*, unit_diagonal=False, lower=False, b_ndim=1, overwrite_b=False)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.linalg", name = "SolveTriangular")]
pub struct PySolveTriangular;

op_args!(
    PySolveTriangular,
    [],
    ["unit_diagonal", "lower", "b_ndim", "overwrite_b"]
);

#[pymethods]
impl PySolveTriangular {
    #[new]
    #[pyo3(signature = (*, unit_diagonal = false, lower = false, b_ndim = 1, overwrite_a = false, overwrite_b = false))]
    fn new(
        unit_diagonal: bool,
        lower: bool,
        b_ndim: usize,
        overwrite_a: bool,
        overwrite_b: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        if overwrite_a {
            return Err(PyValueError::new_err(
                "overwrite_a is not supported for SolveTriangular",
            ));
        }
        let core = SolveTriangular::new(unit_diagonal, lower, b_ndim, overwrite_b).py()?;
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PySolveTriangular))
    }
}

core_props!(
    PySolveTriangular,
    SolveTriangular {
        /// Whether `a`'s diagonal is taken as ones.
        unit_diagonal: bool,
        /// Which triangle of `a` is read.
        lower: bool,
        /// The rank of `b`.
        b_ndim: usize,
        /// PyTensor's flag (the kernel never writes `b`).
        overwrite_b: bool,
    }
);

/// `LUFactor(*, overwrite_a=False)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.linalg", name = "LUFactor")]
pub struct PyLuFactor;

op_args!(PyLuFactor, [], ["overwrite_a"]);

#[pymethods]
impl PyLuFactor {
    #[new]
    #[pyo3(signature = (*, overwrite_a = false))]
    fn new(overwrite_a: bool) -> PyClassInitializer<Self> {
        PyOp::builtin(Arc::new(LuFactor { overwrite_a })).add_subclass(PyLuFactor)
    }
}

core_props!(
    PyLuFactor,
    LuFactor {
        /// PyTensor's flag (the kernel never writes `a`).
        overwrite_a: bool,
    }
);

/// `PivotToPermutations(inverse=True)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.linalg", name = "PivotToPermutations")]
pub struct PyPivotToPermutations;

op_args!(PyPivotToPermutations, [], ["inverse"]);

#[pymethods]
impl PyPivotToPermutations {
    #[new]
    #[pyo3(signature = (inverse = true))]
    fn new(inverse: bool) -> PyClassInitializer<Self> {
        let core = PivotToPermutations { inverse };
        PyOp::builtin(Arc::new(core)).add_subclass(PyPivotToPermutations)
    }
}

core_props!(
    PyPivotToPermutations,
    PivotToPermutations {
        /// The inverse of the factored matrix's row order, or that order.
        inverse: bool,
    }
);

unit_op!(
    PyLuFactorGrad,
    LuFactorGrad,
    "oxtensor.tensor.linalg",
    "LUFactorGrad",
    "`LUFactorGrad`: the gradient of `LUFactor` (inputs: LU, pivots, gLU)."
);
