"""`ScalarLoop`: values against a plain Python loop, while loops, constants,
rebuilt dtypes, nesting, `Elemwise(ScalarLoop)` over broadcast tensors,
pickling, and the errors PyTensor gives."""

import pickle

import numpy as np
import oxtensor
import pytest
from oxtensor import function
from oxtensor.scalar import (
    Composite,
    ScalarLoop,
    cos,
    exp,
    float16,
    float32,
    float64,
    identity,
    int32,
    int64,
    sin,
)
from oxtensor.tensor import dmatrix, dvector, lvector
from oxtensor.tensor import exp as tensor_exp
from oxtensor.tensor.elemwise import Elemwise


def python_loop(step, n_steps, state, constants=(), until=None):
    """The reference: ``step`` applied ``n_steps`` times (stopping where
    ``until`` of the new state holds); returns the state and ``done``."""
    done = True
    for _ in range(n_steps):
        state = step(*state, *constants)
        if until is not None:
            done = bool(until(*state, *constants))
            if done:
                break
    return state, done


def test_for_loop_with_a_constant_matches_python():
    n, x0, c = int64("n"), float64("x0"), float64("c")
    op = ScalarLoop(init=[x0], constant=[c], update=[x0 * 0.5 + c])
    f = function([n, x0, c], op(n, x0, c))
    for steps, x, k in [(0, 3.0, 1.0), (1, 3.0, 1.0), (7, -2.0, 0.25), (40, 1e3, -1.0)]:
        (want,), _ = python_loop(lambda s, k: (s * 0.5 + k,), steps, (x,), (k,))
        np.testing.assert_allclose(f(steps, x, k), want, rtol=1e-15)


def test_states_read_the_previous_step_not_the_new_one():
    n, x0, y0 = int64("n"), float64("x0"), float64("y0")
    op = ScalarLoop(init=[x0, y0], update=[x0 + 1, y0 + x0])
    f = function([n, x0, y0], op(n, x0, y0))
    for steps in range(6):
        (x, y), _ = python_loop(lambda a, b: (a + 1, b + a), steps, (0.0, 0.0))
        np.testing.assert_allclose(f(steps, 0.0, 0.0), [x, y])


def test_mixed_dtype_states_keep_their_dtypes():
    n, x0, i0 = int64("n"), float32("x0"), int64("i0")
    op = ScalarLoop(init=[x0, i0], update=[x0 * 2, i0 + 3])
    x, i = op(n, x0, i0)
    assert (x.type.dtype, i.type.dtype) == ("float32", "int64")
    rx, ri = function([n, x0, i0], [x, i])(4, np.float32(1.5), 2)
    assert rx.dtype == np.float32
    assert ri.dtype == np.int64
    assert (float(rx), int(ri)) == (24.0, 14)


def test_while_loop_stops_at_until_and_reports_it():
    n, x0 = int64("n"), float64("x0")
    x = x0 * 1.5 + 1
    op = ScalarLoop(init=[x0], update=[x], until=x > 50)
    assert op.is_while
    assert op.nout == 2
    assert op.nin == 2
    out, done = op(n, x0)
    assert done.type.dtype == "bool"
    f = function([n, x0], [out, done])
    for steps, start in [(100, 0.0), (3, 0.0), (0, 7.0), (-4, 7.0), (100, 60.0)]:
        (want,), want_done = python_loop(
            lambda s: (s * 1.5 + 1,), max(steps, 0), (start,), until=lambda s: s > 50
        )
        got, got_done = f(steps, start)
        np.testing.assert_allclose(got, want)
        assert bool(got_done) == want_done


def test_a_lag_goes_through_identity():
    n, a, b = int64("n"), float64("a"), float64("b")
    op = ScalarLoop(init=[a, b], update=[identity(b), a + b])
    f = function([n, a, b], op(n, a, b)[1])
    assert [float(f(k, 0.0, 1.0)) for k in range(7)] == [1, 1, 2, 3, 5, 8, 13]


def test_other_dtypes_rebuild_the_loop():
    n, x0, c = int64("n"), float64("x0"), float64("c")
    op = ScalarLoop(init=[x0], constant=[c], update=[x0 + c])
    x32, c32 = float32("x32"), float32("c32")
    y = op(n, x32, c32)
    assert y.type.dtype == "float32"
    assert y.owner.op is not op
    assert y.owner.op == op.clone().make_node(n, x32, c32).op
    assert function([n, x32, c32], y)(3, 1.0, 0.5).dtype == np.float32
    with pytest.raises(TypeError, match="Init and update types must be the same"):
        op(n, x32, c)
    # Any signed integer counts steps.
    k = int32("k")
    assert float(function([k, x0, c], op(k, x0, c))(np.int32(4), 1.0, 0.5)) == 3.0


