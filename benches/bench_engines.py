"""faer against the host's BLAS/LAPACK (NumPy's OpenBLAS), per operation and
size, in one process: the measurements behind ``oxtensor.tensor.blas``'s
routing (see the docs of `kernels/linalg/engine.rs`).

Each case is compiled once and timed in interleaved rounds: NumPy, then the
function with the host library for everything (``use_blas("numpy")``), then
with faer for everything (``use_blas("faer")``). The ratios are NumPy's time
over ours, one per round, printed as a range (above 1: faster than NumPy);
then the engine the current routing (``"auto"`` by default) picks, and the
one-minute load average (other jobs on the machine skew OpenBLAS's threads
far more than faer's).

With no arguments (``make bench``) only the 500x500 float64 cases run;
``python benches/bench_engines.py filter ...`` runs the cases at every size
(500^2 and 2000^2 float64, 1000^2 float32) whose label contains one of the
filters (``eigh``, ``2000``, ``f32``, ``^`` for all, ...). For the kernels'
speeds alone, run it with ``OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1``.
"""

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from bench_execution import best
from oxtensor.tensor import blas, linalg

Case = tuple[str, Callable[[Any], Any], Callable[..., Any], tuple[Any, ...]]

# The routing the process started with, restored after each case.
MODE = blas.blas_mode()

# The routing family of each case (``oxtensor.tensor.blas.engines()``).
FAMILY = {
    "matmul": "product",
    "inv": "lu",
    "det": "lu",
    "slogdet": "lu",
    "solve": "lu",
    "cholesky": "cholesky",
    "eigh": "eigh",
    "eigvalsh": "eigh",
}


def operands(n: int, dtype: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(n)
    m = rng.random((n, n))
    a = m / n + np.eye(n)  # well conditioned, finite determinant
    return {
        "a": a.astype(dtype),
        "spd": (a @ a.T).astype(dtype),
        "v": rng.random(n).astype(dtype),
        "m": rng.standard_normal((n, n)).astype(dtype),
    }


def cases(n: int, dtype: str) -> list[Case]:
    ops = operands(n, dtype)
    a, spd, v, m = ops["a"], ops["spd"], ops["v"], ops["m"]
    qr_np = {"full": "complete", "reduced": "reduced", "r": "r"}
    out: list[Case] = [
        ("matmul", lambda x: x @ x, lambda t: t @ t, (m,)),
        ("inv", linalg.inv, np.linalg.inv, (a,)),
        ("det", linalg.det, np.linalg.det, (a,)),
        ("slogdet", linalg.slogdet, np.linalg.slogdet, (a,)),
        ("solve", None, np.linalg.solve, (a, v)),
        ("cholesky", linalg.cholesky, np.linalg.cholesky, (spd,)),
        ("eigh", linalg.eigh, np.linalg.eigh, (spd,)),
        ("eigvalsh", linalg.eigvalsh, np.linalg.eigvalsh, (spd,)),
        ("svd", linalg.svd, np.linalg.svd, (m,)),
        (
            "svd thin",
            lambda x: linalg.svd(x, full_matrices=False),
            lambda t: np.linalg.svd(t, full_matrices=False),
            (m,),
        ),
        (
            "svd values",
            lambda x: linalg.svd(x, compute_uv=False),
            lambda t: np.linalg.svd(t, compute_uv=False),
            (m,),
        ),
    ]
    for mode, np_mode in qr_np.items():
        out.append(
            (
                f"qr {mode}",
                lambda x, mode=mode: linalg.qr(x, mode=mode),
                lambda t, np_mode=np_mode: np.linalg.qr(t, mode=np_mode),
                (m,),
            )
        )
    return out


def compile_case(build: Any, args: tuple[Any, ...], dtype: str) -> Any:
    x = ot.matrix("x", dtype=dtype)
    if build is None:  # solve: a matrix and a vector
        b = ot.vector("b", dtype=dtype)
        return oxtensor.function([x, b], linalg.solve(x, b))
    return oxtensor.function([x], build(x))


def rounds(f: Any, np_fn: Any, args: tuple[Any, ...], number: int) -> list[Any]:
    """Per round: (numpy, host, faer) seconds per call."""
    out = []
    for _ in range(3):
        t_np = best(lambda: np_fn(*args), number, repeat=3)
        blas.use_blas("numpy")
        t_host = best(lambda: f(*args), number, repeat=3)
        blas.use_blas("faer")
        t_faer = best(lambda: f(*args), number, repeat=3)
        out.append((t_np, t_host, t_faer))
    blas.use_blas(MODE)
    return out


def span(values: list[float]) -> str:
    return f"{min(values):4.2f}-{max(values):4.2f}"


def main() -> None:
    wanted = sys.argv[1:]
    try:
        blas.use_blas("numpy")
    except RuntimeError as e:  # nothing to compare faer with
        print(f"skipped: {e}")
        return
    blas.use_blas(MODE)
    print(f"engines: {blas.engines()}")
    sizes = ((500, "float64"), (2000, "float64"), (1000, "float32"))
    for n, dtype in sizes if wanted else sizes[:1]:
        for name, build, np_fn, args in cases(n, dtype):
            label = f"{name} {n}^2 f{dtype[-2:]}"
            family = FAMILY.get(name, name.split()[0])
            if wanted and not any(w in label for w in wanted):
                continue
            f = compile_case(build, args, dtype)
            number = 5 if n <= 500 else 1
            res = rounds(f, np_fn, args, number)
            t_np = min(r[0] for r in res)
            host = span([r[0] / r[1] for r in res])
            faer = span([r[0] / r[2] for r in res])
            load = os.getloadavg()[0]
            print(
                f"{label:<22} numpy {t_np * 1e3:8.2f} ms | host {host}x"
                f" | faer {faer}x | {MODE}: {blas.engines()[family][:8]}"
                f" | load {load:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
