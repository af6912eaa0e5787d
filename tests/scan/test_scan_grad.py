"""The gradient of `scan` (backpropagation through time, a second `Scan`
running backwards) against finite differences."""

from functools import partial

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from oxtensor import function
from oxtensor.gradient import verify_grad
from oxtensor.scan import basic as loops
from oxtensor.scan.op import Scan

from tests.helpers import assert_matches, check_infer_shape

# PyTensor 3.x's form without the updates dict (see test_scan.py for the default).
scan = partial(loops.scan, return_updates=False)


def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def cumsum(x: object) -> object:
    return scan(lambda xt, acc: acc + xt, sequences=x, outputs_info=np.float64(0))


def rnn(xs: object, w: object, h0: object) -> object:
    return scan(
        lambda x, h, w: ot.tanh(ot.dot(w, h) + x),
        sequences=[xs],
        outputs_info=[h0],
        non_sequences=[w],
    )


def test_cumulative_sum():
    verify_grad(cumsum, [rng().normal(size=6)], rng=rng())


def test_cumulative_sum_exact():
    x = ot.dvector("x")
    g = oxtensor.grad((cumsum(x) ** 2).sum(), x)
    v = np.arange(5.0)
    assert_matches(function([x], g)(v), np.cumsum((2 * np.cumsum(v))[::-1])[::-1])


def test_rnn_with_a_weight_matrix():
    r = rng()
    point = [r.normal(size=(5, 3)), r.normal(size=(3, 3)) * 0.5, r.normal(size=3)]
    verify_grad(rnn, point, rng=r)


def test_rnn_last_state_only():
    r = rng()
    point = [r.normal(size=(4, 3)), r.normal(size=(3, 3)) * 0.5, r.normal(size=3)]
    verify_grad(lambda *a: rnn(*a)[-1], point, rng=r)


def test_sequence_times_parameter():
    def f(x: object, p: object) -> object:
        return scan(lambda xt, p: xt * p, sequences=x, non_sequences=p)

    r = rng()
    verify_grad(f, [r.normal(size=5), np.array(1.7)], rng=r)


def test_parameter_used_as_a_closure():
    def f(x: object, p: object) -> object:
        return scan(
            lambda xt, acc: acc * p + xt, sequences=x, outputs_info=np.float64(0)
        )

    r = rng()
    verify_grad(f, [r.normal(size=5), np.array(0.8)], rng=r)


def test_mixed_outputs_taps_and_go_backwards():
    def f(x: object, h0: object) -> object:
        total, diff = scan(
            lambda prev, cur, h: [h * 0.5 + prev * cur, cur - prev],
            sequences=[{"input": x, "taps": [-1, 0]}],
            outputs_info=[h0, None],
            go_backwards=True,
        )
        return total * 2 + diff

    r = rng()
    verify_grad(f, [r.normal(size=6), np.array(0.3)], rng=r)


def test_n_steps_shorter_than_the_sequence():
    def f(x: object) -> object:
        return scan(
            lambda xt, acc: acc * xt, sequences=x, outputs_info=np.float64(1), n_steps=3
        )

    x = ot.dvector("x")
    g = function([x], oxtensor.grad(f(x)[-1], x))(np.array([2.0, 3.0, 4.0, 5.0]))
    assert_matches(g, [12.0, 8.0, 6.0, 0.0])
    verify_grad(f, [rng().normal(size=5)], rng=rng())


def test_the_gradient_is_a_backward_scan():
    x = ot.dvector("x")
    g = oxtensor.grad(cumsum(x).sum(), x)
    f = function([x], g)
    scans = [n.op for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]
    # The forward loop stays: the backward one reads the states it stored.
    assert sorted(op.name for op in scans) == ["grad_of_scan_fn", "scan_fn"]


def test_integer_sequence_gets_no_gradient():
    idx, w = ot.lvector("idx"), ot.dvector("w")
    out = scan(lambda i, acc: acc + w[i], sequences=idx, outputs_info=np.float64(0))
    g = oxtensor.grad(out[-1], w)
    assert_matches(
        function([idx, w], g)(np.array([0, 2, 2]), np.zeros(3)), [1.0, 0.0, 2.0]
    )


