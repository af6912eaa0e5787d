"""Reductions and the softmax family on JAX against the native VM."""

import numpy as np
import pytest

from tests.link.jax import SKIP_REASON

pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor
import oxtensor.tensor as ot
from oxtensor.tensor import special

from tests.link.jax.compare import compare, rng


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
def test_careduce(axis) -> None:
    x = ot.dtensor3("x")
    outs = [x.sum(axis=axis), x.prod(axis=axis), x.max(axis=axis), x.min(axis=axis)]
    outs += [(x > 0).all(axis=axis), (x > 0).any(axis=axis), x.mean(axis=axis)]
    compare([x], outs, [rng().normal(size=(2, 3, 4))])


def test_integer_sum_widens() -> None:
    i = ot.bvector("i")
    compare([i], i.sum(), [np.array([100, 100, 100], dtype="int8")])


@pytest.mark.parametrize("axis", [None, 0, (0, 1)])
def test_var_and_arg_reductions(axis) -> None:
    x = ot.dtensor3("x")
    outs = [
        x.var(axis=axis),
        x.std(axis=axis),
        ot.argmax(x, axis=axis),
        x.argmin(axis=axis),
    ]
    compare([x], outs, [rng().normal(size=(3, 4, 5))])


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_family(axis) -> None:
    x = ot.dmatrix("x")
    outs = [
        special.softmax(x, axis=axis),
        special.log_softmax(x, axis=axis),
        ot.logsumexp(x, axis=axis),
    ]
    compare([x], outs, [rng().normal(size=(3, 4)) * 10])


def test_reduction_gradients() -> None:
    x = ot.dmatrix("x")
    cost = (
        special.log_softmax(x, axis=-1).sum()
        + x.max()
        + x.var()
        + ot.logsumexp(x).sum()
    )
    compare([x], [cost, oxtensor.grad(cost, x)], [rng().normal(size=(3, 4))])
