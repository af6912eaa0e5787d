"""``convolve1d``, ``rfft`` and ``irfft`` on JAX against the native VM,
with their gradients, for inputs of static lengths; and an ``Einsum`` the
rewrites could not plan (``jnp.einsum``)."""

import pytest

from tests.link.jax import SKIP_REASON

pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor
import oxtensor.tensor as ot
from oxtensor.tensor import fft
from oxtensor.tensor.signal import convolve1d

from tests.link.jax.compare import compare, rng


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_convolve1d(mode: str) -> None:
    x, y = ot.vector("x", shape=(7,)), ot.vector("y", shape=(3,))
    out = convolve1d(x, y, mode=mode)
    grads = oxtensor.grad(out.sum(), [x, y])
    r = rng()
    compare([x, y], [out, *grads], [r.normal(size=7), r.normal(size=3)], rtol=1e-10)


@pytest.mark.parametrize("norm", [None, "ortho", "no_norm"])
def test_rfft_and_irfft(norm: str | None) -> None:
    x = ot.tensor("x", shape=(2, 4, 6))
    spec = ot.tensor("spec", shape=(2, 4, 5, 2))
    outs = [fft.rfft(x, norm=norm), fft.irfft(spec, norm=norm)]
    cost = (outs[0] ** 2).sum() + (outs[1] ** 3).sum()
    outs += oxtensor.grad(cost, [x, spec])
    r = rng()
    compare(
        [x, spec],
        outs,
        [r.normal(size=(2, 4, 6)), r.normal(size=(2, 4, 5, 2))],
        rtol=1e-9,
    )


def test_einsum_planned_without_lengths() -> None:
    a, b, c = ot.dmatrix("a"), ot.dmatrix("b"), ot.dmatrix("c")
    out = ot.einsum("ij,jk,kl->il", a, b, c)
    assert not out.owner.op.optimized
    r = rng()
    values = [r.normal(size=(2, 3)), r.normal(size=(3, 4)), r.normal(size=(4, 2))]
    compare([a, b, c], out, values, rtol=1e-10)
