"""Shape, join and creation ops: compiled functions against NumPy, PyTensor and JAX.

Workloads, each timed in this one process as the best of several repeats
(float64 unless said otherwise; every result is a new array in all systems):

* ``concatenate`` of 4 blocks of 1000x4000 along axis 0 and along axis 1;
* ``stack`` of the same 4 blocks (a new leading axis);
* ``split`` of a 4000x4000 matrix into 4 row blocks, each copied out
  (``Out`` not borrowed; NumPy copies its views);
* ``zeros``, ``full`` (a scalar input) and ``alloc`` (a row broadcast) to
  4000x4000, the lengths given as inputs so nothing is constant-folded;
* ``arange(1e7)`` (the stop given as input) and ``eye(4000)``;
* ``tile`` of a 2000x2000 matrix by (2, 2), and ``repeat`` of it twice along
  axis 0 and along axis 1;
* a transposed copy ``x.T`` of 4000x4000 returned unborrowed (NumPy:
  ``a.T.copy()``);
* ``reshape`` of a non-contiguous ``x[:, 1:]`` of 4000x4000 to a vector
  (``x[:, ::2]`` would not do: NumPy reshapes it as a view).

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster). A
system that cannot be imported is reported as skipped, with the reason. The
timing helpers are ``bench_execution``'s.
"""

from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from bench_execution import best, compare, report_skipped, row


def jnp() -> Any:
    import jax.numpy

    return jax.numpy


def blocks() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.random((1000, 4000)) for _ in range(4)]


def four(t: Any) -> list[Any]:
    return [t.dmatrix(f"b{i}") for i in range(4)]


def joins() -> None:
    bs = blocks()
    for axis in (0, 1):
        compare(
            f"concatenate 4x1000x4000 ax{axis}",
            lambda t, axis=axis: ((v := four(t)), t.concatenate(v, axis=axis)),
            bs,
            lambda axis=axis: np.concatenate(bs, axis=axis),
            lambda *v, axis=axis: jnp().concatenate(v, axis=axis),
        )
    compare(
        "stack 4x1000x4000",
        lambda t: ((v := four(t)), t.stack(v)),
        bs,
        lambda: np.stack(bs),
        lambda *v: jnp().stack(v),
    )
    a = np.random.default_rng(1).random((4000, 4000))
    x = ot.dmatrix("x")
    f = oxtensor.function([x], ot.split(x, [1000] * 4, n_splits=4, axis=0))
    row(
        "split 4000^2 in 4, copied",
        best(lambda: f(a), 10),
        {"numpy": best(lambda: [p.copy() for p in np.split(a, 4)], 10)},
    )


def creation() -> None:
    n, stop = 4000, 10**7
    r = np.random.default_rng(2).random(n)
    compare(
        "zeros 4000^2",
        lambda t: ([m := t.lscalar("n")], t.zeros((m, m))),
        [n],
        lambda: np.zeros((n, n)),
        lambda: jnp().zeros((n, n)),
        static=True,
    )
    compare(
        "full 4000^2",
        lambda t: ([v := t.dscalar("v"), m := t.lscalar("n")], t.full((m, m), v)),
        [1.5, n],
        lambda: np.full((n, n), 1.5),
        lambda: jnp().full((n, n), 1.5),
        static=True,
    )
    compare(
        "alloc row to 4000^2",
        lambda t: ([v := t.dvector("v"), m := t.lscalar("n")], t.alloc(v, m, m)),
        [r, n],
        lambda: np.broadcast_to(r, (n, n)).copy(),
        None,
    )
    compare(
        "arange(1e7)",
        lambda t: ([m := t.lscalar("n")], t.arange(m, dtype="float64")),
        [stop],
        lambda: np.arange(stop, dtype="float64"),
        lambda: jnp().arange(stop, dtype="float64"),
        static=True,
    )
    compare(
        "eye(4000)",
        lambda t: ([m := t.lscalar("n")], t.eye(m)),
        [n],
        lambda: np.eye(n),
        lambda: jnp().eye(n),
        static=True,
    )


def repeats() -> None:
    a = np.random.default_rng(3).random((2000, 2000))
    compare(
        "tile 2000^2 by (2, 2)",
        lambda t: ([x := t.dmatrix("x")], t.tile(x, (2, 2))),
        [a],
        lambda: np.tile(a, (2, 2)),
        lambda x: jnp().tile(x, (2, 2)),
    )
    for axis in (0, 1):
        compare(
            f"repeat 2000^2 x2 ax{axis}",
            lambda t, axis=axis: ([x := t.dmatrix("x")], t.repeat(x, 2, axis=axis)),
            [a],
            lambda axis=axis: np.repeat(a, 2, axis=axis),
            lambda x, axis=axis: jnp().repeat(x, 2, axis=axis),
        )


def layouts() -> None:
    a = np.random.default_rng(4).random((4000, 4000))
    compare(
        "transposed copy 4000^2",
        lambda t: ([x := t.dmatrix("x")], x.T),
        [a],
        lambda: a.T.copy(),
        lambda x: x.T.copy(),
    )
    compare(
        "reshape x[:, 1:] 4000^2",
        lambda t: ([x := t.dmatrix("x")], x[:, 1:].reshape((-1,))),
        [a],
        lambda: a[:, 1:].reshape(-1),
        lambda x: x[:, 1:].reshape((-1,)),
    )


def main() -> None:
    report_skipped()
    joins()
    creation()
    repeats()
    layouts()


if __name__ == "__main__":
    main()
