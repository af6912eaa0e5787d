"""`JAXLinker`: a graph through `jax.jit` behind PyTensor's linker interface."""

import numpy as np
import pytest

from tests.link.jax import SKIP_REASON

pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor.tensor as ot
from oxtensor.graph.fg import FunctionGraph
from oxtensor.link.jax import JAXLinker


def test_make_thunk_runs_through_jax():
    x, y = ot.dvector("x"), ot.dvector("y")
    fg = FunctionGraph([x, y], [ot.exp(x) * y], clone=False)
    thunk, ins, outs = JAXLinker().accept(fg).make_thunk()
    a, b = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    ins[0].data, ins[1].data = a, b
    thunk()
    assert isinstance(outs[0].data, np.ndarray)
    np.testing.assert_allclose(outs[0].data, np.exp(a) * b)


def test_unbound_jax_linker_refuses():
    with pytest.raises(ValueError, match="call accept"):
        JAXLinker().make_thunk()