def test_second_order():
    x = ot.dvector("x")
    cost = (
        (scan(lambda xt, acc: acc + xt**2, sequences=x, outputs_info=np.float64(0))[-1])
        ** 2
    )
    gx = oxtensor.grad(cost, x)
    hv = oxtensor.grad(gx.sum(), x)
    v = np.array([1.0, 2.0, 3.0])
    s = (v**2).sum()
    want = 8 * v * v.sum() + 4 * s
    assert_matches(function([x], hv)(v), want)


def test_pushforward_through_the_gradient():
    x, v = ot.dvector("x"), ot.dvector("v")

    def f(x: object) -> object:
        return scan(
            lambda xt, acc: acc * xt + xt**2, sequences=x, outputs_info=np.float64(1)
        )

    jv = function([x, v], oxtensor.pushforward(f(x), x, v), on_unused_input="ignore")
    fx = function([x], f(x))
    a, b, eps = np.array([0.5, 1.5, -0.7]), np.array([1.0, 2.0, 3.0]), 1e-6
    want = (fx(a + eps * b) - fx(a - eps * b)) / (2 * eps)
    np.testing.assert_allclose(jv(a, b), want, rtol=1e-6)


def test_nested_loops():
    def nested(m: object) -> object:
        def row_product(row: object, acc: object) -> object:
            prods = scan(lambda e, a: a * e, sequences=row, outputs_info=np.float64(1))
            return acc + prods[-1]

        return scan(row_product, sequences=m, outputs_info=np.float64(0))

    m = ot.dmatrix("m")
    v = rng().normal(size=(3, 4))
    assert_matches(function([m], nested(m))(v), np.cumsum(np.prod(v, axis=1)))
    verify_grad(nested, [v], rng=rng())


def summed_loop(x: object, s0: object, w: object) -> object:
    """A hand-built `Scan` with one summed output: ``s0 + Σ tanh(x[t] * w)``."""
    xt, wt = ot.dscalar("xt"), ot.dvector("wt")
    op = Scan([xt, wt], [ot.tanh(xt * wt)], n_seqs=1, n_states=0, n_sums=1)
    return op(x.shape[0], x, s0, w)


def test_a_summed_output():
    x, s0, w = ot.dvector("x"), ot.dvector("s0"), ot.dvector("w")
    a, b, c = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0]), np.array([0.3, -0.2])
    got = function([x, s0, w], summed_loop(x, s0, w))(a, b, c)
    assert_matches(got, b + np.tanh(a[:, None] * c).sum(axis=0))
    empty = function([x, s0, w], summed_loop(x, s0, w))(np.zeros(0), b, c)
    assert_matches(empty, b)
    verify_grad(summed_loop, [a, b, c], rng=rng())
    check_infer_shape([x, s0, w], [summed_loop(x, s0, w)], [a, b, c], Scan)


def test_a_non_sequence_gradient_is_one_summed_value():
    # The backward loop adds up the weight matrix's terms as it goes: its
    # output for them is one matrix, not one per step.
    xs, w, h0 = ot.dmatrix("xs"), ot.dmatrix("w"), ot.dvector("h0")
    gw = oxtensor.grad(rnn(xs, w, h0).sum(), w)
    f = function([xs, w, h0], gw)
    back = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]
    back = [n for n in back if n.op.name == "grad_of_scan_fn"]
    assert [o.ndim for o in back[0].outputs][-1] == 2
    assert back[0].op.n_sums == 1


def test_fn_differentiates_through_its_non_sequences():
    # fn receives the non-sequences themselves (as in PyTensor), so the
    # Jacobian of y = exp(x) row by row is a grad inside the step.
    x = ot.dvector("x")
    y = ot.exp(x)
    rows = scan(
        lambda i, y, x: oxtensor.grad(y[i], x),
        sequences=ot.arange(y.shape[0]),
        non_sequences=[y, x],
    )
    xs = np.array([0.5, -1.0, 2.0])
    assert_matches(function([x], rows)(xs), np.diag(np.exp(xs)))
