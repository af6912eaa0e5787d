"""The everyday composites (``tril``, ``diagonal``, ``roll``, ``linspace``,
``isclose``, ``norm``, ...) compiled with ``oxtensor.function`` against the
NumPy call they stand for, on 2000 x 2000 float64 inputs (vectors of 4 * 10**6
where the function takes one): best of 10 calls after a warm-up.

Ratios are ``numpy / oxtensor`` times (above 1: oxtensor is faster). NumPy
returns views for ``diagonal``, ``flip``, ``matrix_transpose`` and the
``atleast``/``shape_pad`` family, so those time a view against a compiled
function's output, which is copied unless borrowed, as in PyTensor; the
second table times them again compiled with ``In``/``Out(borrow=True)``,
which return the view.
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor.tensor as ot
import scipy.special
from bench_execution import numpy_table
from oxtensor.tensor import linalg as la
from oxtensor.tensor import special

N = 2000
RNG = np.random.default_rng(0)
M = RNG.normal(size=(N, N))
M2 = RNG.normal(size=(N, N))
V = RNG.normal(size=N * N)
V2 = V + RNG.normal(size=N * N) * 1e-9
P = RNG.random((N, N)) * 0.98 + 0.01
IDX = np.argsort(M[:64], axis=1)
INTS = RNG.integers(0, 1000, size=N * N)
SMALL = RNG.normal(size=(300, 300))
SPD = SMALL @ SMALL.T + 300 * np.eye(300)


def m(name: str = "x") -> Any:
    return ot.dmatrix(name)


def v(name: str = "x") -> Any:
    return ot.dvector(name)


# name: (symbolic inputs, oxtensor graph builder, values, NumPy function)
CASES: dict[str, tuple[Callable[[], list[Any]], Callable[..., Any], list[Any], Any]] = {
    "tri": (lambda: [], lambda: ot.tri(N, N, 1), [], lambda: np.tri(N, N, 1)),
    "tril": (lambda: [m()], lambda x: ot.tril(x, -1), [M], lambda x: np.tril(x, -1)),
    "triu": (lambda: [m()], lambda x: ot.triu(x, 1), [M], lambda x: np.triu(x, 1)),
    "diagonal": (lambda: [m()], ot.diagonal, [M], np.diagonal),
    "diag(vector)": (lambda: [v()], ot.diag, [M[0]], np.diag),
    "trace": (lambda: [m()], ot.trace, [M], np.trace),
    "flip": (lambda: [m()], ot.flip, [M], lambda x: np.flip(x)),
    "flip+1": (lambda: [m()], lambda x: ot.flip(x) + 1, [M], lambda x: np.flip(x) + 1),
    "roll(axis=1)": (
        lambda: [m()],
        lambda x: ot.roll(x, 7, 1),
        [M],
        lambda x: np.roll(x, 7, 1),
    ),
    "roll(flat)": (
        lambda: [m()],
        lambda x: ot.roll(x, 7),
        [M],
        lambda x: np.roll(x, 7),
    ),
    "matrix_transpose": (lambda: [m()], ot.matrix_transpose, [M], np.matrix_transpose),
    "atleast_3d": (lambda: [m()], ot.atleast_3d, [M], lambda x: x[None]),
    "shape_padright": (lambda: [m()], ot.shape_padright, [M], lambda x: x[..., None]),
    "broadcast_arrays": (
        lambda: [ot.dcol("c"), v()],
        lambda c, r: ot.broadcast_arrays(c, r)[0],
        [M[:, :1], M[0]],
        lambda c, r: np.broadcast_arrays(c, r)[0],
    ),
    "linspace": (
        lambda: [],
        lambda: ot.linspace(0.0, 1.0, N * N),
        [],
        lambda: np.linspace(0, 1, N * N),
    ),
    "geomspace": (
        lambda: [],
        lambda: ot.geomspace(1.0, 1e3, N * N),
        [],
        lambda: np.geomspace(1, 1e3, N * N),
    ),
    "isclose": (lambda: [v("a"), v("b")], ot.isclose, [V, V2], np.isclose),
    "allclose": (lambda: [v("a"), v("b")], ot.allclose, [V, V2], np.allclose),
    "isposinf": (lambda: [v()], ot.isposinf, [V], np.isposinf),
    "nan_to_num": (lambda: [v()], ot.nan_to_num, [V], np.nan_to_num),
    "logaddexp": (lambda: [v("a"), v("b")], ot.logaddexp, [V, V2], np.logaddexp),
    "take_along_axis": (
        lambda: [m(), ot.lmatrix("i")],
        lambda x, i: ot.take_along_axis(x, i, 1),
        [M[:64], IDX],
        lambda x, i: np.take_along_axis(x, i, 1),
    ),
    "compress": (
        lambda: [ot.bvector("c"), m()],
        lambda c, x: ot.compress(c, x, 0),
        [(M[:, 0] > 0).astype("int8"), M],
        lambda c, x: np.compress(c, x, 0),
    ),
    "bincount": (lambda: [ot.lvector("x")], ot.bincount, [INTS], np.bincount),
    "batched_dot": (
        lambda: [ot.dtensor3("a"), ot.dtensor3("b")],
        ot.batched_dot,
        [M.reshape(1000, 40, 100), M2.reshape(1000, 100, 40)],
        np.matmul,
    ),
    "power": (
        lambda: [v()],
        lambda x: ot.power(x, 3.0),
        [V],
        lambda x: np.power(x, 3.0),
    ),
    "iround": (lambda: [v()], ot.iround, [V], lambda x: np.round(x).astype("int64")),
    "logit": (lambda: [m()], special.logit, [P], lambda x: np.log(x / (1 - x))),
    "xlogy": (
        lambda: [m("a"), m("b")],
        special.xlogy,
        [M, P],
        scipy.special.xlogy,
    ),
    "norm(fro)": (lambda: [m()], la.norm, [M], np.linalg.norm),
    "norm(1)": (
        lambda: [m()],
        lambda x: la.norm(x, 1),
        [M],
        lambda x: np.linalg.norm(x, 1),
    ),
    "norm(axis=1)": (
        lambda: [m()],
        lambda x: la.norm(x, axis=1),
        [M],
        lambda x: np.linalg.norm(x, axis=1),
    ),
    "kron(40x50, 50x40)": (
        lambda: [m("a"), m("b")],
        la.kron,
        [M[:40, :50], M2[:50, :40]],
        np.kron,
    ),
    "matrix_power(5)": (
        lambda: [m()],
        lambda x: la.matrix_power(x, 5),
        [SMALL],
        lambda x: np.linalg.matrix_power(x, 5),
    ),
    "pinv(300)": (lambda: [m()], la.pinv, [SMALL], np.linalg.pinv),
    "eigvalsh(300)": (lambda: [m()], la.eigvalsh, [SPD], np.linalg.eigvalsh),
}


# The cases whose NumPy answer is a view of an input.
VIEWS = [
    "diagonal",
    "flip",
    "matrix_transpose",
    "atleast_3d",
    "shape_padright",
    "broadcast_arrays",
]


def main() -> None:
    numpy_table(CASES, 22)
    print("\nViews, compiled with In/Out(borrow=True):")
    numpy_table({name: CASES[name] for name in VIEWS}, 22, borrow=True)


if __name__ == "__main__":
    main()
