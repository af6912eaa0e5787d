"""Indexing speed: compiled functions against NumPy, PyTensor and JAX.

Workloads, each timed in this one process as the best of several repeats:

* basic slicing ``x[1:-1:2, ::3]`` of a 4000x4000 float64 matrix (a view in
  oxtensor and NumPy; the output is borrowed so no copy is made);
* the same slice copied into a new array (``Out`` not borrowed);
* ``take`` of 10**5 random rows from a 10**6x8 float64 matrix (``x[idx]``);
* ``inc_subtensor(x[idx], y)`` of 10**5 rows with duplicates into a
  10**5x8 matrix (``np.add.at`` for NumPy, ``.at[].add`` for JAX).

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster). A
system that cannot be imported is reported as skipped, with the reason. The
timing helpers are ``bench_execution``'s.
"""

from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from bench_execution import (
    best,
    jax_fn,
    jax_mod,
    jax_timed,
    jax_why,
    pt_why,
    pytensor_fn,
    row,
    timed,
)
from oxtensor.compile.io import In, Out


def slicing() -> None:
    a = np.random.default_rng(0).random((4000, 4000))
    x = ot.dmatrix("x")
    view = oxtensor.function([In(x, borrow=True)], Out(x[1:-1:2, ::3], borrow=True))
    row(
        "x[1:-1:2, ::3] view, 4000^2",
        best(lambda: view(a), 2000),
        {"numpy": best(lambda: a[1:-1:2, ::3], 2000)},
    )
    copied = oxtensor.function([x], x[1:-1:2, ::3])
    g = pytensor_fn(lambda pt: ([v := pt.dmatrix("x")], v[1:-1:2, ::3]))
    jf = jax_fn(lambda v: v[1:-1:2, ::3]) if jax_mod else None
    row(
        "  ... copied out",
        best(lambda: copied(a), 20),
        {
            "numpy": best(lambda: a[1:-1:2, ::3].copy(), 20),
            "pytensor": timed(g, a, number=20),
            "jax": jax_timed(jf, a, number=20),
        },
    )


def take_rows() -> None:
    rng = np.random.default_rng(0)
    a = rng.random((10**6, 8))
    idx = rng.integers(0, 10**6, 10**5)
    x, v = ot.dmatrix("x"), ot.lvector("v")
    f = oxtensor.function([x, v], x[v])
    g = pytensor_fn(lambda pt: ([m := pt.dmatrix("x"), i := pt.lvector("v")], m[i]))
    jf = jax_fn(lambda m, i: m[i]) if jax_mod else None
    row(
        "take 1e5 rows of 1e6x8",
        best(lambda: f(a, idx), 20),
        {
            "numpy": best(lambda: a[idx], 20),
            "pytensor": timed(g, a, idx, number=20),
            "jax": jax_timed(jf, a, idx, number=20),
        },
    )


def inc_duplicates() -> None:
    rng = np.random.default_rng(0)
    a = rng.random((10**5, 8))
    idx = rng.integers(0, 10**4, 10**5)
    b = rng.random((10**5, 8))
    x, y, v = ot.dmatrix("x"), ot.dmatrix("y"), ot.lvector("v")
    f = oxtensor.function([x, y, v], ot.inc_subtensor(x[v], y))

    def numpy_add_at() -> Any:
        out = a.copy()
        np.add.at(out, idx, b)
        return out

    g = pytensor_fn(
        lambda pt: (
            [m := pt.dmatrix("x"), w := pt.dmatrix("y"), i := pt.lvector("v")],
            pt.inc_subtensor(m[i], w),
        )
    )
    jf = jax_fn(lambda m, w, i: m.at[i].add(w)) if jax_mod else None
    row(
        "inc_subtensor 1e5 dup rows",
        best(lambda: f(a, b, idx), 10),
        {
            "numpy": best(numpy_add_at, 10),
            "pytensor": timed(g, a, b, idx, number=10),
            "jax": jax_timed(jf, a, b, idx, number=10),
        },
    )


def main() -> None:
    for name, why in (("pytensor", pt_why), ("jax", jax_why)):
        if why:
            print(f"skipped {name}: {why}")
    slicing()
    take_rows()
    inc_duplicates()


if __name__ == "__main__":
    main()
