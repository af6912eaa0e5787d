//! `_core._simd`: the SIMD level the core's kernels run
//! (`oxtensor_core::kernels::cpu`), for the import-time check of
//! `OXTENSOR_SIMD` and for tests.

use oxtensor_core::kernels::cpu;
use pyo3::prelude::*;

/// `(level the kernels run, widest level the CPU runs, why OXTENSOR_SIMD
/// was ignored or None)`; levels are `"baseline"`, `"avx2"`, `"avx512"`.
#[pyfunction]
pub fn _simd() -> (&'static str, &'static str, Option<&'static str>) {
    (
        cpu::level().name(),
        cpu::hardware().name(),
        cpu::env_problem(),
    )
}
