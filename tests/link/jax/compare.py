"""`compare`: one graph compiled for the native VM and for JAX, called on the
same values; the results must agree in value, dtype and shape. Import it
after ``pytest.importorskip("jax")``."""

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
import oxtensor


def compare(
    inputs: Sequence[Any],
    outputs: Any,
    values: Sequence[Any],
    rtol: float = 1e-7,
    atol: float = 1e-10,
    **kwargs: Any,
) -> list[Any]:
    """Both results, checked equal; returns the JAX ones as NumPy arrays."""
    native = oxtensor.function(list(inputs), outputs, **kwargs)
    on_jax = oxtensor.function(list(inputs), outputs, mode="JAX", **kwargs)
    want, got = native(*values), on_jax(*values)
    single = not isinstance(outputs, list | tuple)
    want, got = ([want], [got]) if single else (want, got)
    checked = []
    for w, g in zip(want, got, strict=True):
        assert isinstance(g, jax.Array), type(g)
        g = np.asarray(g)
        w = np.asarray(w)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
        checked.append(g)
    return checked


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)
