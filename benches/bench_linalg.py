"""Linear algebra speed against NumPy, PyTensor and JAX, in one process:

* batched matmul: 64 stacks of 128x128 float64 (``Matmul``), and a
  broadcast stack (64x128x128 @ 128x128);
* ``solve`` of a 500x500 float64 system with one right-hand side;
* ``cholesky`` of a 500x500 symmetric positive definite float64 matrix;
* ``inv``, ``det``, ``slogdet``, ``eigh``, ``svd`` and ``qr`` of 500x500
  float64 matrices;
* ``inv``, ``det``, ``solve`` and ``qr`` (complete, reduced, R only) at
  2000x2000 float64 and 1000x1000 float32, against NumPy only (its LAPACK runs
  multithreaded; the host LAPACK paths of ``kernels/linalg/lapack/lu.rs`` and
  ``kernels/linalg/lapack/qr.rs``).

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster), with the
harness of ``bench_execution.py``.
"""

from typing import Any

import bench_execution as harness
import numpy as np
import oxtensor
import oxtensor.tensor as ot
from bench_execution import best, jax_fn, jax_mod, jax_timed, pytensor_fn, row, timed


def compare(
    label: str, f: Any, g: Any, jf: Any, np_fn: Any, *args: Any, number: int = 5
) -> None:
    ox = best(lambda: f(*args), number)
    row(
        label,
        ox,
        {
            "numpy": best(lambda: np_fn(*args), number),
            "pytensor": timed(g, *args, number=number),
            "jax": jax_timed(jf, *args, number=number),
        },
    )


def batched_matmul() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.random((64, 128, 128)), rng.random((128, 128))
    x, y = ot.tensor3("x"), ot.matrix("y")
    for label, args, yv in (
        ("matmul 64x128^2 @ stack", (a, a), ot.tensor3("z")),
        ("matmul 64x128^2 @ matrix", (a, b), y),
    ):
        f = oxtensor.function([x, yv], x @ yv)
        nd = args[1].ndim
        g = pytensor_fn(
            lambda pt, nd=nd: (
                [p := pt.tensor3("x"), q := pt.tensor("y", shape=(None,) * nd)],
                p @ q,
            )
        )
        jf = jax_fn(lambda p, q: p @ q) if jax_mod else None
        compare(label, f, g, jf, np.matmul, *args)


def solve_and_cholesky() -> None:
    rng = np.random.default_rng(1)
    n = 500
    m = rng.random((n, n))
    a, s, v = m + n * np.eye(n), m @ m.T + n * np.eye(n), rng.random(n)
    x, b = ot.dmatrix("a"), ot.dvector("b")
    f = oxtensor.function([x, b], ot.linalg.solve(x, b))
    g = pytensor_fn(
        lambda pt: ([p := pt.dmatrix("a"), q := pt.dvector("b")], pt.linalg.solve(p, q))
    )
    jf = jax_fn(harness.jnp.linalg.solve) if jax_mod else None
    compare("solve 500x500", f, g, jf, np.linalg.solve, a, v)
    f = oxtensor.function([x], ot.linalg.cholesky(x))
    g = pytensor_fn(lambda pt: ([p := pt.dmatrix("a")], pt.linalg.cholesky(p)))
    jf = jax_fn(harness.jnp.linalg.cholesky) if jax_mod else None
    compare("cholesky 500x500", f, g, jf, np.linalg.cholesky, s)


def decompositions() -> None:
    rng = np.random.default_rng(2)
    n = 500
    m = rng.random((n, n))
    # Diagonally dominant with a finite determinant (m + n*I overflows det).
    a = m / n + np.eye(n)
    s = a @ a.T
    x = ot.dmatrix("a")
    for label, build, pt_build, np_fn, arg in (
        ("inv 500x500", ot.linalg.inv, "inv", np.linalg.inv, a),
        ("det 500x500", ot.linalg.det, "det", np.linalg.det, a),
        ("slogdet 500x500", ot.linalg.slogdet, "slogdet", np.linalg.slogdet, a),
        ("eigh 500x500", ot.linalg.eigh, "eigh", np.linalg.eigh, s),
        ("svd 500x500", ot.linalg.svd, "svd", np.linalg.svd, a),
        ("qr 500x500", ot.linalg.qr, "qr", np.linalg.qr, a),
    ):
        f = oxtensor.function([x], build(x))
        g = pytensor_fn(
            lambda pt, name=pt_build: (
                [p := pt.dmatrix("a")],
                getattr(pt.linalg, name)(p),
            )
        )
        jf = jax_fn(getattr(harness.jnp.linalg, pt_build)) if jax_mod else None
        compare(label, f, g, jf, np_fn, arg)


def large() -> None:
    """The LU and QR family on larger matrices, float64 and float32."""
    rng = np.random.default_rng(3)
    for n, dtype in ((2000, "float64"), (1000, "float32")):
        a = (rng.random((n, n)) / n + np.eye(n)).astype(dtype)
        v = rng.random(n).astype(dtype)
        x, b = ot.matrix("a", dtype=dtype), ot.vector("b", dtype=dtype)
        cases = (
            ("inv", [x], ot.linalg.inv(x), np.linalg.inv, (a,)),
            ("det", [x], ot.linalg.det(x), np.linalg.det, (a,)),
            ("solve", [x, b], ot.linalg.solve(x, b), np.linalg.solve, (a, v)),
            ("qr", [x], ot.linalg.qr(x), np.linalg.qr, (a,)),
            (
                "qr reduced",
                [x],
                ot.linalg.qr(x, mode="reduced"),
                lambda t: np.linalg.qr(t, mode="reduced"),
                (a,),
            ),
            (
                "qr r",
                [x],
                ot.linalg.qr(x, mode="r"),
                lambda t: np.linalg.qr(t, mode="r"),
                (a,),
            ),
        )
        for name, ins, out, np_fn, args in cases:
            f = oxtensor.function(ins, out)
            label = f"{name} {n}x{n} f{dtype[-2:]}"
            compare(label, f, None, None, np_fn, *args, number=1)


def main() -> None:
    harness.report_skipped()
    batched_matmul()
    solve_and_cholesky()
    decompositions()
    large()


if __name__ == "__main__":
    main()
