//! `Matmul` and the `linalg` ops (`MatrixInverse`, `Det`, `SLogDet`,
//! `Cholesky`, `CholeskyGrad`, `Eigh`, `Eigvalsh`, `EighGrad`,
//! `SVD`, `SVDGrad`, `QR`, `QRGrad`, `Expm`, `ExpmGrad`) as Python classes
//! holding their core ops (the solvers are in `solvers.rs`).

use crate::errors::IntoPyResult;
use crate::ops::op::PyOp;
use crate::ops::props::{core_props, op_args, unit_op};
use oxtensor_core::ops::blas::Dot;
use oxtensor_core::ops::linalg::cholesky::{Cholesky, CholeskyGrad};
use oxtensor_core::ops::linalg::det::{Det, SLogDet};
use oxtensor_core::ops::linalg::eigh::{Eigh, EighGrad, Eigvalsh};
use oxtensor_core::ops::linalg::expm::{Expm, ExpmGrad};
use oxtensor_core::ops::linalg::inverse::MatrixInverse;
use oxtensor_core::ops::linalg::qr::{Qr, QrGrad};
use oxtensor_core::ops::linalg::svd::{Svd, SvdGrad};
use oxtensor_core::ops::matmul::Matmul;
use pyo3::prelude::*;
use std::sync::Arc;

unit_op!(
    PyDot,
    Dot,
    "oxtensor.tensor.math",
    "Dot",
    "`Dot`: vector and matrix products."
);
unit_op!(
    PyMatmul,
    Matmul,
    "oxtensor.tensor.math",
    "Matmul",
    "`Matmul`: stacked matrix products."
);
unit_op!(
    PyMatrixInverse,
    MatrixInverse,
    "oxtensor.tensor.linalg",
    "MatrixInverse",
    "`MatrixInverse`: the inverse of a square matrix."
);
unit_op!(
    PyDet,
    Det,
    "oxtensor.tensor.linalg",
    "Det",
    "`Det`: the determinant."
);
unit_op!(
    PySLogDet,
    SLogDet,
    "oxtensor.tensor.linalg",
    "SLogDet",
    "`SLogDet`: the sign and log absolute value of the determinant."
);
unit_op!(
    PyExpm,
    Expm,
    "oxtensor.tensor.linalg",
    "Expm",
    "`Expm`: the matrix exponential."
);
unit_op!(
    PyExpmGrad,
    ExpmGrad,
    "oxtensor.tensor.linalg",
    "ExpmGrad",
    "`ExpmGrad`: the gradient of `Expm` (inputs: x, gz)."
);
unit_op!(
    PySvdGrad,
    SvdGrad,
    "oxtensor.tensor.linalg",
    "SVDGrad",
    "`SVDGrad`: the gradient of a thin `SVD` (inputs: U, s, Vh, gU, gs, gVh)."
);
unit_op!(
    PyQrGrad,
    QrGrad,
    "oxtensor.tensor.linalg",
    "QRGrad",
    "`QRGrad`: the gradient of `QR` (inputs: Q, R, gQ, gR)."
);

/// `Cholesky(lower=True, on_error="nan")`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.linalg", name = "Cholesky")]
pub struct PyCholesky;

op_args!(PyCholesky, [], ["lower", "on_error"]);

#[pymethods]
impl PyCholesky {
    #[new]
    #[pyo3(signature = (lower = true, on_error = "nan"))]
    fn new(lower: bool, on_error: &str) -> PyResult<PyClassInitializer<Self>> {
        let core = Cholesky::new(lower, on_error).py()?;
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyCholesky))
    }
}

core_props!(
    PyCholesky,
    Cholesky {
        /// Lower or upper factor.
        lower: bool,
        /// `"nan"` or `"raise"` for a matrix that is not positive definite.
        on_error: String = |c| c.on_error.clone(),
    }
);

/// Classes whose only prop is `lower`: `Eigh(lower=True)`, `CholeskyGrad(lower=True)`.
macro_rules! lower_op {
    ($py:ident, $core:ident, $name:literal, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.linalg", name = $name)]
        pub struct $py;

        op_args!($py, [], ["lower"]);

        #[pymethods]
        impl $py {
            #[new]
            #[pyo3(signature = (lower = true))]
            fn new(lower: bool) -> PyClassInitializer<Self> {
                PyOp::builtin(Arc::new($core { lower })).add_subclass($py)
            }
        }

        core_props!(
            $py,
            $core {
                /// Which triangle of the input is read.
                lower: bool,
            }
        );
    };
}

lower_op!(
    PyCholeskyGrad,
    CholeskyGrad,
    "CholeskyGrad",
    "`CholeskyGrad(lower=True)`: inputs are the factor and its gradient."
);
lower_op!(
    PyEigh,
    Eigh,
    "Eigh",
    "`Eigh(lower=True)`: eigenvalues and eigenvectors."
);
lower_op!(
    PyEigvalsh,
    Eigvalsh,
    "Eigvalsh",
    "`Eigvalsh(lower=True)`: eigenvalues alone."
);
lower_op!(
    PyEighGrad,
    EighGrad,
    "EighGrad",
    "`EighGrad(lower=True)`: the gradient of `Eigh`."
);

/// `SVD(full_matrices=True, compute_uv=True)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.linalg", name = "SVD")]
pub struct PySvd;

op_args!(PySvd, [], ["full_matrices", "compute_uv"]);

#[pymethods]
impl PySvd {
    #[new]
    #[pyo3(signature = (full_matrices = true, compute_uv = true))]
    fn new(full_matrices: bool, compute_uv: bool) -> PyClassInitializer<Self> {
        let core = Svd {
            full_matrices,
            compute_uv,
        };
        PyOp::builtin(Arc::new(core)).add_subclass(PySvd)
    }
}

core_props!(
    PySvd,
    Svd {
        /// Square `U` and `Vh`.
        full_matrices: bool,
        /// Whether `U` and `Vh` are outputs.
        compute_uv: bool,
    }
);

/// `QR(mode="full")`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.linalg", name = "QR")]
pub struct PyQr;

op_args!(PyQr, [], ["mode"]);

#[pymethods]
impl PyQr {
    #[new]
    #[pyo3(signature = (mode = "full"))]
    fn new(mode: &str) -> PyResult<PyClassInitializer<Self>> {
        Ok(PyOp::builtin(Arc::new(Qr::new(mode).py()?)).add_subclass(PyQr))
    }
}

core_props!(
    PyQr,
    Qr {
        /// The decomposition's mode.
        mode: String = |c| c.mode.clone(),
    }
);
