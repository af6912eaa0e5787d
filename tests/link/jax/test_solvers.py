"""The linear solvers on JAX against the native VM, with gradients."""

import numpy as np
import pytest

from tests.link.jax import SKIP_REASON

pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor
import oxtensor.tensor as ot
from oxtensor.tensor import linalg

from tests.link.jax.compare import compare, rng


def _spd(n: int = 4) -> np.ndarray:
    a = rng(5).normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


@pytest.mark.parametrize("lower", [False, True])
def test_structured_solves(lower: bool) -> None:
    a, b, bm = ot.dmatrix("a"), ot.dvector("b"), ot.dmatrix("bm")
    kinds = ["gen", "sym", "pos", "tridiagonal", "banded", "diagonal"]
    outs = [linalg.solve(a, b, assume_a=k, lower=lower) for k in kinds]
    outs += [linalg.solve(a, bm, assume_a="pos", lower=lower, transposed=True)]
    # The triangle a symmetric solve does not read holds junk.
    noise = rng(1).normal(size=(4, 4))
    junk = _spd() + (np.tril(noise, -1) if not lower else np.triu(noise, 1))
    values = [junk, rng().normal(size=4), rng(3).normal(size=(4, 2))]
    compare([a, b, bm], outs, values, rtol=1e-9)


def test_triangular_lu_and_gradients() -> None:
    a, b = ot.dmatrix("a"), ot.dvector("b")
    lu_, piv = linalg.lu_factor(a)
    x = linalg.lu_solve((lu_, piv), b, trans=True)
    outs = [
        linalg.solve_triangular(a, b, lower=True),
        linalg.solve_triangular(a, b, trans=1, unit_diagonal=True),
        lu_,
        piv,
        linalg.pivot_to_permutation(piv),
        x,
        oxtensor.grad(x.sum(), a),
        oxtensor.grad(linalg.solve(a, b, assume_a="sym").sum(), a),
    ]
    value = np.array([[1.0, 2, 0, 1], [4, 1, 1, 0], [2, 8, 2, 1], [0, 1, 3, 5]])
    compare([a, b], outs, [value, rng().normal(size=4)], rtol=1e-9)
