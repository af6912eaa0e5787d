//! `_core._install_blas` / `_core._blas`: the core's host-BLAS switch, for
//! `oxtensor.tensor.blas`, which finds the BLAS NumPy loaded.

use oxtensor_core::kernels::blas::{self, Cblas};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

/// Route large float32/float64 products to the CBLAS in the shared library
/// at `path` (its `sgemm`/`dgemm` symbols; 64-bit integers when `ilp64`),
/// or back to faer when `path` is None. An unloadable library or one
/// without either symbol raises `OSError` and changes nothing.
///
/// The symbols must be CBLAS `?gemm` functions of that integer width:
/// `oxtensor.tensor.blas` passes the names NumPy's own BLAS build uses.
#[pyfunction]
#[pyo3(signature = (path, name="", sgemm="cblas_sgemm", dgemm="cblas_dgemm", ilp64=false))]
pub fn _install_blas(
    path: Option<std::path::PathBuf>,
    name: &str,
    sgemm: &str,
    dgemm: &str,
    ilp64: bool,
) -> PyResult<()> {
    let Some(path) = path else {
        blas::install(None);
        return Ok(());
    };
    // SAFETY: the contract above, on the caller's choice of symbols.
    let lib = unsafe { Cblas::open(name, &path, (sgemm, dgemm), ilp64) };
    blas::install(Some(lib.map_err(PyOSError::new_err)?));
    Ok(())
}

/// The name of the installed BLAS, or None when products run on faer.
#[pyfunction]
pub fn _blas() -> Option<String> {
    blas::installed()
}
