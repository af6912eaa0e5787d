"""What the program does with the inplace phase's decisions at run time:
every output of a fused multi-output node that destroys an input is
written into that input's buffer (one grant per destroying output), and
the flat ``cumsum`` of a mutable matrix, which destroys a reshaped view of
the argument, runs in the argument's own buffer.

Whatever is granted: results equal ``FAST_COMPILE``'s and NumPy's, and a
caller's array is modified only when its input is ``In(x, mutable=True)``.
An output that aliases an argument is copied unless both say ``borrow``
(``In(borrow=True)``, ``Out(borrow=True)``, PyTensor's ``insert_deepcopy``),
so the tests that look at memory borrow. Memory is measured with the
core's buffer counter (``_core._alloc_stats``: buffers made, their bytes,
the largest), which is deterministic."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import In, Out, _core, function
from oxtensor.tensor.extra_ops import CumOp

from tests.compile.test_inplace_phase import (
    assert_readers_first,
    assert_same,
    destroyers,
)

N = 300_000  # elements: past a fused block and the parallel threshold


def two_outputs(x, y):
    """One fused node of two outputs over ``x`` and ``y`` (``a`` is read
    twice, so it is an output of the group)."""
    a = ot.exp(x) * y
    return [a, a - ot.sin(y)]


def numpy_two_outputs(x, y):
    a = np.exp(x) * y
    return [a, a - np.sin(y)]


def compiled(mutable, ndim=1, borrow=False):
    """FAST_RUN with ``x`` and ``y`` mutable as asked, and FAST_COMPILE."""
    kind = ot.dvector if ndim == 1 else ot.dmatrix
    x, y = kind("x"), kind("y")
    ins = [
        In(v, mutable=m, borrow=borrow) for v, m in zip((x, y), mutable, strict=True)
    ]
    outs = [Out(o, borrow=borrow) for o in two_outputs(x, y)]
    fast = function(ins, outs, mode="FAST_RUN")
    slow = function([x, y], two_outputs(x, y), mode="FAST_COMPILE")
    return fast, slow


def arguments(n, seed=0, shape=None):
    rng = np.random.default_rng(seed)
    size = shape or (n,)
    return [rng.uniform(-1.0, 1.0, size=size), rng.uniform(0.5, 2.0, size=size)]


def made_by_call(f, args):
    """``(buffers, bytes, largest)`` the engine makes for one call of
    ``f``, warm (a first call on copies fills its pool)."""
    f(*[a.copy() for a in args])
    before = _core._alloc_stats(reset_largest=True)
    out = f(*args)
    buffers, made, _, largest = _core._alloc_stats()
    del out
    return buffers - before[0], made - before[1], largest


def test_both_outputs_of_a_fused_node_destroy_an_input():
    fast, _ = compiled((True, True))
    [node] = [n for n in destroyers(fast) if len(n.outputs) == 2]
    assert sorted(node.op.destroy_map) == [0, 1]
    assert sorted(i for ins in node.op.destroy_map.values() for i in ins) == [0, 1]
    assert_readers_first(fast.maker.fgraph)


@pytest.mark.parametrize("n", [1, 5, 2048, 2049, N])
@pytest.mark.parametrize(
    "mutable", [(True, True), (True, False), (False, True), (False, False)]
)
def test_results_match_and_only_mutable_arguments_change(n, mutable):
    fast, slow = compiled(mutable)
    args = arguments(n, seed=n)
    kept = [a.copy() for a in args]
    want = numpy_two_outputs(*kept)
    assert_same(slow(*[a.copy() for a in args]), want)
    got = fast(*args)
    assert_same(got, want)
    for a, k, m in zip(args, kept, mutable, strict=True):
        if not m:
            np.testing.assert_array_equal(a, k)


@pytest.mark.parametrize("n", [5, 2048, N])
def test_each_granted_output_is_its_inputs_array(n):
    """Both outputs land in the arguments' memory: output 0 in one
    argument, output 1 in the other, each holding its values."""
    fast, _ = compiled((True, True), borrow=True)
    args = arguments(n, seed=1)
    want = numpy_two_outputs(*[a.copy() for a in args])
    got = fast(*args)
    assert_same(got, want)
    held = sorted(
        (j, k)
        for j, out in enumerate(got)
        for k, a in enumerate(args)
        if np.shares_memory(out, a)
    )
    assert [j for j, _ in held] == [0, 1], held
    assert {k for _, k in held} == {0, 1}, held
    for j, k in held:
        np.testing.assert_array_equal(args[k], got[j])


def test_a_matrix_two_output_node_writes_in_place():
    fast, slow = compiled((True, True), ndim=2, borrow=True)
    args = arguments(0, seed=2, shape=(400, 300))
    want = slow(*[a.copy() for a in args])
    got = fast(*args)
    assert_same(got, want)
    assert all(any(np.shares_memory(o, a) for a in args) for o in got)


def test_two_granted_outputs_allocate_no_output_array():
    """The two outputs go into the two arguments: the call makes no
    buffer of an output's size (only block scratch). With one argument
    mutable, the other output is one new array."""
    args = arguments(N, seed=3)
    nbytes = args[0].nbytes
    both, _ = compiled((True, True), borrow=True)
    buffers, made, largest = made_by_call(both, args)
    assert largest < nbytes, (buffers, made, largest)
    assert made < nbytes, (buffers, made, largest)
    one, _ = compiled((True, False), borrow=True)
    buffers, made, largest = made_by_call(one, arguments(N, seed=3))
    assert largest == nbytes, (buffers, made, largest)
    assert nbytes <= made < 2 * nbytes, (buffers, made, largest)


def test_outputs_in_unborrowed_arguments_are_copied_out():
    """Without ``borrow`` the arguments are still overwritten (they are
    mutable) but the caller gets arrays of its own."""
    fast, _ = compiled((True, True))
    args = arguments(N, seed=9)
    want = numpy_two_outputs(*[a.copy() for a in args])
    got = fast(*args)
    assert_same(got, want)
    assert not any(np.shares_memory(o, a) for o in got for a in args)
    assert sorted(float(a[0]) for a in args) == sorted(float(o[0]) for o in got)


def test_the_same_array_as_both_mutable_arguments_is_not_written_twice():
    fast, _ = compiled((True, True))
    value = np.linspace(0.5, 1.5, N)
    want = numpy_two_outputs(value.copy(), value.copy())
    assert_same(fast(value, value), want)


def flat_cumsum(mutable, borrow=False):
    x = ot.dmatrix("x")
    ins = [In(x, mutable=mutable, borrow=borrow)]
    f = function(ins, Out(ot.cumsum(x), borrow=borrow), mode="FAST_RUN")
    slow = function([x], ot.cumsum(x), mode="FAST_COMPILE")
    return f, slow


@pytest.mark.parametrize("shape", [(1, 1), (4, 5), (500, 400)])
def test_a_flat_cumsum_runs_in_a_mutable_argument(shape):
    f, slow = flat_cumsum(True, borrow=True)
    [node] = [n for n in destroyers(f) if isinstance(n.op, CumOp)]
    # It destroys x through the reshaped view.
    assert node.inputs[0].owner is not None
    value = np.random.default_rng(4).normal(size=shape)
    want = np.cumsum(value)
    np.testing.assert_allclose(slow(value.copy()), want, rtol=1e-12)
    got = f(value)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert np.shares_memory(got, value)
    np.testing.assert_array_equal(value.reshape(-1), got)


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_flat_cumsum_leaves_a_protected_argument_alone(order):
    f, _ = flat_cumsum(False)
    assert [n for n in destroyers(f) if n.inputs[0].owner is None] == []
    value = np.asarray(np.random.default_rng(5).normal(size=(300, 200)), order=order)
    kept = value.copy()
    got = f(value)
    np.testing.assert_allclose(got, np.cumsum(kept), rtol=1e-12)
    np.testing.assert_array_equal(value, kept)
    assert not np.shares_memory(got, value)


def test_a_flat_cumsum_of_a_fortran_argument_copies_it_first():
    """A Fortran-ordered matrix's flat view is a copy (C order): the
    running sum goes there, and the argument keeps its values."""
    f, _ = flat_cumsum(True)
    value = np.asfortranarray(np.random.default_rng(6).normal(size=(30, 20)))
    kept = value.copy()
    got = f(value)
    np.testing.assert_allclose(got, np.cumsum(kept), rtol=1e-12)
    np.testing.assert_array_equal(value, kept)


def test_a_flat_cumsum_of_a_mutable_argument_allocates_nothing_large():
    shape = (600, 500)
    rng = np.random.default_rng(7)
    f, _ = flat_cumsum(True, borrow=True)
    value = rng.normal(size=shape)
    buffers, made, largest = made_by_call(f, [value])
    assert largest < value.nbytes, (buffers, made, largest)
    kept_f, _ = flat_cumsum(False, borrow=True)
    buffers, made, largest = made_by_call(kept_f, [rng.normal(size=shape)])
    assert largest == value.nbytes, (buffers, made, largest)


def test_a_flat_cumsum_with_another_reader_of_the_argument():
    """``x.sum()`` reads ``x`` too: it runs before the running sum
    overwrites it, and gives the sum of the original values."""
    x = ot.dmatrix("x")
    outs = [ot.cumsum(x), x.sum(), ot.exp(x).max()]
    f = function([In(x, mutable=True)], outs, mode="FAST_RUN")
    assert_readers_first(f.maker.fgraph)
    value = np.random.default_rng(8).normal(size=(300, 200))
    kept = value.copy()
    got = f(value)
    want = [np.cumsum(kept), kept.sum(), np.exp(kept).max()]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10)
