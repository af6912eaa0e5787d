"""``ExtractDiag`` and ``AllocDiag`` (``diagonal``, ``alloc_diag``, ``diag``):
values against NumPy, views, static shapes, ``infer_shape``, gradients,
errors."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from numpy.exceptions import AxisError
from oxtensor.gradient import verify_grad
from oxtensor.tensor.basic import AllocDiag, ExtractDiag, alloc_diag, diagonal

from tests.helpers import check_infer_shape, check_op_contract

RNG = np.random.default_rng(7)
CASES = [(0, 0, 1), (1, 0, 1), (-1, 1, 0), (2, 0, 2), (-1, 2, 1), (0, -1, -2)]


@pytest.mark.parametrize(("offset", "axis1", "axis2"), CASES)
def test_extract_diag_matches_numpy(offset, axis1, axis2):
    x = ot.dtensor3("x")
    v = RNG.normal(size=(3, 4, 5))
    out = ExtractDiag(offset, axis1, axis2)(x)
    got = oxtensor.function([x], out)(v)
    np.testing.assert_array_equal(got, np.diagonal(v, offset, axis1, axis2))


def test_extract_diag_op_props_and_view():
    op = ExtractDiag(1, 0, 2, view=True)
    assert (op.offset, op.axis1, op.axis2, op.view) == (1, 0, 2, True)
    assert op.__props__ == ("offset", "axis1", "axis2", "view")
    assert op == ExtractDiag(1, 0, 2, True)
    assert op != ExtractDiag(1, 0, 2)
    x = ot.dmatrix("x")
    v = RNG.normal(size=(3, 4))
    node = check_op_contract(ExtractDiag(1, 0, 1, True), [x])
    assert node.op.view_map == {0: [0]}
    got = oxtensor.function([x], node.outputs[0])(v)
    np.testing.assert_array_equal(got, np.diagonal(v, 1))
    assert ExtractDiag().view_map == {}


def test_diag_builds_the_ops_and_static_shapes():
    m = ot.tensor(shape=(3, 5))
    assert isinstance(ot.diag(m).owner.op, ExtractDiag)
    assert ot.diagonal(m, 1).type.shape == (3,)
    assert ot.diagonal(m, -2).type.shape == (1,)
    assert ot.diagonal(m, 6).type.shape == (0,)
    v = ot.tensor(shape=(3,))
    assert isinstance(ot.diag(v).owner.op, AllocDiag)
    assert ot.diag(v, -2).type.shape == (5, 5)


@pytest.mark.parametrize(
    ("offset", "axis1", "axis2"), [(0, 0, 1), (1, 0, 2), (-2, 2, 1)]
)
def test_alloc_diag_round_trips(offset, axis1, axis2):
    d = ot.dmatrix("d")
    v = RNG.normal(size=(2, 3))
    full = oxtensor.function([d], alloc_diag(d, offset, axis1, axis2))(v)
    np.testing.assert_array_equal(np.diagonal(full, offset, axis1, axis2), v)
    assert full.sum() == pytest.approx(v.sum())


def test_infer_shape():
    x, d = ot.dtensor3("x"), ot.dmatrix("d")
    outs = [ExtractDiag(o, a1, a2)(x) for o, a1, a2 in CASES]
    outs += [alloc_diag(d, -1, 2, 0), alloc_diag(d, 2)]
    vals = [RNG.normal(size=(3, 4, 5)), RNG.normal(size=(2, 3))]
    check_infer_shape([x, d], outs, vals, ExtractDiag)


def test_gradients():
    v3 = RNG.normal(size=(5, 4, 3))
    for offset, axis1, axis2 in CASES:
        verify_grad(ExtractDiag(offset, axis1, axis2), [v3], rng=RNG)
    verify_grad(lambda d: alloc_diag(d, -1, 0, 2), [RNG.normal(size=(2, 3))], rng=RNG)
    verify_grad(lambda m: ot.diag(m, 1), [RNG.normal(size=(4, 3))], rng=RNG)


def test_errors():
    with pytest.raises(ValueError, match=r"Input must be 1- or 2-d\."):
        ot.diag(ot.tensor3())
    with pytest.raises(AxisError, match="axis 1 is out of bounds"):
        diagonal(ot.dvector())
    with pytest.raises(ValueError, match="axis1 and axis2 cannot be the same"):
        ExtractDiag(0, 1, -1)(ot.dmatrix())
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ExtractDiag(0, 0, 2)(ot.dmatrix())
    with pytest.raises(ValueError, match="at least 1 dimension"):
        AllocDiag()(ot.dscalar())
