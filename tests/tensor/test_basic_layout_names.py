"""tensor.basic names PyTensor code uses: transpose's identities and names,
matrix_transpose, is_flat, take_along_axis, atleast_Nd, ranges and masked
arrays as tensors."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import oxtensor.tensor.basic as otb
import pytest


def test_transpose_of_a_vector_is_itself():
    x = ot.dvector("x")
    assert otb.transpose(x) is x
    m = ot.dmatrix("m")
    assert otb.transpose(m, [0, 1]) is m


def test_transpose_names_a_full_reversal():
    m, t = ot.dmatrix("m"), ot.dtensor3("t")
    assert otb.transpose(m).name == "m.T"
    assert otb.transpose(t).name == "t.T"
    assert otb.transpose(t, [0, 2, 1]).name is None
    assert otb.transpose(ot.dmatrix()).name is None


def test_transpose_values():
    t = ot.dtensor3("t")
    tv = np.arange(24.0).reshape(2, 3, 4)
    f = oxtensor.function([t], [otb.transpose(t), otb.transpose(t, [0, 2, 1])])
    a, b = f(tv)
    np.testing.assert_array_equal(a, tv.transpose())
    np.testing.assert_array_equal(b, tv.transpose(0, 2, 1))


def test_matrix_transpose():
    t = ot.dtensor3("t")
    tv = np.arange(24.0).reshape(2, 3, 4)
    out = otb.matrix_transpose(t).eval({t: tv})
    np.testing.assert_array_equal(out, np.swapaxes(tv, -1, -2))
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        otb.matrix_transpose(ot.dvector())


def test_is_flat():
    assert otb.is_flat(ot.dvector())
    assert otb.is_flat(ot.dtensor3(), ndim=3)
    assert not otb.is_flat(ot.dtensor3())
    assert otb.is_flat(np.zeros(4))


def test_atleast_nd_returns_the_input_when_it_has_enough_axes():
    v = ot.dvector("v")
    assert ot.atleast_Nd(v, n=1) is v
    assert ot.atleast_Nd(v, n=2).ndim == 2


def test_take_along_axis_in_tensor_basic():
    arr, idx = ot.dmatrix("a"), ot.lmatrix("i")
    av = np.arange(12.0).reshape(3, 4)
    iv = np.array([[3, 0], [1, 1], [2, 0]])
    out = otb.take_along_axis(arr, idx, axis=1).eval({arr: av, idx: iv})
    np.testing.assert_array_equal(out, np.take_along_axis(av, iv, axis=1))


def test_range_becomes_arange():
    r = otb.as_tensor_variable(range(2, 11, 3), name="r")
    assert isinstance(r.owner.op, otb.ARange)
    assert r.name == "r"
    assert r.dtype == "int64"
    np.testing.assert_array_equal(r.eval(), np.arange(2, 11, 3))
    with pytest.raises(ValueError, match="ndim for range must be 1"):
        otb.as_tensor_variable(range(3), ndim=2)


def test_masked_array_is_refused():
    x = np.ma.masked_greater(np.array([1, 2, 3, 4]), 3)
    with pytest.raises(NotImplementedError, match="MaskedArrays are not supported"):
        otb.as_tensor_variable(x)


def test_moveaxis_length_mismatch_message():
    with pytest.raises(ValueError, match="must have the same number of elements"):
        otb.moveaxis(ot.zeros((3, 4, 5)), [0, 1], 0)
