"""Shape, creation, joining and indexing ops on JAX against the native VM,
and the error when JAX needs a shape that is only known at run time."""

import numpy as np
import pytest

from tests.link.jax import SKIP_REASON

pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor
import oxtensor.tensor as ot

from tests.link.jax.compare import compare, rng


def test_reshape_dimshuffle_shape() -> None:
    x = ot.dmatrix("x")
    outs = [
        x.reshape((x.shape[1], x.shape[0])),
        x.reshape((-1,)),
        x.T,
        x.dimshuffle("x", 1, 0, "x"),
        x.shape,
        x[None, :, None].squeeze(),
    ]
    compare([x], outs, [rng().normal(size=(3, 4))])


def test_creation_and_joining() -> None:
    x, y = ot.dmatrix("x"), ot.dvector("y")
    outs = [
        ot.alloc(y, 2, y.shape[0]),
        ot.zeros_like(x) + ot.ones((3, 1)),
        ot.concatenate([x, x * 2], axis=1),
        ot.stack([y, y + 1]),
        ot.arange(5) * 2,
        ot.eye(3, 4, 1),
        ot.split(x, [1, 2], n_splits=2, axis=0)[1],
        ot.repeat(y, 2),
    ]
    compare([x, y], outs, [rng().normal(size=(3, 4)), rng(1).normal(size=4)])


def test_shape_op_gradients() -> None:
    x, y = ot.dmatrix("x"), ot.dvector("y")
    parts = ot.concatenate([x.reshape((-1,)), ot.alloc(y, 2, 4).T.flatten(), y[::-1]])
    cost = (parts * ot.arange(parts.shape[0])).sum() + ot.stack([y, y * 2]).max()
    values = [rng().normal(size=(3, 4)), rng(1).normal(size=4)]
    compare([x, y], [cost, *oxtensor.grad(cost, [x, y])], values)


def test_indexing() -> None:
    x = ot.dmatrix("x")
    i = ot.lscalar("i")
    idx = ot.lvector("idx")
    outs = [
        x[1:, ::2],
        x[i],
        x[i, 1:3],
        x[idx],
        x[idx, 1],
        x[:, idx],
        ot.set_subtensor(x[0, 1:], 5.0),
        ot.inc_subtensor(x[idx], 1.0),
        ot.inc_subtensor(x[idx, idx], 2.0),
        ot.take_along_axis(x, ot.argsort(x, axis=1), axis=1),
    ]
    values = [rng().normal(size=(3, 4)), np.int64(2), np.array([0, 2, 0])]
    compare([x, i, idx], outs, values)


def test_indexing_gradient() -> None:
    x, idx = ot.dmatrix("x"), ot.lvector("idx")
    cost = (x[idx] ** 2).sum() + x[1:, :2].sum()
    compare(
        [x, idx],
        oxtensor.grad(cost, x),
        [rng().normal(size=(3, 4)), np.array([0, 2, 0])],
    )


def test_a_run_time_shape_is_named() -> None:
    from oxtensor.link.jax import JAXUnsupportedError

    x, n = ot.dvector("x"), ot.lscalar("n")
    f = oxtensor.function([x, n], ot.alloc(x, n, x.shape[0]), mode="JAX")
    with pytest.raises(JAXUnsupportedError, match=r"JAX needs input 1 \(n\) of Alloc"):
        f(np.ones(3), 2)


def test_values_known_while_tracing() -> None:
    """A boolean mask, counts and nonzero positions fix output shapes; when
    they are constants (known while tracing) JAX gets them."""
    x = ot.dvector("x")
    mask = ot.constant(np.array([True, False, True, True]))
    ints = ot.constant(np.array([0, 2, 2, 5]))
    outs = [
        x[mask],
        ot.bincount(ints) * 1.0 + x.sum(),
        ot.nonzero(mask)[0] + ot.cast(x.sum(), "int64"),
        ot.specify_shape(x, (4,)) * 2,
    ]
    compare([x], outs, [rng().normal(size=4)])


def test_diagonals() -> None:
    x, t, v = ot.dmatrix("x"), ot.dtensor3("t"), ot.dvector("v")
    outs = [
        ot.diagonal(x),
        ot.diagonal(x, 1),
        ot.diagonal(t, -1, 0, 2),
        ot.diag(v),
        ot.diag(v, -2),
        ot.alloc_diag(v, 1),
    ]
    data = rng()
    args = [data.normal(size=(3, 4)), data.normal(size=(2, 3, 4)), data.normal(size=3)]
    compare([x, t, v], outs, args)
