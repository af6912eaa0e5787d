"""`scan` against NumPy loops: sequences (with taps), recurrent and per-step
outputs, non-sequences and closures, ``n_steps``, ``go_backwards``, the
views (`map`, `reduce`, `foldl`, `foldr`), the op's shapes and inner graph."""

from functools import partial

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor import function
from oxtensor.graph.op import HasInnerGraph
from oxtensor.scan import basic, views
from oxtensor.scan.op import Scan

from tests.helpers import assert_matches, check_infer_shape

# PyTensor 3.x's form without the updates dict (see test_scan.py for the default).
foldl = partial(views.foldl, return_updates=False)
foldr = partial(views.foldr, return_updates=False)
map = partial(views.map, return_updates=False)
reduce = partial(views.reduce, return_updates=False)
scan = partial(basic.scan, return_updates=False)

RNG = np.random.default_rng(42)


def rnn_step(x: object, h: object, w: object) -> object:
    return ot.tanh(ot.dot(w, h) + x)


def rnn_numpy(xs: np.ndarray, w: np.ndarray, h: np.ndarray) -> np.ndarray:
    out = []
    for x in xs:
        h = np.tanh(w @ h + x)
        out.append(h)
    return np.array(out)


def test_cumulative_sum():
    x = ot.dvector("x")
    f = function(
        [x], scan(lambda xt, acc: acc + xt, sequences=x, outputs_info=np.float64(0))
    )
    v = RNG.normal(size=7)
    assert_matches(f(v), np.cumsum(v))


def test_rnn_with_a_weight_matrix():
    xs, w, h0 = ot.dmatrix("xs"), ot.dmatrix("w"), ot.dvector("h0")
    hs = scan(rnn_step, sequences=[xs], outputs_info=[h0], non_sequences=[w])
    f = function([xs, w, h0], hs)
    a, b, c = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3)), RNG.normal(size=3)
    assert_matches(f(a, b, c), rnn_numpy(a, b, c))


def test_a_variable_fn_uses_without_receiving_it_becomes_an_input():
    x, p = ot.dvector("x"), ot.dscalar("p")
    ys = scan(lambda xt: xt * p, sequences=x)
    node = ys.owner
    assert isinstance(node.op, Scan)
    assert p in node.inputs
    assert_matches(function([x, p], ys)(np.arange(4.0), 2.5), np.arange(4.0) * 2.5)


def test_a_shared_variable_is_read_inside_the_loop():
    s = oxtensor.shared(np.array([1.0, 2.0]), name="s")
    x = ot.dmatrix("x")
    f = function([x], scan(lambda row: row * s, sequences=x))
    v = RNG.normal(size=(3, 2))
    assert_matches(f(v), v * np.array([1.0, 2.0]))
    s.set_value(np.array([3.0, -1.0]))
    assert_matches(f(v), v * np.array([3.0, -1.0]))


def test_outputs_come_back_in_outputs_info_order():
    x = ot.dvector("x")
    prod, doubled, total = scan(
        lambda xt, p, s: [p * xt, 2 * xt, s + xt],
        sequences=x,
        outputs_info=[np.float64(1), None, np.float64(0)],
    )
    v = np.arange(1.0, 6.0)
    got = function([x], [prod, doubled, total])(v)
    for g, want in zip(got, [np.cumprod(v), 2 * v, np.cumsum(v)], strict=True):
        assert_matches(g, want)


def test_sequence_taps():
    x = ot.dvector("x")
    out = scan(
        lambda prev, cur, nxt: prev - 2 * cur + nxt,
        sequences=[{"input": x, "taps": [-1, 0, 1]}],
    )
    v = RNG.normal(size=8)
    assert_matches(function([x], out)(v), v[:-2] - 2 * v[1:-1] + v[2:])


def test_go_backwards_iterates_from_the_end():
    x = ot.dvector("x")
    out = scan(
        lambda xt, acc: acc + xt,
        sequences=x,
        outputs_info=np.float64(0),
        go_backwards=True,
    )
    v = np.arange(1.0, 6.0)
    assert_matches(function([x], out)(v), np.cumsum(v[::-1]))


def test_n_steps_without_sequences():
    a, k = ot.dvector("a"), ot.iscalar("k")
    powers = scan(
        lambda p, a: p * a, outputs_info=ot.ones_like(a), non_sequences=a, n_steps=k
    )
    f = function([a, k], powers[-1])
    v = np.array([1.5, -2.0, 0.5])
    assert_matches(f(v, 4), v**4)


def test_n_steps_shorter_than_the_sequence_uses_its_start():
    x = ot.dvector("x")
    out = scan(lambda xt: xt * 3, sequences=x, n_steps=3)
    assert_matches(function([x], out)(np.arange(6.0)), np.arange(3.0) * 3)


def test_zero_steps():
    x, k = ot.dvector("x"), ot.iscalar("k")
    out = scan(lambda acc: acc + 1, outputs_info=x, n_steps=k)
    assert function([x, k], out)(np.zeros(3), 0).shape == (0, 3)


def test_return_list_and_return_updates():
    x = ot.dvector("x")
    (single,) = scan(lambda xt: xt + 1, sequences=x, return_list=True)
    with pytest.warns(DeprecationWarning, match="Scan return signature"):
        out, updates = scan(lambda xt: xt + 1, sequences=x, return_updates=True)
    assert updates == {}
    assert_matches(function([x], [single, out])(np.arange(3.0))[1], np.arange(1.0, 4.0))


