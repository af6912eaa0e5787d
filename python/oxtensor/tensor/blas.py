"""Which library runs large real matrix products.

oxtensor's own engine is faer (pure Rust). When NumPy was built against
OpenBLAS (every NumPy wheel on Linux and Windows, Intel macOS too), the
library is already loaded in the process, and its float64 kernel is faster
than faer's on most x86 machines; so, as PyTensor links against the BLAS
NumPy uses, large float32/float64 ``dot``/``matmul`` products go to that same
OpenBLAS, from 2^27 multiply-adds (512³) up: below that faer was as fast,
and two thread pools spinning against each other between short products
cost more than OpenBLAS's kernel gains. Everything else (complex, integer,
smaller or oddly strided products) stays on faer; ``eigh`` and ``svd`` use
the same library's LAPACK (``?syevd``, ``?gesdd``) as NumPy does.

The choice is made when oxtensor is imported: ``OXTENSOR_BLAS=faer`` keeps
products on faer, ``OXTENSOR_BLAS=numpy`` (the default) uses NumPy's
OpenBLAS when it can be found. :func:`use_blas` switches at run time, for
functions already compiled too. NumPy's OpenBLAS runs its own threads, so
``OPENBLAS_NUM_THREADS`` and ``threadpoolctl`` limit ours as they limit NumPy.
"""

import ctypes
import os
import warnings
from pathlib import Path

import numpy as np

from oxtensor import _core

# (prefix, suffix) of OpenBLAS's exported names: NumPy's wheels carry
# scipy-openblas64 (``scipy_cblas_dgemm64_``); distributions ship plain or
# ``64_``-suffixed builds.
_NAMINGS = (("scipy_", "64_"), ("scipy_", ""), ("", "64_"), ("", ""))


def _loaded_openblas() -> list[str]:
    """Paths of the OpenBLAS libraries this process has mapped (any of them
    describes itself through ``_describe``), then those a NumPy wheel bundles."""
    maps = Path("/proc/self/maps")
    found: list[str] = []
    if maps.exists():
        for line in maps.read_text().splitlines():
            fields = line.split(maxsplit=5)  # the sixth is the mapped file
            if len(fields) == 6 and "openblas" in Path(fields[5]).name.lower():
                found.append(fields[5])
    # Wheels bundle it beside the package (Windows, macOS).
    numpy_dir = Path(np.__file__).parent
    for folder in (numpy_dir.parent / "numpy.libs", numpy_dir / ".dylibs"):
        if folder.is_dir():
            found += [str(p) for p in sorted(folder.glob("*openblas*"))]
    return list(dict.fromkeys(found))


def _describe(path: str) -> tuple[str, str, str] | None:
    """``(prefix, suffix, config)`` of the OpenBLAS at ``path``: how its
    names are decorated and its own build description."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for prefix, suffix in _NAMINGS:
        config = getattr(lib, f"{prefix}openblas_get_config{suffix}", None)
        if config is not None:
            config.restype = ctypes.c_char_p
            return prefix, suffix, config().decode(errors="replace")
    return None


def _install_numpy_openblas(min_work: int | None = None) -> str | None:
    """Install the first OpenBLAS found for products of at least
    ``min_work`` multiply-adds (default: the core's, 2^27); its name, or
    None if none is found."""
    for path in _loaded_openblas():
        described = _describe(path)
        if described is None:
            continue
        prefix, suffix, config = described
        # The library says whether its integers are 64-bit; guessing from
        # the file name could pass 32-bit sizes to a 64-bit interface.
        ilp64 = "USE64BITINT" in config.split()
        version = " ".join(config.split()[:2])
        try:
            _core._install_blas(
                path,
                name=f"{version} (NumPy's)",
                prefix=prefix,
                suffix=suffix,
                ilp64=ilp64,
                **({} if min_work is None else {"min_work": min_work}),
            )
        except OSError:
            continue
        return _core._blas()
    return None


def blas_name() -> str | None:
    """The library large real products go to, or None for faer."""
    return _core._blas()


def use_blas(name: str) -> str | None:
    """Send large real products to ``"numpy"`` (the OpenBLAS NumPy loaded)
    or ``"faer"``; returns :func:`blas_name`. Raises ``RuntimeError`` when
    NumPy's OpenBLAS cannot be found, and ``ValueError`` for other names."""
    if name == "faer":
        _core._install_blas(None)
        return None
    if name != "numpy":
        raise ValueError(f"use_blas takes 'numpy' or 'faer', not {name!r}")
    installed = _install_numpy_openblas()
    if installed is None:
        raise RuntimeError(
            "no OpenBLAS is loaded in this process (NumPy was built against "
            f"{_numpy_blas_name()}); products stay on faer"
        )
    return installed


def _numpy_blas_name() -> str:
    try:
        return str(np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"])
    except (KeyError, TypeError, ValueError):
        return "an unknown BLAS"


def _configure_from_environment() -> None:
    """The import-time choice: ``OXTENSOR_BLAS`` or NumPy's OpenBLAS."""
    choice = os.environ.get("OXTENSOR_BLAS", "").strip().lower()
    if choice == "faer":
        return
    if choice not in ("", "numpy"):
        warnings.warn(
            f"OXTENSOR_BLAS={choice!r} is not 'numpy' or 'faer'; using faer",
            stacklevel=2,
        )
        return
    if _install_numpy_openblas() is None and choice == "numpy":
        warnings.warn(
            "OXTENSOR_BLAS=numpy but no OpenBLAS is loaded; using faer",
            stacklevel=2,
        )


__all__ = ["blas_name", "use_blas"]
