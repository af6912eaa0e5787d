"""``infer_shape`` of the shape, creation and joining ops (`SpecifyShape`,
`Alloc`, `AllocEmpty`, `ARange`, `Eye`, `MakeVector`, `Join`, `Split`,
`Repeat`), checked with ``check_infer_shape``: the inferred lengths match
the computed ones without running the op."""

import numpy as np
import oxtensor.tensor as ot
import pytest

from tests.helpers import check_infer_shape

RNG = np.random.default_rng(0)


def test_specify_shape():
    x, n = ot.dmatrix("x"), ot.iscalar("n")
    out = ot.specify_shape(x, (n, None))
    check_infer_shape([x, n], [out], [RNG.random((2, 3)), 2], ot.SpecifyShape)


def test_alloc_family():
    n = ot.iscalar("n")
    v = ot.dvector("v")
    outs = [ot.alloc(v, n, 3), ot.zeros((2, n)), ot.empty((n, 4), "int8")]
    check_infer_shape([v, n], outs, [RNG.random(3), 5], (ot.Alloc, ot.AllocEmpty))


@pytest.mark.parametrize(
    "args", [(0, 10, 1), (10, 0, -3), (5, 0, 1), (1, 10, 4)], ids=str
)
def test_arange_symbolic(args):
    start, stop, step = ot.lscalar("a"), ot.lscalar("b"), ot.lscalar("c")
    out = ot.arange(start, stop, step)
    check_infer_shape([start, stop, step], [out], list(args), ot.ARange)


def test_arange_float_and_eye():
    a = ot.dscalar("a")
    n, m, k = ot.iscalar("n"), ot.iscalar("m"), ot.iscalar("k")
    outs = [ot.arange(a, 4.0, 0.5), ot.eye(n, m, k)]
    check_infer_shape([a, n, m, k], outs, [1.2, 3, 5, -1], (ot.ARange, ot.Eye))


def test_make_vector():
    a, b = ot.dscalar("a"), ot.dscalar("b")
    check_infer_shape([a, b], [ot.stack([a, b, a])], [1.0, 2.0], ot.MakeVector)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_join_constant_axis(axis):
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    values = [RNG.random((2, 3)), RNG.random((2, 3))]
    check_infer_shape([x, y], [ot.join(axis, x, y, x)], values, ot.Join)


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_join_and_split_symbolic_axis(axis):
    x, a = ot.dmatrix("x"), ot.iscalar("a")
    s = ot.lvector("s")
    outs = [ot.join(a, x, x), *ot.split(x, s, n_splits=2, axis=a)]
    values = [RNG.random((4, 4)), axis, np.array([1, 3])]
    check_infer_shape([x, a, s], outs, values, ot.Join)


def test_split_constant_sizes():
    x = ot.dtensor3("x")
    outs = ot.split(x, [2, 0, 1], n_splits=3, axis=1)
    check_infer_shape([x], outs, [RNG.random((2, 3, 4))], ot.Split)


@pytest.mark.parametrize("repeats", [2, [1, 0, 3]], ids=["scalar", "vector"])
def test_repeat(repeats):
    x = ot.dmatrix("x")
    r = ot.as_tensor_variable(np.asarray(repeats, dtype="int64"))
    check_infer_shape([x], [ot.Repeat(1)(x, r)], [RNG.random((2, 3))], ot.Repeat)


def test_the_alloc_inside_tile():
    # `tile` ends in a Reshape to a MakeVector, whose infer_shape only knows
    # constant shapes; the Alloc before it is checked here.
    x = ot.dtensor3("x")
    alloc = ot.tile(x, (2, 1, 3)).owner.inputs[0]
    check_infer_shape([x], [alloc], [RNG.random((2, 3, 4))], ot.Alloc)


@pytest.mark.parametrize("counts", [[2], [1, 0, 3]], ids=["one", "each"])
def test_repeat_symbolic_counts(counts):
    x, r = ot.dmatrix("x"), ot.lvector("r")
    out = ot.Repeat(1)(x, r)
    check_infer_shape([x, r], [out], [RNG.random((2, 3)), np.array(counts)], ot.Repeat)