@pytest.mark.parametrize("loop", ["scan", "map", "reduce", "foldl", "foldr"])
def test_the_default_returns_updates_with_pytensors_warning(loop):
    x = ot.dvector("x")
    fn = getattr(basic if loop == "scan" else views, loop)
    args = (
        (lambda xt: xt + 1, x)
        if loop in ("scan", "map")
        else (lambda xt, acc: acc + xt, x, np.float64(0))
    )
    with pytest.warns(DeprecationWarning, match="return_updates=False"):
        out, updates = fn(*args)
    assert updates == {}
    assert out.owner is not None


def test_views():
    x = ot.dvector("x")
    v = np.arange(1.0, 5.0)
    f = function(
        [x],
        [
            map(lambda xt: xt**2, x),
            reduce(lambda xt, acc: acc + xt, x, np.float64(0)),
            foldl(lambda xt, acc: acc * 10 + xt, x, np.float64(0)),
            foldr(lambda xt, acc: acc * 10 + xt, x, np.float64(0)),
        ],
    )
    squares, total, left, right = f(v)
    assert_matches(squares, v**2)
    assert float(total) == 10.0
    assert float(left) == 1234.0
    assert float(right) == 4321.0


def test_infer_shape():
    xs, w, h0 = ot.dmatrix("xs"), ot.dmatrix("w"), ot.dvector("h0")
    _, outer = scan(
        lambda x, h, w: [rnn_step(x, h, w), ot.outer(x, h)],
        sequences=[xs],
        outputs_info=[h0, None],
        non_sequences=[w],
    )
    node = outer.owner
    values = [RNG.normal(size=(4, 3)), RNG.normal(size=(3, 3)), RNG.normal(size=3)]
    check_infer_shape([xs, w, h0], node.outputs, values, Scan)


def test_the_op_holds_its_inner_graph():
    x = ot.dvector("x")
    op = scan(lambda xt: xt * 2, sequences=x, name="double").owner.op
    assert isinstance(op, HasInnerGraph)
    assert str(op) == "Scan{double, while_loop=False, inplace=none}"
    copy = op.clone()
    assert copy.inner_outputs[0] is not op.inner_outputs[0]
    assert_matches(op.fn(np.float64(3.0))[0], 6.0)
    assert_matches(copy.fn(np.float64(3.0))[0], 6.0)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_dtypes_are_kept(dtype):
    x = ot.vector("x", dtype=dtype)
    out = scan(lambda xt, acc: acc + xt, sequences=x, outputs_info=np.zeros((), dtype))
    assert out.dtype == dtype
    v = np.arange(5).astype(dtype)
    got = function([x], out)(v)
    assert got.dtype == dtype
    assert_matches(got, np.cumsum(v).astype(dtype))


def test_a_non_tensor_non_sequence_is_passed_through():
    from oxtensor.tensor.type_other import none_type_t

    x, n = ot.dvector("x"), none_type_t("n")
    y = scan(lambda xt, n: xt * 2, sequences=x, non_sequences=[n])
    assert_matches(function([x, n], y)(np.arange(3.0), None), [0.0, 2.0, 4.0])
    g = oxtensor.grad(y.sum(), x)
    got = function([x, n], g, on_unused_input="ignore")(np.arange(3.0), None)
    assert_matches(got, [2.0, 2.0, 2.0])


def test_equal_loops_merge():
    x = ot.dvector("x")
    a = scan(lambda xt: xt * 2, sequences=x)
    b = scan(lambda xt: xt * 2, sequences=x)
    c = scan(lambda xt: xt * 3, sequences=x)
    assert a.owner.op == b.owner.op
    assert hash(a.owner.op) == hash(b.owner.op)
    assert a.owner.op != c.owner.op
    f = function([x], a + b + c)
    loops = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]
    assert len(loops) == 2
    assert_matches(f(np.arange(3.0)), np.arange(3.0) * 7)


@pytest.mark.parametrize(
    ("taps", "window"),
    [
        ([-1], lambda v: v[:-1]),
        ([1], lambda v: v[1:]),
        ([-2, 1], lambda v: v[:-3] + v[3:]),
    ],
)
def test_one_sided_sequence_taps(taps, window):
    x = ot.dvector("x")
    out = scan(lambda *a: sum(a[1:], a[0]), sequences=[{"input": x, "taps": taps}])
    v = np.arange(1.0, 8.0)
    assert_matches(function([x], out)(v), window(v))


def test_plain_numbers_from_fn_keep_numpy_dtypes():
    x = ot.dvector("x")
    c = scan(lambda xt: np.float64(5.0), sequences=x)
    assert c.dtype == "float64"
    assert_matches(
        function([x], c, on_unused_input="ignore")(np.arange(3.0)), [5.0] * 3
    )


def test_a_generator_non_sequence_draws_the_same_values_each_step():
    # The generator is an input of every step and nothing advances it, so
    # every step draws what its first draw gives (as in PyTensor).
    import oxtensor.tensor.random as ora

    rng, x = ora.random_generator_type("rng"), ot.dvector("x")
    y = scan(
        lambda xt, g: xt + ora.normal(0, 1, rng=g), sequences=x, non_sequences=[rng]
    )
    got = function([x, rng], y)(np.arange(3.0), np.random.default_rng(0))
    first = np.random.default_rng(0).normal()
    assert_matches(got, np.arange(3.0) + first)


def test_step_variables_are_named_after_the_sequence():
    x = ot.dvector("x")
    seen = []
    scan(
        lambda a, b: seen.extend([a.name, b.name]) or a + b,
        sequences=[{"input": x, "taps": [-1, 0]}],
        go_backwards=True,
    )
    assert seen == ["x[t-1]", "x[t]"]
