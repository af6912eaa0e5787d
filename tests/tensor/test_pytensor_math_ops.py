"""PyTensor's math and BLAS names that its own test files use:
``ProdWithoutZeros``, ``Dot22``, ``Gemv`` (``blas_c.CGemv``), ``median``,
``complex_from_polar``, ``scalar.upcast`` and ``mean``'s dtypes, against
NumPy."""

import pickle

import numpy as np
import oxtensor
import oxtensor.scalar as ps
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import NullTypeGradError, verify_grad
from oxtensor.tensor import blas, blas_c
from oxtensor.tensor.math import ProdWithoutZeros, complex_from_polar, median


def test_prod_without_zeros_skips_zeros():
    x = ot.dmatrix("x")
    data = np.array([[1, 2, 3], [0, 5, 6], [0, 0, 9]], "float64")
    f = oxtensor.function(
        [x], [ProdWithoutZeros(axis=1)(x), ProdWithoutZeros(axis=0)(x)]
    )
    rows, cols = f(data)
    np.testing.assert_array_equal(rows, [6, 30, 9])
    np.testing.assert_array_equal(cols, [1, 10, 162])
    whole = oxtensor.function([x], ProdWithoutZeros()(x))(data)
    assert whole == 1 * 2 * 3 * 5 * 6 * 9


def test_prod_without_zeros_dtypes_and_props():
    p = ProdWithoutZeros(axis=0)(ot.matrix(dtype="int8"))
    assert p.dtype == "int64"
    assert p.owner.op.acc_dtype == "int64"
    assert str(p.owner.op) == "ProdWithoutZeros{axis=0}"
    f32 = ProdWithoutZeros(axis=1, dtype="float32")(ot.imatrix())
    assert f32.dtype == "float32"
    with pytest.raises(TypeError, match="acc_dtype"):
        ProdWithoutZeros(acc_dtype="int8")(ot.dmatrix())
    op = ProdWithoutZeros(axis=1)
    assert isinstance(op, ot.elemwise.CAReduce)
    assert op == ProdWithoutZeros(axis=1)
    assert op != ot.math.Prod(axis=1)
    assert pickle.loads(pickle.dumps(p.owner.op)) == p.owner.op


def test_prod_without_zeros_gradient_is_undefined():
    x = ot.dmatrix("x")
    with pytest.raises(NullTypeGradError):
        oxtensor.grad(ProdWithoutZeros(axis=0)(x).sum(), x)


def test_dot22_multiplies_matrices_only():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    out = blas.Dot22()(x, y)
    assert out.type.ndim == 2
    np.testing.assert_allclose(oxtensor.function([x, y], out)(a, b), a @ b)
    verify_grad(blas.Dot22(), [a, b], rng=rng)
    with pytest.raises(TypeError, match="matrices"):
        blas.Dot22()(x, ot.dvector())


def test_gemv_values_and_beta_zero():
    rng = np.random.default_rng(2)
    yv, av, xv = rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=4)
    y, a, x = ot.dvector("y"), ot.dmatrix("a"), ot.dvector("x")
    alpha, beta = ot.dscalar("alpha"), ot.dscalar("beta")
    out = blas.Gemv(inplace=False)(y, alpha, a, x, beta)
    f = oxtensor.function([y, alpha, a, x, beta], out)
    np.testing.assert_allclose(f(yv, 0.5, av, xv, 2.0), 2.0 * yv + 0.5 * av @ xv)
    # beta == 0 ignores y, NaNs too (BLAS's rule).
    got = f(np.full(3, np.nan), 1.0, av, xv, 0.0)
    np.testing.assert_allclose(got, av @ xv)
    with pytest.raises(ValueError, match="shapes"):
        f(yv, 1.0, av, np.ones(5), 1.0)
    with pytest.raises(TypeError):
        blas.Gemv(False)(y, alpha, a, ot.fvector(), beta)


def test_cgemv_is_gemv():
    assert blas_c.CGemv is blas.Gemv
    assert blas_c.cgemv_inplace.inplace
    assert not blas_c.cgemv_no_inplace.inplace
    assert blas.Gemv(True).destroy_map == {0: [0]}


@pytest.mark.parametrize(
    ("shape", "axis"),
    [((5, 4), None), ((4, 6), 1), ((3, 4, 5), (0, 2)), ((2, 3, 4, 5), (1, 3, 0))],
)
def test_median_matches_numpy(shape, axis):
    rng = np.random.default_rng(3)
    x = ot.tensor(dtype="float64", shape=(None,) * len(shape))
    f = oxtensor.function([x], median(x, axis=axis))
    for s in (shape, tuple(n + 1 for n in shape)):
        data = rng.random(s)
        np.testing.assert_allclose(f(data), np.median(data, axis=axis))


def test_median_of_integers_is_float_and_axis_checked():
    v = ot.lvector("v")
    m = median(v)
    assert m.dtype == "float64"
    assert oxtensor.function([v], m)(np.array([4, 1, 3, 2])) == 2.5
    with pytest.raises(ValueError, match="out of bounds"):
        median(v, axis=1)


def test_complex_from_polar():
    r, t = ot.dvector("r"), ot.dvector("t")
    f = oxtensor.function([r, t], complex_from_polar(r, t))
    rv, tv = np.array([1.0, 2.0, 0.5]), np.array([0.0, 1.0, -2.0])
    np.testing.assert_allclose(f(rv, tv), rv * np.exp(1j * tv))
    assert complex_from_polar(ot.fvector(), ot.fvector()).dtype == "complex64"
    assert complex_from_polar(ot.ivector(), ot.ivector()).dtype == "complex128"
    with pytest.raises(TypeError, match="real"):
        complex_from_polar(ot.zvector(), ot.dvector())


def test_scalar_upcast_and_round_reference():
    assert ps.upcast("int8", "float32") == "float32"
    assert ps.upcast("int64", "float32") == "float64"
    assert ps.upcast("uint8", "int8", "bool") == "int16"
    with oxtensor.config.change_flags(cast_policy="numpy+floatX", floatX="float32"):
        assert ps.upcast("int64", "float32") == "float32"
        assert ps.upcast("float64", "int8") == "float64"
    a = np.array([-2.5, -0.5, 0.5, 1.5, 2.4], "float32")
    got = ps.round_half_away_from_zero_vec(a)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [-3, -1, 1, 2, 2])


@pytest.mark.parametrize("axis", [None, ()])
@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float32", "complex64"])
def test_mean_dtype_is_the_sums(axis, dtype):
    x = ot.matrix(dtype="int64")
    m = x.mean(dtype=dtype, axis=axis)
    want = "float64" if dtype in ("bool", "int8") else dtype
    assert m.dtype == want
    data = np.ones((2, 1), "int64")
    expected = np.array(2).astype(dtype) / 2 if axis is None else data
    np.testing.assert_allclose(oxtensor.function([x], m)(data), expected)


def test_mean_over_no_axes_is_float():
    assert ot.imatrix().mean(axis=[]).dtype == "float64"
    assert ot.fmatrix().mean(axis=[]).dtype == "float32"
