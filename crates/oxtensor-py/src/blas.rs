//! `_core._install_blas` / `_core._blas`: the core's host-BLAS switch, for
//! `oxtensor.tensor.blas`, which finds the BLAS NumPy loaded.

use oxtensor_core::kernels::blas::{self, HostBlas};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

/// Route large float32/float64 products to the BLAS in the shared library
/// at `path` (symbols named `{prefix}cblas_dgemm{suffix}`, 64-bit integers
/// when `ilp64`) when they have at least `min_work` multiply-adds, or back
/// to faer when `path` is None. An unloadable
/// library or one without `cblas_?gemm` raises `OSError` and changes
/// nothing.
///
/// The names must have BLAS's reference signatures with that integer
/// width: `oxtensor.tensor.blas` passes what NumPy's OpenBLAS reports.
#[pyfunction]
#[pyo3(signature = (path, name="", prefix="", suffix="", ilp64=false, min_work=blas::MIN_WORK))]
pub fn _install_blas(
    path: Option<std::path::PathBuf>,
    name: &str,
    prefix: &str,
    suffix: &str,
    ilp64: bool,
    min_work: usize,
) -> PyResult<()> {
    let Some(path) = path else {
        blas::install(None);
        return Ok(());
    };
    // SAFETY: the contract above, on the caller's choice of symbols.
    let lib = unsafe { HostBlas::open(name, &path, (prefix, suffix), ilp64) };
    let lib = lib.map_err(PyOSError::new_err)?;
    blas::install(Some(lib.with_min_work(min_work)));
    Ok(())
}

/// The name of the installed BLAS, or None when products run on faer.
#[pyfunction]
pub fn _blas() -> Option<String> {
    blas::installed()
}
