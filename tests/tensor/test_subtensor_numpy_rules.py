"""Indexing rules checked against NumPy: `ignore_duplicates` increments,
static lengths of slices empty for any length, refused boolean entries,
the static broadcast error of index arrays, and vectorized advanced
indexing."""

import re

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.basic import get_vector_length
from oxtensor.tensor.blockwise import Blockwise
from oxtensor.tensor.subtensor import AdvancedSubtensor


@pytest.mark.parametrize("advanced1", [True, False])
def test_ignore_duplicates_is_numpys_plus_equals(advanced1):
    m, inc = ot.dmatrix("m"), ot.dscalar("inc")
    i, j = ot.lvector("i"), ot.lvector("j")
    sub = m[i] if advanced1 else m[i, j]
    f = oxtensor.function(
        [m, i, j, inc],
        ot.inc_subtensor(sub, inc, ignore_duplicates=True),
        on_unused_input="ignore",
    )
    mv = np.arange(9.0).reshape(3, 3)
    iv, jv = np.array([1, 2, 1]), np.array([0, 1, 0])
    want = mv.copy()
    if advanced1:
        want[iv] += 2.5
    else:
        want[iv, jv] += 2.5
    np.testing.assert_array_equal(f(mv, iv, jv, 2.5), want)


def test_empty_slices_have_static_length_zero():
    assert get_vector_length(ot.lvector()[1:1]) == 0
    assert get_vector_length(ot.lvector()[-1:-1:3]) == 0
    with pytest.raises(ValueError, match=r"^Length of"):
        get_vector_length(ot.lvector()[1:3])


def test_boolean_variable_in_a_list_is_refused():
    x = ot.dmatrix("x")
    with pytest.raises(TypeError):
        x[[0, 1], [0, oxtensor.shared(True)]]


def test_unbroadcastable_index_arrays_name_their_shapes():
    x = ot.dmatrix("x")
    idx = ot.tensor("idx", shape=(10,), dtype="int64")
    msg = re.escape(
        "shape mismatch: indexing tensors could not be broadcast together "
        "with shapes [(10,), (9,)]"
    )
    with pytest.raises(IndexError, match=msg):
        x[idx, idx[1:]]


@pytest.mark.parametrize(
    ("fn", "signature", "blockwise"),
    [
        (lambda x, i: x[:, i, :], "(7,5,3),(2)->(7,2,3)", False),
        (lambda x, i: x[:, i, i, :], "(7,5,5,3),(2)->(7,2,3)", False),
        (lambda x, i: x[:, i, :, i], "(7,5,3,5),(2)->(2,7,3)", True),
    ],
)
def test_vectorized_advanced_indexing(fn, signature, blockwise):
    shape = tuple(int(d) for d in signature.split("),")[0].strip("(").split(","))
    x = ot.tensor("x", shape=(11, *shape), dtype="float64")
    i = ot.tensor("i", shape=(2,), dtype="int64")
    f = oxtensor.function([x, i], ot.vectorize(fn, signature=signature)(x, i))
    nodes = f.maker.fgraph.apply_nodes
    assert any(isinstance(n.op, Blockwise) for n in nodes) == blockwise
    if not blockwise:
        assert any(isinstance(n.op, AdvancedSubtensor) for n in nodes)
    rng = np.random.default_rng(0)
    xv, iv = rng.normal(size=x.type.shape), rng.integers(0, 5, size=2)
    want = np.vectorize(fn, signature=signature)(xv, iv)
    np.testing.assert_allclose(f(xv, iv), want)
