"""``convolve1d`` against NumPy and SciPy: the three modes, stacks of
vectors through ``Blockwise``, gradients, the modes the gradients use, and
errors."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import grad, verify_grad
from oxtensor.tensor.blockwise import Blockwise
from oxtensor.tensor.signal import convolve1d
from oxtensor.tensor.signal.conv import Convolve1d
from scipy.signal import convolve


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize(("n", "k"), [(5, 3), (3, 5), (4, 4), (1, 6)])
def test_values_and_gradients(mode, n, k):
    rng = np.random.default_rng(n * 10 + k)
    a, b = rng.normal(size=n), rng.normal(size=k)
    x, y = ot.vector("x"), ot.vector("y")
    f = oxtensor.function([x, y], convolve1d(x, y, mode=mode))
    np.testing.assert_allclose(f(a, b), convolve(a, b, mode=mode), rtol=1e-12)
    verify_grad(lambda u, v: convolve1d(u, v, mode=mode), [a, b], rng=rng)


def test_float32_stays_float32():
    x, y = ot.vector("x", dtype="float32"), ot.vector("y", dtype="float32")
    out = convolve1d(x, y)
    a = np.arange(4, dtype="float32")
    got = out.eval({x: a, y: a[:2]})
    assert out.dtype == got.dtype == "float32"
    np.testing.assert_allclose(got, np.convolve(a, a[:2]))


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_stacks_and_their_gradients(mode):
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(3, 7)), rng.normal(size=(1, 4))
    x, y = ot.matrix("x"), ot.matrix("y", shape=(1, None))
    out = convolve1d(x, y, mode=mode)
    assert isinstance(out.owner.op, Blockwise)
    want = np.stack([convolve(r, b[0], mode=mode) for r in a])
    np.testing.assert_allclose(out.eval({x: a, y: b}), want, rtol=1e-12)
    verify_grad(lambda u, v: convolve1d(u, v, mode=mode), [a, b], rng=rng)
    gx, gy = grad(out.sum(), [x, y])
    f = oxtensor.function([x, y], [gx, gy])
    blockwise = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Blockwise)]
    assert all(isinstance(n.op.core_op, Convolve1d) for n in blockwise)


def test_valid_gradient_of_the_shorter_input_is_valid():
    long, short = ot.vector("long", shape=(16,)), ot.vector("short", shape=(4,))
    g = grad(convolve1d(long, short, mode="valid").sum(), short)
    f = oxtensor.function([long, short], g)
    [node] = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Convolve1d)]
    assert not node.inputs[2].data
    np.testing.assert_allclose(
        f(np.arange(16.0), np.ones(4)),
        [np.arange(i, i + 13).sum() for i in range(3, -1, -1)],
    )


def test_errors():
    with pytest.raises(ValueError, match="mode"):
        convolve1d(ot.vector(), ot.vector(), mode="nearest")
    with pytest.raises(TypeError, match="vector"):
        Convolve1d()(ot.matrix(), ot.vector(), np.bool_(True))
    x, y = ot.vector("x"), ot.vector("y")
    with pytest.raises(ValueError, match="empty"):
        convolve1d(x, y).eval({x: np.zeros(0), y: np.ones(2)})
