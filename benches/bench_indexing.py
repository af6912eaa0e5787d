"""Indexing speed: compiled functions against NumPy, PyTensor and JAX.

Workloads, each timed in this one process as the best of several repeats:

* basic slicing ``x[1:-1:2, ::3]`` of a 4000x4000 float64 matrix (a view in
  oxtensor and NumPy; the output is borrowed so no copy is made);
* the same slice copied into a new array (``Out`` not borrowed);
* ``take`` of 10**5 random rows from a 10**6x8 float64 matrix (``x[idx]``);
* ``inc_subtensor(x[idx], y)`` of 10**5 rows with duplicates into a
  10**5x8 matrix (``np.add.at`` for NumPy, ``.at[].add`` for JAX);
* boolean masks, each half set at random: ``nonzero(v > 0)`` of a 10**6
  float64 vector, ``flatnonzero(m > 0)``, ``m[b]`` with a bool input ``b``,
  ``m[m > 0]`` and ``set_subtensor(m[m > 0], 0.0)`` on 2000x2000 float64
  matrices (NumPy: ``np.where(m > 0, 0.0, m)``, and ``m[m > 0] = 0`` on a
  copy). JAX compiles none of the data-dependent shapes; it times the
  ``where``.

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster). A
system that cannot be imported is reported as skipped, with the reason. The
timing helpers are ``bench_execution``'s (``compare``: all four systems on
one workload).
"""

from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from bench_execution import (
    best,
    compare,
    jax_fn,
    jax_mod,
    jax_timed,
    report_skipped,
    row,
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
    compare(
        "  ... copied out",
        lambda t: ([v := t.dmatrix("x")], v[1:-1:2, ::3]),
        [a],
        lambda: a[1:-1:2, ::3].copy(),
        lambda v: v[1:-1:2, ::3],
        number=20,
    )


def take_rows() -> None:
    rng = np.random.default_rng(0)
    a = rng.random((10**6, 8))
    idx = rng.integers(0, 10**6, 10**5)
    compare(
        "take 1e5 rows of 1e6x8",
        lambda t: ([m := t.dmatrix("x"), i := t.lvector("v")], m[i]),
        [a, idx],
        lambda: a[idx],
        lambda m, i: m[i],
        number=20,
    )


def inc_duplicates() -> None:
    rng = np.random.default_rng(0)
    a = rng.random((10**5, 8))
    idx = rng.integers(0, 10**4, 10**5)
    b = rng.random((10**5, 8))

    def numpy_add_at() -> Any:
        out = a.copy()
        np.add.at(out, idx, b)
        return out

    compare(
        "inc_subtensor 1e5 dup rows",
        lambda t: (
            [m := t.dmatrix("x"), w := t.dmatrix("y"), i := t.lvector("v")],
            t.inc_subtensor(m[i], w),
        ),
        [a, b, idx],
        numpy_add_at,
        lambda m, w, i: m.at[i].add(w),
    )


def masks() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(10**6)
    m = rng.standard_normal((2000, 2000))
    bm = rng.random((2000, 2000)) < 0.5
    x, mx, b = ot.dvector("x"), ot.dmatrix("m"), ot.matrix("b", dtype="bool")
    cases: list[tuple[str, Any, Any, tuple[Any, ...], Any]] = [
        (
            "nonzero(v > 0)[0], 1e6",
            [x],
            ot.nonzero(x > 0)[0],
            (a,),
            lambda: np.nonzero(a > 0)[0],
        ),
        (
            "flatnonzero(m > 0), 2000^2",
            [mx],
            ot.flatnonzero(mx > 0),
            (m,),
            lambda: np.flatnonzero(m > 0),
        ),
        ("m[b], 2000^2", [mx, b], mx[b], (m, bm), lambda: m[bm]),
        ("m[m > 0], 2000^2", [mx], mx[mx > 0], (m,), lambda: m[m > 0]),
    ]
    for label, ins, out, args, ref in cases:
        f = oxtensor.function(ins, out)
        row(label, best(lambda f=f, args=args: f(*args), 10), {"numpy": best(ref, 10)})

    def numpy_assign() -> Any:
        out = m.copy()
        out[out > 0] = 0.0
        return out

    f = oxtensor.function([mx], ot.set_subtensor(mx[mx > 0], 0.0))
    jf = jax_fn(lambda v: jnp_where(v > 0, 0.0, v)) if jax_mod else None
    row(
        "set_subtensor(m[m>0], 0)",
        best(lambda: f(m), 10),
        {
            "np.where": best(lambda: np.where(m > 0, 0.0, m), 10),
            "numpy copy+set": best(numpy_assign, 10),
            "jax where": jax_timed(jf, m, number=10),
        },
    )


def jnp_where(cond: Any, a: Any, b: Any) -> Any:
    import jax.numpy as jnp

    return jnp.where(cond, a, b)


def main() -> None:
    report_skipped()
    slicing()
    take_rows()
    inc_duplicates()
    masks()


if __name__ == "__main__":
    main()
