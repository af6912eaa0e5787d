"""Annotations of `oxtensor._core`: process settings: floatX, BLAS, SIMD.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

def _install_blas(
    path: str | os.PathLike[str] | None,
    name: str = "",
    prefix: str = "",
    suffix: str = "",
    ilp64: bool = False,
    min_work: int = ...,  # 2**27: the core's MIN_WORK
    kernel: str = "",
    families: list[str] | None = None,
) -> None:
    """Linear algebra to the BLAS/LAPACK at ``path`` (None: back to faer):
    the ``families`` listed, or (None) those the machine's facts pick."""

def _blas() -> str | None:
    """The library large real products go to, or None for faer."""

def _blas_engines() -> list[tuple[str, str | None]]:
    """Each family and the library it runs on (None: faer)."""

def _blas_machine() -> tuple[bool, str | None, bool]:
    """(CPU has AVX-512F, the library's kernel name, it is AVX-512)."""

def _blas_products() -> int:
    """How many matrix products a host library has run in this process."""

def _set_floatx(name: str) -> None:
    """Sets the core's ``floatX`` (``"float32"`` or ``"float64"``)."""

def _set_cast_policy(name: str) -> None:
    """Sets the core's ``cast_policy`` (``"custom"`` or ``"numpy+floatX"``)."""

def _floatx() -> str:
    """The core's ``floatX``."""

def _simd() -> tuple[str, str, str | None]:
    """(SIMD level the kernels run, widest the CPU runs, why OXTENSOR_SIMD
    was ignored or None); levels are "baseline", "avx2", "avx512"."""

def _alloc_stats(reset_largest: bool = False) -> tuple[int, int, int, int]:
    """(buffers, bytes, fresh_bytes, largest) the core has made for tensors
    since the process started (largest: since the last reset)."""

def _live_bytes(reset_peak: bool = False) -> tuple[int, int]:
    """(live, peak): bytes of the core's tensor buffers alive now, and the
    most alive at once since the last reset."""
