"""Indexing ops beyond their values: gradients (`verify_grad` for each op,
disconnected index inputs), `Rop` (the ops are linear), a hypothesis test of
random basic and advanced index tuples against NumPy, and pickling."""

import copy
import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.gradient import Rop, grad, verify_grad
from oxtensor.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
    advanced_inc_subtensor1,
    advanced_set_subtensor1,
    advanced_subtensor1,
)

from tests.helpers import assert_equal_computations, assert_matches

RNG = np.random.default_rng(42)
IDX = np.array([2, 0, 2, -1])


def point(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize(
    ("fun", "shapes"),
    [
        (lambda x: x[1:, ::-2], [(4, 5)]),
        (lambda x: x[-1, 2], [(3, 4)]),
        (lambda x: x[None, 1, ..., None], [(3, 4)]),
        (lambda x: x[IDX], [(3, 2)]),
        (lambda x: x[IDX, 1:], [(3, 2)]),
        (lambda x: x[:, np.array([[0, 1], [1, 1]])], [(3, 2)]),
        (lambda x: x[x > 0.1], [(3, 4)]),
        (lambda x: advanced_subtensor1(x, IDX), [(3, 2)]),
        (lambda x, y: ot.set_subtensor(x[1:, 0], y), [(3, 2), (2,)]),
        (lambda x, y: ot.inc_subtensor(x[1:, 0], y), [(3, 2), (2,)]),
        (lambda x, y: ot.inc_subtensor(x[::-1], y), [(3, 2), (2,)]),
        (lambda x, y: ot.inc_subtensor(x[IDX], y), [(3, 2), (4, 2)]),
        (lambda x, y: ot.set_subtensor(x[IDX[:2]], y), [(3, 2), (2,)]),
        (lambda x, y: ot.inc_subtensor(x[IDX, 1], y), [(3, 2), (4,)]),
        (lambda x, y: advanced_inc_subtensor1(x, y, IDX), [(3, 2), (4, 2)]),
        (lambda x, y: advanced_set_subtensor1(x, y, IDX[:2]), [(3, 2), (2, 2)]),
    ],
)
def test_verify_grad(fun, shapes):
    verify_grad(fun, [point(*s) for s in shapes], rng=RNG)


def test_grad_values_and_disconnected_indices():
    x, i, v = ot.dvector("x"), ot.lscalar("i"), ot.lvector("v")
    g = grad(x[v].sum() + x[i] * 2, x)
    f = oxtensor.function([x, i, v], g)
    want = np.zeros(4)
    np.add.at(want, [0, 0, 3], 1.0)
    want[1] += 2
    assert_matches(f(np.ones(4), 1, np.array([0, 0, -1])), want)
    y = ot.dscalar("y")
    gy = grad(ot.inc_subtensor(x[v], y).sum(), y)
    assert_matches(
        oxtensor.function([x, y, v], gy)(np.ones(4), 2.0, np.arange(3)), np.float64(3.0)
    )


def test_grad_builds_the_inc_op():
    x, v = ot.dmatrix("x"), ot.lvector("v")
    gx = grad(x[v].sum(), x)
    ops = {
        type(n.op).__name__ for n in oxtensor.graph.basic.applys_between([x, v], [gx])
    }
    assert "AdvancedIncSubtensor" in ops


def test_rop_is_the_op_on_tangents():
    x, y, v = ot.dmatrix("x"), ot.dvector("y"), ot.lvector("v")
    tx, ty = ot.dmatrix("tx"), ot.dvector("ty")
    a, b, tav, tbv = point(3, 2), point(2), point(3, 2), point(2)
    idx = np.array([0, 0, 2])
    for out, want in [
        (x[1:, ::-1], tav[1:, ::-1]),
        (x[v], tav[idx]),
        (advanced_subtensor1(x, v), tav[idx]),
    ]:
        r = Rop(out, x, tx)
        assert_matches(
            oxtensor.function([x, tx, v], r, on_unused_input="ignore")(a, tav, idx),
            want,
        )
    want = tav.copy()
    np.add.at(want, idx, tbv)
    r = Rop(ot.inc_subtensor(x[v], y), [x, y], [tx, ty])
    f = oxtensor.function([x, y, tx, ty, v], r, on_unused_input="ignore")
    assert_matches(f(a, b, tav, tbv, idx), want)


@st.composite
def index_tuples(draw):
    """A random index for an array of shape (4, 3, 5): ints, slices, None,
    Ellipsis, integer arrays and boolean masks."""
    shape = (4, 3, 5)
    items, axis = [], 0
    n = draw(st.integers(0, 3))
    ellipsis = draw(st.booleans())
    for _ in range(n):
        if axis >= len(shape):
            break
        kind = draw(st.sampled_from(["int", "slice", "none", "array", "mask"]))
        size = shape[axis]
        if kind == "int":
            items.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-size - 2, size + 2)
            step = st.none() | st.integers(-3, 3).filter(lambda s: s != 0)
            items.append(slice(draw(bound), draw(bound), draw(step)))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "array":
            length = draw(st.integers(0, 4))
            values = draw(
                st.lists(st.integers(-size, size - 1), min_size=length, max_size=length)
            )
            items.append(np.array(values, dtype="int64"))
        else:
            items.append(
                np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)))
            )
        axis += 1
    # An Ellipsis standing for no axes still separates NumPy's advanced
    # indices (PyTensor and oxtensor drop it first): only draw useful ones.
    if ellipsis and axis < len(shape):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return tuple(items)


