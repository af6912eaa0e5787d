//! `_core._install_blas` / `_core._blas` / `_core._blas_engines` /
//! `_core._blas_machine` / `_core._blas_products`: the core's host-BLAS switch and its routing, for
//! `oxtensor.tensor.blas`, which finds the BLAS NumPy loaded.

use oxtensor_core::kernels::linalg::blas::{self, HostBlas};
use oxtensor_core::kernels::linalg::engine::{self, Family, Machine, Routes};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// Route float32/float64 linear algebra to the BLAS/LAPACK in the shared
/// library at `path` (symbols named `{prefix}cblas_dgemm{suffix}`, 64-bit
/// integers when `ilp64`), or back to faer when `path` is None. Products
/// go there from `min_work` multiply-adds. `kernel` is the library's name
/// for its compute kernels (OpenBLAS's core name); `families` lists the
/// families it serves (`"product"`, `"lu"`, `"cholesky"`, `"eigh"`,
/// `"svd"`, `"qr"`), or None to let the core choose from facts of the
/// machine (`engine::Machine::routes`). An unloadable library or one
/// without `cblas_?gemm` raises `OSError` and changes nothing; an unknown
/// family raises `ValueError`.
///
/// The names must have BLAS's reference signatures with that integer
/// width: `oxtensor.tensor.blas` passes what NumPy's OpenBLAS reports.
#[pyfunction]
#[pyo3(signature = (
    path, name="", prefix="", suffix="", ilp64=false, min_work=blas::MIN_WORK,
    kernel="", families=None,
))]
#[allow(clippy::too_many_arguments)]
pub fn _install_blas(
    path: Option<std::path::PathBuf>,
    name: &str,
    prefix: &str,
    suffix: &str,
    ilp64: bool,
    min_work: usize,
    kernel: &str,
    families: Option<Vec<String>>,
) -> PyResult<()> {
    let Some(path) = path else {
        blas::install(None);
        return Ok(());
    };
    let routes = match families {
        None => Machine::detect(kernel).routes(),
        Some(names) => routes_of(&names)?,
    };
    // SAFETY: the contract above, on the caller's choice of symbols.
    let lib = unsafe { HostBlas::open(name, &path, (prefix, suffix), ilp64) };
    let lib = lib.map_err(PyOSError::new_err)?;
    let lib = lib.with_min_work(min_work).with_kernel(kernel);
    blas::install(Some(lib.with_routes(routes)));
    Ok(())
}

fn routes_of(names: &[String]) -> PyResult<Routes> {
    names.iter().try_fold(Routes::NONE, |routes, name| {
        let family = Family::parse(name).ok_or_else(|| {
            let valid: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
            PyValueError::new_err(format!(
                "unknown family '{name}'; valid families: {}",
                valid.join(", ")
            ))
        })?;
        Ok(routes.with(family, true))
    })
}

/// The name of the library large real products go to, or None for faer.
#[pyfunction]
pub fn _blas() -> Option<String> {
    blas::engine(Family::Product)
}

/// How many matrix products a host library has run in this process.
#[pyfunction]
pub fn _blas_products() -> usize {
    blas::host_products()
}

/// Each family's name and the library it runs on (None: faer).
#[pyfunction]
pub fn _blas_engines() -> Vec<(&'static str, Option<String>)> {
    Family::ALL
        .iter()
        .map(|&f| (f.name(), blas::engine(f)))
        .collect()
}

/// The facts the default routes come from: whether the CPU has AVX-512F
/// (faer's kernels then run 512-bit vectors), the installed library's
/// kernel name (None without one) and whether that kernel is AVX-512.
#[pyfunction]
pub fn _blas_machine() -> (bool, Option<String>, bool) {
    let kernel = blas::with_installed(|lib| lib.kernel().to_string());
    let host_avx512 = kernel.as_deref().is_some_and(engine::kernel_is_avx512);
    (engine::cpu_has_avx512f(), kernel, host_avx512)
}
