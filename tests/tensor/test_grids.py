"""``mgrid``/``ogrid``, the triangle indices, ``stacklists``,
``infer_static_shape``, ``get_scalar_constant_value`` and ``make_vector``
against NumPy and PyTensor's rules."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.basic import (
    get_scalar_constant_value,
    infer_static_shape,
    make_vector,
    mgrid,
    ogrid,
    stacklists,
    tril_indices,
    tril_indices_from,
    triu_indices,
    triu_indices_from,
)
from oxtensor.tensor.exceptions import NotScalarConstantError


def test_grids_match_numpy():
    for ours, theirs in [(mgrid, np.mgrid), (ogrid, np.ogrid)]:
        np.testing.assert_allclose(ours[0:1:0.25].eval(), theirs[0:1:0.25])
        for o, t in zip(
            ours[0:2:1, 1:10:3, 10:100:30],
            theirs[0:2:1, 1:10:3, 10:100:30],
            strict=True,
        ):
            np.testing.assert_array_equal(o.eval(), t)


def test_grids_with_symbolic_bounds():
    i, j = ot.iscalars("i", "j")
    f = oxtensor.function([i, j], mgrid[i:3, 0:j])
    for o, t in zip(f(1, 4), np.mgrid[1:3, 0:4], strict=True):
        np.testing.assert_array_equal(o, t)
    with pytest.raises(TypeError, match="must be slices"):
        mgrid[1, 2]


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_triangle_indices(k):
    m = ot.dmatrix("m")
    kk = ot.iscalar("k")
    mv = np.zeros((4, 6))
    f = oxtensor.function(
        [m, kk], [*tril_indices(m.shape[0], kk, m.shape[1]), *triu_indices_from(m, kk)]
    )
    lr, lc, ur, uc = f(mv, k)
    np.testing.assert_array_equal((lr, lc), np.tril_indices(4, k, 6))
    np.testing.assert_array_equal((ur, uc), np.triu_indices_from(mv, k))
    np.testing.assert_array_equal(
        [a.eval() for a in triu_indices(3, k)], np.triu_indices(3, k)
    )
    np.testing.assert_array_equal(
        [a.eval({m: mv}) for a in tril_indices_from(m, k)], np.tril_indices_from(mv, k)
    )
    with pytest.raises(ValueError, match="must be two dimensional"):
        tril_indices_from(ot.dvector())


def test_stacklists():
    a, b, c, d = ot.dscalars("a", "b", "c", "d")
    x = stacklists([[a, b], [c, d]])
    assert x.type.shape == (2, 2)
    np.testing.assert_array_equal(
        x.eval({a: 1.0, b: 2.0, c: 3.0, d: 4.0}), [[1.0, 2.0], [3.0, 4.0]]
    )


def test_infer_static_shape():
    sh, static = infer_static_shape([3, ot.iscalar("n")])
    assert static == (3, None)
    assert all(s.dtype == "int64" for s in sh)
    _, static = infer_static_shape(ot.specify_shape(ot.constant([2, 5]), [2]))
    assert static == (2, 5)
    with pytest.raises(TypeError, match="Shapes must be scalar integers"):
        infer_static_shape([ot.constant(1.0)])


def test_get_scalar_constant_value_and_make_vector():
    assert get_scalar_constant_value(np.array(4)) == 4
    assert get_scalar_constant_value(ot.constant(4)) == 4
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(np.zeros(5))
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(ot.constant(3, ndim=1))
    assert get_scalar_constant_value(ot.dvector(), raise_not_constant=False) is not None
    mv = make_vector(1, 2, 3)
    assert mv.dtype == "int64"
    assert mv.eval().tolist() == [1, 2, 3]
    with pytest.raises(NotScalarConstantError):
        ot.get_underlying_scalar_constant_value(None)
    assert ot.get_underlying_scalar_constant_value(ot.NoneConst) is None
