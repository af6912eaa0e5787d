"""`oxtensor.sparse`: the csc/csr type and its `filter`, sparse variables and
constants, sparse + sparse and sparse + dense, the conversions between
sparse and dense (values against scipy, gradients against finite
differences of the dense computation), shared sparse variables, and the
clear errors for what is out of scope."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.sparse as sp
from oxtensor import In, function, sparse
from oxtensor.misc.may_share_memory import may_share_memory
from oxtensor.sparse import SparseTensorType


def _matrix(format="csc", dtype="float64"):
    dense = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], dtype=dtype)
    return sp.csc_matrix(dense) if format == "csc" else sp.csr_matrix(dense)


def test_type_filter_accepts_its_format_and_refuses_others():
    ty = SparseTensorType("csc", "float64")
    m = _matrix()
    assert ty.filter(m) is m
    with pytest.raises(TypeError, match=r"expects a scipy\.sparse csc matrix, got csr"):
        ty.filter(_matrix("csr"))
    with pytest.raises(TypeError, match="got ndarray"):
        ty.filter(m.toarray())
    with pytest.raises(NotImplementedError, match="format 'coo'"):
        SparseTensorType("coo", "float64")


def test_type_filter_casts_dtypes_like_tensors():
    ty = SparseTensorType("csr", "float64")
    assert ty.filter(_matrix("csr", "float32")).dtype == np.float64
    with pytest.raises(TypeError, match="expects dtype float64, got float32"):
        ty.filter(_matrix("csr", "float32"), strict=True)
    ty32 = SparseTensorType("csr", "float32")
    with pytest.raises(TypeError, match="allow_downcast"):
        ty32.filter(_matrix("csr"))
    assert ty32.filter(_matrix("csr"), allow_downcast=True).dtype == np.float32
    with pytest.raises(TypeError, match=r"shape \(2, 2\)"):
        SparseTensorType("csr", "float64", shape=(2, 2)).filter(_matrix("csr"))


def test_type_equality_str_and_values_eq():
    ty = SparseTensorType("csc", "float32", shape=(None, 3))
    assert ty == SparseTensorType("csc", np.float32, (None, 3))
    assert ty != SparseTensorType("csr", "float32", (None, 3))
    assert hash(ty) == hash(SparseTensorType("csc", "float32", (None, 3)))
    assert str(ty) == "Sparse(csc, float32, shape=(?, 3))"
    assert ty.broadcastable == (False, False)
    assert ty.ndim == 2
    a, b = _matrix(), _matrix()
    b2 = b.copy()
    b2[0, 0] = 1.0 + 1e-12
    assert ty.values_eq(a, b)
    assert not ty.values_eq(a, b2)
    assert ty.values_eq_approx(a, b2)
    assert not ty.values_eq_approx(a, b * 2)


def test_constructors_make_sparse_variables():
    x = sparse.csc_matrix("x", dtype="float64")
    assert isinstance(x, sparse.SparseVariable)
    assert (x.name, x.format, x.dtype, x.ndim) == ("x", "csc", "float64", 2)
    assert sparse.csr_matrix().type == SparseTensorType("csr", oxtensor.config.floatX)
    assert sparse.csr_fmatrix().dtype == "float32"
    assert sparse.csc_dmatrix(shape=(2, 3)).type.shape == (2, 3)


def test_as_sparse_variable():
    x = sparse.csr_matrix()
    assert sparse.as_sparse_variable(x) is x
    c = sparse.as_sparse_variable(_matrix())
    assert isinstance(c, sparse.SparseConstant)
    assert c.type.shape == (2, 3)
    assert c.equals(sparse.as_sparse_variable(_matrix()))
    with pytest.raises(
        TypeError, match="not a sparse type; convert it with csc_from_dense"
    ):
        sparse.as_sparse_variable(ot.dmatrix("d"))
    with pytest.raises(TypeError, match="format 'coo' is not supported"):
        sparse.as_sparse_variable(sp.coo_matrix(np.eye(2)))


@pytest.mark.parametrize("format", ["csc", "csr"])
def test_sparse_plus_sparse_is_sparse(format):
    x = SparseTensorType(format, "float64")("x")
    y = SparseTensorType(format, "float32")("y")
    out = x + y
    assert out.type == SparseTensorType(format, "float64")
    f = function([x, y], out)
    a, b = _matrix(format), _matrix(format, "float32") * 3
    got = f(a, b)
    assert sp.issparse(got)
    assert got.format == format
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.toarray(), a.toarray() + b.toarray())


def test_sparse_plus_dense_is_dense_and_constants_mix_in():
    x = sparse.csc_matrix("x", dtype="float64")
    d = ot.dmatrix("d")
    a, dense = _matrix(), np.arange(6.0).reshape(2, 3)
    f = function([x, d], [x + d, sparse.add(d, x), x + _matrix()])
    got = f(a, dense)
    np.testing.assert_array_equal(got[0], a.toarray() + dense)
    np.testing.assert_array_equal(got[1], a.toarray() + dense)
    np.testing.assert_array_equal(got[2].toarray(), 2 * a.toarray())


def test_shape_mismatch_is_an_error():
    x = SparseTensorType("csc", "float64", shape=(2, 3))("x")
    y = SparseTensorType("csc", "float64", shape=(3, 3))("y")
    with pytest.raises(
        ValueError, match=r"shapes \(2, 3\) of x and \(3, 3\) of y differ"
    ):
        x + y
    x, y = sparse.csc_dmatrix("x"), sparse.csc_dmatrix("y")
    f = function([x, y], x + y)
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(3, 3\) differ"):
        f(_matrix(), sp.csc_matrix(np.eye(3)))


def test_conversions_round_trip():
    d = ot.dmatrix("d")
    dense = np.array([[0.0, 1.5], [2.0, 0.0]])
    csc, csr = sparse.csc_from_dense(d), sparse.csr_from_dense(d)
    assert (csc.format, csr.format) == ("csc", "csr")
    back = sparse.dense_from_sparse(csc)
    f = function([d], [csc, csr, back, csr.toarray()])
    got_csc, got_csr, got_back, got_back2 = f(dense)
    assert got_csc.format == "csc"
    assert got_csr.format == "csr"
    np.testing.assert_array_equal(got_csc.toarray(), dense)
    np.testing.assert_array_equal(got_back, dense)
    np.testing.assert_array_equal(got_back2, dense)
    with pytest.raises(
        TypeError, match=r"must be a matrix, got v of type .* \(1 dims\)"
    ):
        sparse.csc_from_dense(ot.dvector("v"))


def test_gradients_match_finite_differences():
    # d/dd sum(w * dense_from_sparse(csc_from_dense(d) + s)) is w.
    d = ot.dmatrix("d")
    s = sparse.csc_dmatrix("s")
    w = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, 4.0]])
    cost = (sparse.dense_from_sparse(sparse.csc_from_dense(d) + s) * w).sum()
    gd, gs = oxtensor.grad(cost, [d, s])
    f_cost = function([d, s], cost)
    f_grad = function([d, s], [gd, gs])
    point, m = np.arange(6.0).reshape(2, 3), _matrix()
    got_d, got_s = f_grad(point, m)
    eps = 1e-6
    numeric = np.zeros_like(point)
    for idx in np.ndindex(*point.shape):
        step = np.zeros_like(point)
        step[idx] = eps
        numeric[idx] = (f_cost(point + step, m) - f_cost(point - step, m)) / (2 * eps)
    np.testing.assert_allclose(got_d, numeric, rtol=1e-6)
    assert sp.issparse(got_s)
    assert got_s.format == "csc"
    np.testing.assert_allclose(got_s.toarray(), w)


def test_inputs_refuse_dense_and_other_formats():
    x = sparse.csc_dmatrix("x")
    f = function([x], sparse.dense_from_sparse(x))
    with pytest.raises(
        TypeError, match=r"(?s)Bad input argument with name \"x\".*csc matrix, got csr"
    ):
        f(_matrix("csr"))


def test_mutable_sparse_inputs_given_twice():
    # PyTensor's aliasing test: one matrix as both mutable arguments.
    x, y = sparse.csc_dmatrix(), sparse.csc_dmatrix()
    f = function([In(x, mutable=True), In(y, mutable=True)], (x + y) + (x + y))
    m = sp.csc_matrix(np.eye(3))
    once = f(m, m).toarray()
    np.testing.assert_array_equal(once, f(m, m.copy()).toarray())
    np.testing.assert_array_equal(once, 4 * np.eye(3))
    np.testing.assert_array_equal(m.toarray(), np.eye(3))


def test_shared_sparse_variables():
    m = _matrix("csr")
    s = oxtensor.shared(m, name="s")
    assert isinstance(s, sparse.SparseTensorSharedVariable)
    assert s.type == SparseTensorType("csr", "float64")
    assert not may_share_memory(m, s.get_value(borrow=True))
    assert may_share_memory(s.get_value(borrow=True), s.container.storage[0])
    assert not may_share_memory(s.get_value(), s.container.storage[0])
    f = function([], sparse.dense_from_sparse(s + s), updates=[(s, s + s)])
    np.testing.assert_array_equal(f(), 2 * m.toarray())
    np.testing.assert_array_equal(s.get_value().toarray(), 2 * m.toarray())
    s.set_value(_matrix("csr", "float32"))
    assert s.get_value().dtype == np.float64
    with pytest.raises(TypeError, match="csr matrix, got csc"):
        s.set_value(_matrix("csc"))
    borrowed = oxtensor.shared(m, borrow=True)
    assert borrowed.get_value(borrow=True) is m


def test_out_of_scope_names_and_operators_say_so():
    x = sparse.csc_dmatrix("x")
    with pytest.raises(
        AttributeError, match=r"oxtensor\.sparse has no 'structured_dot'"
    ):
        sparse.structured_dot  # noqa: B018
    with pytest.raises(
        NotImplementedError, match="multiplication of the sparse variable x"
    ):
        x * 2
    with pytest.raises(NotImplementedError, match="indexing"):
        x[0]
    with pytest.raises(TypeError, match="neither"):
        sparse.add(ot.dmatrix(), ot.dmatrix())


def test_may_share_memory():
    a = np.zeros(4)
    assert may_share_memory(a, a[1:])
    assert not may_share_memory(a, np.zeros(4))
    m = _matrix()
    view = sp.csc_matrix((m.data, m.indices, m.indptr), shape=m.shape, copy=False)
    assert may_share_memory(m, view)
    assert may_share_memory(view, m.data)
    with pytest.raises(TypeError, match=r"ndarrays and scipy\.sparse"):
        may_share_memory(a, [1, 2])
    assert may_share_memory(a, [1, 2], raise_other_type=False) is False
