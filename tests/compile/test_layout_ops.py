"""`compile.ops` (`ViewOp`, `DeepCopyOp`, `wrap_py`/`as_op`), `raise_op`
(`CheckAndRaise`, `Assert`) and `tensor.math._allclose`, against NumPy."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.compile.ops import (
    DeepCopyOp,
    ViewOp,
    as_op,
    deep_copy_op,
    view_op,
    wrap_py,
)
from oxtensor.raise_op import Assert, CheckAndRaise, assert_op
from oxtensor.tensor.math import _allclose
from oxtensor.tensor.type import dmatrix, dvector


@wrap_py([dmatrix, dvector], dvector)
def cumprod_plus(a, b):
    """Module level, so the op pickles by name."""
    return np.cumprod(a) + b


def test_view_and_deep_copy_are_identities_with_gradients():
    x = ot.dvector("x")
    v = np.array([1.0, -2.0, 3.0])
    f = oxtensor.function([x], [view_op(x) * 2, deep_copy_op(x)])
    out = f(v)
    np.testing.assert_array_equal(out[0], v * 2)
    np.testing.assert_array_equal(out[1], v)
    assert not np.may_share_memory(out[1], v)
    g = oxtensor.grad((deep_copy_op(x) ** 2).sum(), x)
    np.testing.assert_allclose(g.eval({x: v}), 2 * v)
    assert isinstance(view_op, ViewOp)
    assert isinstance(deep_copy_op, DeepCopyOp)
    assert ViewOp().view_map == {0: [0]}


def test_deep_copy_does_not_alias_even_when_both_ends_borrow():
    # Borrowing on both sides lets the call path hand the argument back:
    # only the op itself can make the copy.
    x = ot.dvector("x")
    v = np.arange(3.0)
    f = oxtensor.function(
        [oxtensor.In(x, borrow=True)], oxtensor.Out(deep_copy_op(x), borrow=True)
    )
    out = f(v)
    np.testing.assert_array_equal(out, v)
    assert not np.may_share_memory(out, v)
    assert str(deep_copy_op) == "DeepCopyOp"
    assert deep_copy_op == DeepCopyOp()


def test_wrap_py_runs_the_function_and_pickles():
    m, y = ot.dmatrix("m"), ot.dvector("y")
    out = cumprod_plus(m, y)
    f = oxtensor.function([m, y], out)
    a, b = np.array([[1.5, 5.0], [2.0, 2.0]]), np.array([1.0, 100.0, 2.0, 200.0])
    np.testing.assert_allclose(f(a, b), np.cumprod(a) + b)
    again = pickle.loads(pickle.dumps(out))
    assert again.owner.op == out.owner.op
    with pytest.raises(ValueError, match="takes 2 inputs"):
        cumprod_plus(m)


def test_wrap_py_infer_shape_and_as_op_warns():
    def shapes(fgraph, node, input_shapes):
        return [input_shapes[0]]

    @wrap_py(dvector, dvector, shapes)
    def twice(a):
        return 2 * a

    x = ot.dvector("x")
    np.testing.assert_array_equal(twice(x).eval({x: np.arange(3.0)}), [0, 2, 4])
    with pytest.warns(FutureWarning):
        half = as_op(dvector, dvector)(lambda a: a / 2)
    np.testing.assert_array_equal(half(x).eval({x: np.arange(3.0)}), [0, 0.5, 1])


def test_assert_passes_value_and_raises():
    x = ot.dvector("x")
    f = oxtensor.function([x], assert_op(x, (x > 0).all()) * 2)
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
    with pytest.raises(AssertionError, match="Assert failed"):
        f(-np.ones(2))
    g = oxtensor.grad((Assert("m")(x, x > 0) ** 2).sum(), x)
    np.testing.assert_allclose(g.eval({x: np.array([1.0, 2.0])}), [2.0, 4.0])
    assert Assert("a") == Assert("a")
    assert Assert("a") != Assert("b")


def test_check_and_raise_raises_the_given_class():
    x = ot.dvector("x")
    f = oxtensor.function([x], CheckAndRaise(ValueError, "negative")(x, x >= 0))
    np.testing.assert_array_equal(f(np.array([0.0, 1.0])), [0.0, 1.0])
    with pytest.raises(ValueError, match="negative"):
        f(np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="Exception subclass"):
        CheckAndRaise(int)
    with pytest.raises(TypeError):
        assert_op(x, x)


def test_allclose_tolerance_follows_the_narrowest_float():
    assert _allclose(np.float32([1.0]), np.array([1.000001]))
    assert not _allclose(np.array([1.0]), np.array([1.001]))
    assert _allclose(np.float16([1.0]), np.float16([1.0005]))
    assert _allclose([1.0], [1.1], rtol=0.2)