def test_composites_and_loops_nest():
    n, x = int64("n"), float64("x")
    one = Composite([x], [cos(exp(x)) ** 2 + sin(exp(x)) ** 2])(x)
    op = ScalarLoop(init=[x], update=[one + x])
    np.testing.assert_allclose(function([n, x], op(n, x))(5, 2.5), 7.5)
    xi = float64("xi")
    inner = ScalarLoop(init=[xi], update=[xi + 2])
    outer = ScalarLoop(init=[x], update=[inner(n, x)], constant=[n])
    f = function([n, x], outer(n, x, n))
    assert [float(f(k, 1.0)) for k in range(4)] == [1 + 2 * k * k for k in range(4)]
    x16 = float16("x16")
    y16 = outer(n, x16, n)
    assert y16.type.dtype == "float16"
    assert function([n, x16], y16)(3, np.float16(0.5)) == np.float16(18.5)


def test_elemwise_loop_broadcasts_counts_and_states():
    _n, x0, c = int64("n"), float64("x0"), float64("c")
    x = x0 * c + 1
    op = Elemwise(ScalarLoop(init=[x0], constant=[c], update=[x], until=x > 100))
    nv, xm, cv = lvector("n"), dmatrix("x"), dvector("c")
    out, done = op(nv, xm, cv)
    assert out.type.shape == (None, None)
    f = function([nv, xm, cv], [out, done])
    rng = np.random.default_rng(3)
    counts = np.array([0, 1, 5, 40])
    starts = rng.uniform(-2, 2, size=(3, 4))
    consts = np.array([2.0, 1.5, -3.0, 0.5])
    got, got_done = f(counts, starts, consts)
    for i in range(3):
        for j in range(4):
            (want,), want_done = python_loop(
                lambda s, k: (s * k + 1,),
                counts[j],
                (starts[i, j],),
                (consts[j],),
                until=lambda s, k: s > 100,
            )
            np.testing.assert_allclose(got[i, j], want)
            assert got_done[i, j] == want_done


def test_elemwise_loop_of_empty_and_integer_tensors():
    a0, b0 = int64("a0"), int64("b0")
    op = Elemwise(ScalarLoop(init=[a0, b0], update=[a0 - b0, b0 - a0]))
    nv, av, bv = lvector("n"), lvector("a"), lvector("b")
    f = function([nv, av, bv], op(nv, av, bv))
    ra, rb = f(np.array([1, 4, 8]), np.zeros(3, "int64"), np.ones(3, "int64"))
    np.testing.assert_array_equal(ra, [-1, -8, -128])
    np.testing.assert_array_equal(rb, [1, 8, 128])
    ea, eb = f(np.zeros(0, "int64"), np.zeros(0, "int64"), np.zeros(0, "int64"))
    assert ea.shape == eb.shape == (0,)


def test_loops_pickle_compare_and_print():
    _n, x0, c = int64("n"), float64("x0"), float64("c")
    op = ScalarLoop(init=[x0], constant=[c], update=[x0 + c], name="adder")
    again = pickle.loads(pickle.dumps(op))
    assert again == op
    assert hash(again) == hash(op)
    assert str(again) == "adder"
    assert op.clone() == op
    assert op.clone() is not op
    other = ScalarLoop(init=[x0], constant=[c], update=[x0 * c])
    assert other != op
    assert op.fgraph is op.fgraph
    assert len(op.fgraph.inputs) == 2
    xv, cv, nv = dvector("x"), dvector("c"), lvector("n")
    f = function([nv, xv, cv], Elemwise(op)(nv, xv, cv))
    g = pickle.loads(pickle.dumps(f))
    args = (np.array([1, 2, 3]), np.zeros(3), np.full(3, 0.5))
    np.testing.assert_array_equal(g(*args), f(*args))
    np.testing.assert_array_equal(f(*args), [0.5, 1.0, 1.5])
    assert "Inner graphs" in oxtensor.dprint(f, file="str")


def test_errors_name_the_problem():
    n, x0, c = int64("n"), float64("x0"), float64("c")
    with pytest.raises(
        ValueError, match="An update must be given for each init variable"
    ):
        ScalarLoop(init=[x0], constant=[c], update=[])
    x32 = float32("x")
    with pytest.raises(TypeError, match="Init and update types must be the same"):
        ScalarLoop(init=[x32], constant=[c], update=[x32 + c])
    with pytest.raises(TypeError, match="Until condition must be boolean"):
        ScalarLoop(init=[x0], update=[x0 + 1], until=x0 + 2)
    with pytest.raises(
        ValueError, match="Some inputs and outputs are the same variable"
    ):
        ScalarLoop(init=[x0, c], update=[c, x0 + c])
    with pytest.raises(TypeError, match="exclusively composed of scalar operations"):
        ScalarLoop(init=[x0], update=[oxtensor.scalar.as_scalar(tensor_exp(x0))])
    op = ScalarLoop(init=[x0], constant=[c], update=[x0 + c])
    with pytest.raises(
        TypeError, match=r"\(n_steps\) must be of integer type. Got float64"
    ):
        op(float64("k"), x0, c)
    f = function([n, x0, c], op(n, x0, c))
    with pytest.raises(ValueError, match="does not have a termination condition"):
        f(-1, 0.0, 1.0)
    xv = dvector("x")
    y = Elemwise(op)(lvector("n"), xv, xv)
    with pytest.raises(NotImplementedError, match="no gradient"):
        oxtensor.grad(y.sum(), xv)
