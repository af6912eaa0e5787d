"""Sorting, running sums and products, and `IfElse` on JAX against the native VM."""

import numpy as np
import pytest

from tests.link.jax import SKIP_REASON

pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor
import oxtensor.tensor as ot
from oxtensor.ifelse import ifelse

from tests.link.jax.compare import compare, rng


def test_sort_and_argsort() -> None:
    x = ot.dmatrix("x")
    outs = [ot.sort(x), ot.sort(x, axis=0), ot.argsort(x), ot.sort(x, axis=None)]
    compare([x], outs, [rng().normal(size=(3, 5))])


def test_sort_gradient() -> None:
    x = ot.dmatrix("x")
    cost = (ot.sort(x, axis=1) * ot.arange(5)).sum()
    compare([x], oxtensor.grad(cost, x), [rng().normal(size=(3, 5))])


def test_cumulative() -> None:
    x = ot.dmatrix("x")
    outs = [ot.cumsum(x, axis=0), ot.cumprod(x, axis=1), ot.cumsum(x)]
    cost = ot.cumprod(x, axis=1).sum()
    outs.append(oxtensor.grad(cost, x))
    compare([x], outs, [rng().uniform(0.5, 1.5, size=(3, 4))])


@pytest.mark.parametrize("flag", [True, False])
def test_ifelse(flag: bool) -> None:
    c = ot.bscalar("c")
    x, y = ot.dvector("x"), ot.dvector("y")
    out = ifelse(c, [x * 2, y.sum()], [y - 1, x.sum()])
    cost = ifelse(c, (x**2).sum(), (x * y).sum())
    values = [np.int8(flag), rng().normal(size=3), rng(1).normal(size=3)]
    compare([c, x, y], [*out, oxtensor.grad(cost, x)], values)
