"""The inplace ``CumOp`` (``cumsum``, ``cumprod``) and ``SortOp`` of the
``FAST_RUN`` inplace phase (never ``FAST_COMPILE``): the op gets
``inplace=True`` (``destroy_map = {0: [0]}``) where the DestroyHandler and
the Supervisor accept it, and then computes over its input's own buffer.
PyTensor 3.x has no inplace variant of either op (``docs/for-pytensor-users.md``)."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor import In, function
from oxtensor.tensor.extra_ops import CumOp
from oxtensor.tensor.sort import ArgSortOp, SortOp

from tests.compile.test_inplace_phase import assert_readers_first, destroyers

OPS = {
    "cumsum0": lambda v: ot.cumsum(v, axis=0),
    "cumsum1": lambda v: ot.cumsum(v, axis=1),
    "cumprod0": lambda v: ot.cumprod(v, axis=0),
    "cumsum_flat": ot.cumsum,
    "sort0": lambda v: ot.sort(v, axis=0),
    "sort1": lambda v: ot.sort(v, axis=-1),
}


def running_destroyers(f):
    return [n for n in destroyers(f) if isinstance(n.op, (CumOp, SortOp))]


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("shape", [(3, 4), (300, 250)])
def test_an_intermediate_is_overwritten_in_fast_run_only(name, shape):
    x = ot.dmatrix("x")
    out = OPS[name](ot.tanh(x) * 1.5)
    fast = function([x], out, mode="FAST_RUN")
    slow = function([x], out, mode="FAST_COMPILE")
    [node] = running_destroyers(fast)
    assert node.op.inplace
    assert node.op.destroy_map == {0: [0]}
    assert destroyers(slow) == []
    value = np.random.default_rng(1).normal(size=shape)
    kept = value.copy()
    for _ in range(2):
        np.testing.assert_allclose(fast(value), slow(value), rtol=1e-13)
        np.testing.assert_array_equal(value, kept)


def test_dprint_shows_the_destroy_map():
    x = ot.dvector("x")
    f = function([x], [ot.cumsum(ot.exp(x)), ot.sort(x * 2)], mode="FAST_RUN")
    text = oxtensor.dprint(f, print_destroy_map=True, file="str")
    assert text.count("d={0: [0]}") == 2, text


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_callers_array_is_written_only_when_mutable(name):
    x = ot.dmatrix("x")
    kept_f = function([x], OPS[name](x), mode="FAST_RUN")
    assert running_destroyers(kept_f) == []
    f = function([In(x, mutable=True)], OPS[name](x), mode="FAST_RUN")
    [node] = running_destroyers(f)
    # The flat cumsum destroys x through its reshaped view.
    assert node.inputs[0].owner is None or name == "cumsum_flat"
    rng = np.random.default_rng(2)
    for shape in [(4, 5), (200, 300)]:
        value = rng.normal(size=shape)
        want = kept_f(value.copy())
        unchanged = value.copy()
        got = kept_f(value)
        np.testing.assert_array_equal(value, unchanged)
        got = f(value)
        np.testing.assert_array_equal(got, want)
        # Reused, not copied: the caller's buffer now holds the result (the
        # flat cumsum's, through the reshaped view it destroys, in C order).
        np.testing.assert_array_equal(value.reshape(want.shape), want)
        # A Fortran-ordered argument is not overwritten in place here (the
        # kernels write C order); the result is the same.
        fortran = np.asfortranarray(unchanged)
        np.testing.assert_array_equal(f(fortran), want)


def test_readers_of_the_destroyed_value_run_first():
    x = ot.dmatrix("x")
    e = ot.exp(x)
    outs = [ot.cumsum(e, axis=0), e.sum(axis=0), ot.sort(e.T * 1.0, axis=0), e.max()]
    fast = function([x], outs, mode="FAST_RUN")
    slow = function([x], outs, mode="FAST_COMPILE")
    assert running_destroyers(fast)
    assert_readers_first(fast.maker.fgraph)
    value = np.random.default_rng(3).normal(size=(50, 40))
    for a, b in zip(fast(value), slow(value), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13)


def test_a_value_whose_view_is_an_output_is_not_destroyed():
    x = ot.dmatrix("x")
    e = ot.exp(x)
    f = function([x], [ot.cumsum(e, axis=0), e[0]], mode="FAST_RUN")
    assert running_destroyers(f) == []
    value = np.random.default_rng(4).normal(size=(6, 3))
    got, row = f(value)
    np.testing.assert_allclose(got, np.cumsum(np.exp(value), axis=0), rtol=1e-13)
    np.testing.assert_allclose(row, np.exp(value[0]), rtol=1e-13)


def test_argsort_is_never_inplace():
    x = ot.dvector("x")
    f = function([In(x, mutable=True)], ot.argsort(x), mode="FAST_RUN")
    assert destroyers(f) == []
    value = np.array([3.0, 1.0, 2.0])
    np.testing.assert_array_equal(f(value), [1, 2, 0])
    np.testing.assert_array_equal(value, [3.0, 1.0, 2.0])


def test_ops_carry_the_flag_and_pickle_with_it():
    assert CumOp(0, "add").destroy_map == {}
    assert not CumOp(0, "mul").inplace
    for op in [CumOp(1, "mul", inplace=True), SortOp("mergesort", inplace=True)]:
        assert op.inplace
        assert op.destroy_map == {0: [0]}
        back = pickle.loads(pickle.dumps(op))
        assert back == op
        assert back.inplace
        pure = type(op)(**{k: getattr(op, k) for k in op.__props__})
        assert pure != op
        assert not pure.inplace
    assert SortOp.__props__ == ("kind",)
    assert CumOp.__props__ == ("axis", "mode")
    assert not ArgSortOp(inplace=True).inplace
    assert ArgSortOp(inplace=True).destroy_map == {}
