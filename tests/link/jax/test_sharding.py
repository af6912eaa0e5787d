"""A batch split over four (simulated CPU) devices with ``NamedSharding``
gives the native VM's results. XLA reads the device count when JAX starts,
so the check runs in a fresh interpreter."""

import subprocess
import sys
import textwrap

import pytest

from tests.link.jax import SKIP_REASON

pytest.importorskip("jax", reason=SKIP_REASON)

SCRIPT = textwrap.dedent(
    """
    import os
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import oxtensor
    import oxtensor.tensor as ot
    from oxtensor.tensor import special

    x, w = ot.dmatrix("x"), ot.dmatrix("w")
    cost = special.softmax(ot.tanh(ot.dot(x, w)), axis=-1).max(axis=1)
    on_jax = oxtensor.function([x, w], [cost, oxtensor.grad(cost.sum(), w)], mode="JAX")
    native = oxtensor.function([x, w], [cost, oxtensor.grad(cost.sum(), w)])

    assert len(jax.devices()) == 4, jax.devices()
    mesh = Mesh(np.array(jax.devices()), ("batch",))
    rng = np.random.default_rng(0)
    xv, wv = rng.normal(size=(64, 8)), rng.normal(size=(8, 5))
    xs = jax.device_put(xv, NamedSharding(mesh, P("batch", None)))
    out, grad = on_jax(xs, wv)
    assert len(out.sharding.device_set) == 4, out.sharding
    want, want_grad = native(xv, wv)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(grad), want_grad, rtol=1e-10)
    print("sharded over", len(out.sharding.device_set), "devices")
    """
)


def test_a_sharded_batch_matches_the_vm() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "sharded over 4 devices" in out.stdout
