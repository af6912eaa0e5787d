"""Which engine runs large real matrix products and the decompositions.

oxtensor's own engine is faer (pure Rust). When NumPy was built against
OpenBLAS (every NumPy wheel on Linux and Windows, Intel macOS too), that
library is already loaded in the process, with LAPACK inside; so, as
PyTensor links against the BLAS NumPy uses, oxtensor can call it too. Which
one runs each family (``product``: ``dot``/``matmul`` from 2^27
multiply-adds; ``dot``: inner products of vectors, ``norm``; ``lu``:
``inv``/``det``/``slogdet``/``solve``; ``cholesky``; ``eigh``; ``svd``;
``qr``) is chosen from facts of the machine: where the CPU has AVX-512F and
OpenBLAS runs non-AVX-512 kernels (its core name, e.g. ``Haswell`` on an
AMD Zen 5), faer's AVX-512 kernels are the faster ones for products, LU,
Cholesky and QR; elsewhere NumPy's library is (see ``engines()`` and
crates/oxtensor-core/src/kernels/linalg/engine.rs). Complex, integer, smaller or oddly
strided products always stay on faer.

The choice is made when oxtensor is imported: ``OXTENSOR_BLAS=auto`` (the
default) routes by those facts, ``OXTENSOR_BLAS=numpy`` sends every family
to NumPy's OpenBLAS, ``OXTENSOR_BLAS=faer`` keeps everything on faer.
:func:`use_blas` switches at run time, for functions already compiled too.
NumPy's OpenBLAS runs its own threads, so ``OPENBLAS_NUM_THREADS`` and
``threadpoolctl`` limit them as they limit NumPy's.
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


def _describe(path: str) -> tuple[str, str, str, str] | None:
    """``(prefix, suffix, config, core name)`` of the OpenBLAS at ``path``:
    how its names are decorated, its own build description and the name of
    the kernels it runs on this CPU (``Haswell``, ``SkylakeX``, ...)."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for prefix, suffix in _NAMINGS:
        config = getattr(lib, f"{prefix}openblas_get_config{suffix}", None)
        if config is None:
            continue
        corename = getattr(lib, f"{prefix}openblas_get_corename{suffix}", None)
        config.restype = ctypes.c_char_p
        core = ""
        if corename is not None:
            corename.restype = ctypes.c_char_p
            core = corename().decode(errors="replace")
        return prefix, suffix, config().decode(errors="replace"), core
    return None


_FAMILIES = ("product", "dot", "lu", "cholesky", "eigh", "svd", "qr")


def _install_numpy_openblas(
    min_work: int | None = None, families: list[str] | None = None
) -> str | None:
    """Install the first OpenBLAS found for products of at least
    ``min_work`` multiply-adds (default: the core's, 2^27) and the
    ``families`` listed (None: those the machine's facts pick); its name,
    or None if none is found."""
    for path in _loaded_openblas():
        described = _describe(path)
        if described is None:
            continue
        prefix, suffix, config, core = described
        # The library says whether its integers are 64-bit; guessing from
        # the file name could pass 32-bit sizes to a 64-bit interface.
        ilp64 = "USE64BITINT" in config.split()
        name = " ".join(config.split()[:2]) + " (NumPy's)"
        try:
            _core._install_blas(
                path,
                name=name,
                prefix=prefix,
                suffix=suffix,
                ilp64=ilp64,
                kernel=core,
                families=families,
                **({} if min_work is None else {"min_work": min_work}),
            )
        except OSError:
            continue
        return name
    return None


_mode = "faer"


def blas_name() -> str | None:
    """The library large real products go to, or None for faer."""
    return _core._blas()


def blas_mode() -> str:
    """The last choice made: ``"auto"``, ``"numpy"`` or ``"faer"``."""
    return _mode


def engines() -> dict[str, str]:
    """Each family's engine (``"faer"`` or the library's name), and why:
    ``"machine"`` describes the facts the ``"auto"`` routing reads.

    >>> from oxtensor.tensor import blas
    >>> sorted(blas.engines())
    ['cholesky', 'dot', 'eigh', 'lu', 'machine', 'product', 'qr', 'svd']
    """
    out = {family: name or "faer" for family, name in _core._blas_engines()}
    avx512, kernel, kernel_avx512 = _core._blas_machine()
    cpu = "AVX-512F" if avx512 else "no AVX-512F"
    host = "no host library" if kernel is None else f"host kernel {kernel or '?'}"
    wide = " (AVX-512)" if kernel_avx512 else ""
    out["machine"] = f"{_mode}: CPU {cpu}, {host}{wide}"
    return out


def use_blas(name: str) -> str | None:
    """Route linear algebra by the machine's facts (``"auto"``), all of it
    to ``"numpy"`` (the OpenBLAS NumPy loaded), or all of it to
    ``"faer"``; returns :func:`blas_name`. ``"numpy"`` raises
    ``RuntimeError`` when NumPy's OpenBLAS cannot be found (``"auto"`` then
    keeps faer); other names raise ``ValueError``."""
    global _mode
    if name not in ("auto", "numpy", "faer"):
        raise ValueError(f"use_blas takes 'auto', 'numpy' or 'faer', not {name!r}")
    _core._install_blas(None)
    _mode = name
    if name == "faer":
        return None
    everything = list(_FAMILIES) if name == "numpy" else None
    if _install_numpy_openblas(families=everything) is None and name == "numpy":
        _mode = "faer"
        raise RuntimeError(
            "no OpenBLAS is loaded in this process (NumPy was built against "
            f"{_numpy_blas_name()}); everything stays on faer"
        )
    return blas_name()


def _numpy_blas_name() -> str:
    try:
        return str(np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"])
    except (KeyError, TypeError, ValueError):
        return "an unknown BLAS"


def _configure_from_environment() -> None:
    """The import-time choice: ``OXTENSOR_BLAS`` (default ``auto``)."""
    choice = os.environ.get("OXTENSOR_BLAS", "").strip().lower() or "auto"
    if choice not in ("auto", "numpy", "faer"):
        warnings.warn(
            f"OXTENSOR_BLAS={choice!r} is not 'auto', 'numpy' or 'faer'; using faer",
            stacklevel=2,
        )
        choice = "faer"
    try:
        use_blas(choice)
    except RuntimeError:
        warnings.warn(
            "OXTENSOR_BLAS=numpy but no OpenBLAS is loaded; using faer",
            stacklevel=2,
        )


#: PyTensor's BLAS-level ops, for graphs that name them: ``Dot22`` (a
#: product of two matrices) and ``Gemv`` (``beta * y + alpha * dot(A, x)``
#: of the inputs ``(y, alpha, A, x, beta)``). oxtensor's ``dot`` runs the
#: same kernels without being rewritten into them.
Dot22 = _core.Dot22
Gemv = _core.Gemv
_dot22 = Dot22()
gemv_no_inplace = Gemv(inplace=False)
gemv_inplace = Gemv(inplace=True)

__all__ = [
    "Dot22",
    "Gemv",
    "blas_mode",
    "blas_name",
    "engines",
    "gemv_inplace",
    "gemv_no_inplace",
    "use_blas",
]