def index_and_run(a, idx):
    x = ot.tensor("x", dtype="float64", shape=(None,) * a.ndim)
    return oxtensor.function([x], x[idx])(a)


@given(index_tuples())
def test_hypothesis_indexing_matches_numpy(idx):
    a = np.arange(60.0).reshape(4, 3, 5)
    try:
        want = a[idx]
    except IndexError:
        # Raised at graph build when shapes are static, else at run time.
        with pytest.raises(IndexError):
            index_and_run(a, idx)
        return
    x = ot.tensor("x", dtype="float64", shape=(None, None, None))
    y = ot.tensor("y", dtype="float64", shape=(None,) * want.ndim)
    outs = [x[idx]]
    if all(a is not None for a in idx):
        outs += [ot.inc_subtensor(x[idx], y), ot.set_subtensor(x[idx], y)]
    vals = np.arange(want.size, dtype="float64").reshape(want.shape) + 100
    got = oxtensor.function([x, y], outs, on_unused_input="ignore")(a, vals)
    assert_matches(got[0], want)
    assert x[idx].type.ndim == want.ndim
    static = ot.tensor("s", dtype="float64", shape=(4, 3, 5))[idx].type.shape
    assert all(s is None or s == w for s, w in zip(static, want.shape, strict=True))
    if len(got) > 1:
        inc, setv = a.copy(), a.copy()
        np.add.at(inc, idx, vals)
        setv[idx] = vals
        assert_matches(got[1], inc)
        assert_matches(got[2], setv)


OPS = [
    Subtensor((0, slice(1, None, 2))),
    IncSubtensor((slice(None, 0, None),), set_instead_of_inc=True),
    AdvancedSubtensor1(),
    AdvancedIncSubtensor1(set_instead_of_inc=True),
    AdvancedSubtensor((slice(None, None, None), 0)),
    AdvancedIncSubtensor((0, 1)),
]


@pytest.mark.parametrize("op", OPS, ids=str)
@pytest.mark.parametrize(
    "trip", [lambda o: pickle.loads(pickle.dumps(o)), copy.deepcopy]
)
def test_ops_pickle_and_copy(op, trip):
    again = trip(op)
    assert again == op
    assert type(again) is type(op)
    assert str(again) == str(op)
    assert hash(again) == hash(op)


