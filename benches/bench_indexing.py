"""Indexing speed: compiled functions against NumPy, PyTensor and JAX.

Workloads, each timed in this one process as the best of several repeats:

* basic slicing ``x[1:-1:2, ::3]`` of a 4000x4000 float64 matrix (a view in
  oxtensor and NumPy; the output is borrowed so no copy is made);
* the same slice copied into a new array (``Out`` not borrowed);
* ``take`` of 10**5 random rows from a 10**6x8 float64 matrix (``x[idx]``);
* ``inc_subtensor(x[idx], y)`` of 10**5 rows with duplicates into a
  10**5x8 matrix (``np.add.at`` for NumPy, ``.at[].add`` for JAX).

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster). A
system that cannot be imported is reported as skipped, with the reason.
"""

import importlib
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from oxtensor.compile.io import In, Out


def best(fn: Callable[[], Any], number: int, repeat: int = 5) -> float:
    """Seconds per call, best of ``repeat`` runs of ``number`` calls."""
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def optional(name: str) -> tuple[Any, str]:
    """A module, or ``None`` and why it could not be imported."""
    try:
        return importlib.import_module(name), ""
    except Exception as e:  # any import failure just skips that system
        return None, f"{type(e).__name__}: {e}"


pt_mod, pt_why = optional("pytensor")
jax_mod, jax_why = optional("jax")
if jax_mod is not None:
    jax_mod.config.update("jax_enable_x64", True)
    jnp = importlib.import_module("jax.numpy")


def pytensor_fn(build: Callable[[Any], tuple[list[Any], Any]]) -> Any:
    """Compile ``build(pytensor.tensor)`` with PyTensor's default mode."""
    if pt_mod is None:
        return None
    ins, out = build(importlib.import_module("pytensor.tensor"))
    return pt_mod.function(ins, out)


def jax_fn(f: Callable[..., Any]) -> Any:
    """``jax.jit(f)`` whose results are waited for."""
    if jax_mod is None:
        return None
    jitted = jax_mod.jit(f)
    return lambda *a: jitted(*a).block_until_ready()


def timed(fn: Any, *args: Any, number: int) -> float | None:
    return None if fn is None else best(lambda: fn(*args), number)


def row(label: str, ox: float, others: dict[str, float | None]) -> None:
    cells = [f"oxtensor {ox * 1e3:9.3f} ms"]
    for name, t in others.items():
        cells.append(
            f"{name} {'skipped':>9}"
            if t is None
            else f"{name} {t * 1e3:9.3f} ms ({t / ox:6.2f}x)"
        )
    print(f"{label:<30}" + " | ".join(cells), flush=True)


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
            "jax": timed(jf, a, number=20),
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
            "jax": timed(jf, a, idx, number=20),
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
            "jax": timed(jf, a, b, idx, number=10),
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