def test_graph_pickle_round_trip():
    x, v, i = ot.dmatrix("x"), ot.lvector("v"), ot.lscalar("i")
    out = ot.inc_subtensor(x[v, i:], x[0, i:]) + x[x > 0].sum()
    again, *roots = pickle.loads(pickle.dumps((out, x, v, i)))
    assert_equal_computations([again], [out], in_xs=roots, in_ys=[x, v, i])
    a = point(3, 4)
    f = oxtensor.function([x, v, i], out)
    want = a.copy()
    np.add.at(want, (np.array([1, 1]), np.s_[1:]), a[0, 1:])
    assert_matches(f(a, np.array([1, 1]), 1), want + a[a > 0].sum())


SHAPE_CASES = [
    (lambda x, i: x[1:, ::-2], (3, 4, 2)),
    (lambda x, i: x[i:, -1], (3, 4, 2)),
    (lambda x, i: x[:i:-1, ..., 1], (5, 4, 2)),
    (lambda x, i: x[::i], (5, 4, 2)),
    (lambda x, i: x[-7:i:2], (5, 4, 2)),
    (lambda x, i: x[None, 1], (3, 4, 2)),
    (lambda x, i: x[np.array([0, 2, 2])], (3, 4, 2)),
    (lambda x, i: x[:, np.array([[0], [1]]), np.array([1, 0, 1])], (3, 4, 2)),
    (lambda x, i: x[np.array([0, 1]), :, np.array([1, 1])], (3, 4, 2)),
    (lambda x, i: x[x > 0], (3, 4, 2)),
    (lambda x, i: x[x.sum(axis=2) > 0], (3, 4, 2)),
    (lambda x, i: x[1:, np.array([3, 0])], (3, 4, 2)),
    (lambda x, i: advanced_subtensor1(x, np.array([2, 0])), (3, 4, 2)),
    (lambda x, i: ot.set_subtensor(x[i:], 1.0), (3, 4, 2)),
    (lambda x, i: ot.inc_subtensor(x[np.array([0, 0])], 1.0), (3, 4, 2)),
    (lambda x, i: advanced_inc_subtensor1(x, 1.0, np.array([1])), (3, 4, 2)),
]


@pytest.mark.parametrize(("fun", "shape"), SHAPE_CASES)
@pytest.mark.parametrize("i", [-2, 1, 3])
def test_infer_shape(fun, shape, i):
    from tests.helpers import check_infer_shape

    x, iv = ot.dtensor3("x"), ot.lscalar("i")
    out = fun(x, iv)
    ops = (Subtensor, AdvancedSubtensor, AdvancedSubtensor1, IncSubtensor)
    ops += (AdvancedIncSubtensor, AdvancedIncSubtensor1)
    check_infer_shape([x, iv], [out], [point(*shape), i], ops)


@pytest.mark.parametrize("inc", [advanced_inc_subtensor1, advanced_set_subtensor1])
def test_advanced_inc_subtensor1_refuses_runtime_broadcasting(inc):
    # As PyTensor's: y of a type without broadcastable axes is not broadcast
    # along an axis that is 1 only at run time. (Both names are the ops.)
    assert isinstance(inc, AdvancedIncSubtensor1)
    y = ot.matrix("y", dtype="float64", shape=(None, None))
    rows = np.repeat(np.arange(10), 2)
    f = oxtensor.function([y], inc(ot.zeros((10, 5)), y, rows))
    assert f(np.ones((20, 5))).shape == (10, 5)
    for bad in (np.ones((1, 5)), np.ones((20, 1))):
        with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
            f(bad)
    # Broadcasting that the type declares is fine.
    row = ot.matrix("row", dtype="float64", shape=(1, None))
    g = oxtensor.function([row], inc(ot.zeros((10, 5)), row, rows))
    want = np.zeros((10, 5))
    if inc is advanced_inc_subtensor1:
        np.add.at(want, rows, np.ones((1, 5)))
    else:
        want[rows] = 1.0
    np.testing.assert_array_equal(g(np.ones((1, 5))), want)
