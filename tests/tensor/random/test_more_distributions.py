"""The distributions of `oxtensor.tensor.random.more`: draws against NumPy's
or SciPy's from a generator seeded alike, batched Dirichlet, multivariate
normal and choice without replacement, and the helpers PyTensor's tests
call (``rng_fn(..., size=)``, ``size_param``, ``_infer_shape``)."""

from copy import deepcopy

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.random import basic as rb

stats = pytest.importorskip("scipy.stats")

SEED = 20261130


def draw(rv, *params, **kwargs):
    rng = np.random.default_rng(SEED)
    return rv(*params, rng=oxtensor.shared(rng), **kwargs).eval()


def generator():
    return np.random.default_rng(SEED)


def scipy_draw(name, *params, **kwargs):
    """SciPy's draws of ``name`` from a Generator."""
    return lambda g: getattr(stats, name).rvs(*params, **kwargs, random_state=g)


# (op, params, size, reference drawing from a Generator)
SCIPY = [
    (rb.gumbel, (1.0, 2.0), (3,), scipy_draw("gumbel_r", 1.0, 2.0, size=(3,))),
    (rb.cauchy, (1.0, 2.0), (3,), scipy_draw("cauchy", 1.0, 2.0, size=(3,))),
    (
        rb.halfcauchy,
        (0.0, [1.0, 2.0]),
        None,
        scipy_draw("halfcauchy", 0.0, [1.0, 2.0], size=(2,)),
    ),
    (rb.halfnormal, (1.0, 3.0), (2, 2), scipy_draw("halfnorm", 1.0, 3.0, size=(2, 2))),
    (rb.t, (4.0, 1.0, 2.0), (5,), scipy_draw("t", 4.0, 1.0, 2.0, size=(5,))),
    (
        rb.truncexpon,
        (2.0, 0.5, 1.5),
        (4,),
        scipy_draw("truncexpon", 2.0, 0.5, 1.5, size=(4,)),
    ),
    (rb.invgamma, (3.0, 2.0), (4,), scipy_draw("invgamma", 3.0, scale=2.0, size=(4,))),
    (rb.pareto, (0.5, 3.0), (4,), scipy_draw("pareto", 0.5, scale=3.0, size=(4,))),
    (
        rb.betabinom,
        (10, 2.0, 3.0),
        (6,),
        scipy_draw("betabinom", 10, 2.0, 3.0, size=(6,)),
    ),
    (
        rb.gengamma,
        (2.0, 1.5, 3.0),
        (4,),
        scipy_draw("gengamma", 2.0 / 1.5, 1.5, scale=3.0, size=(4,)),
    ),
    (
        rb.triangular,
        (1.0, 2.0, 5.0),
        (3,),
        lambda g: g.triangular(1.0, 2.0, 5.0, size=(3,)),
    ),
    (rb.vonmises, (0.5, 2.0), (3,), lambda g: g.vonmises(0.5, 2.0, size=(3,))),
    (rb.wald, (1.0, 2.0), (3,), lambda g: g.wald(1.0, 2.0, size=(3,))),
    (rb.weibull, (2.0,), (3,), lambda g: g.weibull(2.0, size=(3,))),
    (
        rb.hypergeometric,
        (7, 5, 4),
        (5,),
        lambda g: g.hypergeometric(7, 5, 4, size=(5,)),
    ),
    (rb.nbinom, (5, 0.3), (5,), lambda g: g.negative_binomial(5, 0.3, size=(5,))),
]


@pytest.mark.parametrize(
    ("rv", "params", "size", "reference"), SCIPY, ids=lambda v: getattr(v, "name", None)
)
def test_draws_match_the_reference(rv, params, size, reference):
    got = draw(rv, *params, size=size)
    expected = np.asarray(reference(generator()))
    assert got.shape == expected.shape
    assert got.dtype.kind == expected.dtype.kind
    np.testing.assert_allclose(got, expected)


def test_rayleigh_is_scipys():
    got = draw(rb.rayleigh, scale=np.array([1.0, 4.0]))
    expected = stats.rayleigh.rvs(scale=[1.0, 4.0], size=(2,), random_state=generator())
    np.testing.assert_allclose(got, expected)


def test_dirichlet_batches_sum_to_one_and_follow_alphas():
    alphas = np.array([[100.0, 1.0, 1.0], [1.0, 1.0, 100.0]])
    got = draw(rb.dirichlet, alphas, size=(50, 2))
    assert got.shape == (50, 2, 3)
    np.testing.assert_allclose(got.sum(-1), 1.0)
    assert (got[:, 0, 0] > 0.8).all()
    assert (got[:, 1, 2] > 0.8).all()
    with pytest.raises(ValueError, match="could not be broadcast"):
        rb.dirichlet.rng_fn(None, alphas, size=(10, 3))


@pytest.mark.parametrize("method", ["cholesky", "svd", "eigh"])
def test_multivariate_normal_moments(method):
    mean = np.array([1.0, 2.0, 4.0])
    cov = np.array([[1.0, 0.5, -1.0], [0.5, 2.0, 0.0], [-1.0, 0.0, 3.0]])
    rv = rb.multivariate_normal(
        mean, cov, size=(20000,), method=method, rng=oxtensor.shared(generator())
    )
    assert rv.owner.op.method == method
    got = rv.eval()
    np.testing.assert_allclose(got.mean(0), mean, atol=0.05)
    np.testing.assert_allclose(np.cov(got, rowvar=False), cov, atol=0.1)


def test_multivariate_normal_cholesky_is_numpys():
    mean = np.array([0.0, 1.0, 2.0])
    cov = np.diag([1.0, 10.0, 100.0])
    got = draw(rb.multivariate_normal, mean, cov, size=(3,))
    g = generator()
    expected = np.stack(
        [g.multivariate_normal(mean, cov, method="cholesky") for _ in range(3)]
    )
    np.testing.assert_allclose(got, expected)
    with pytest.raises(np.linalg.LinAlgError):
        draw(rb.multivariate_normal, mean, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="Unknown method"):
        rb.MvNormalRV(method="qr")


def test_choice_without_replacement_batched():
    op = rb.ChoiceWithoutReplacement(
        signature="(a0,a1),(a0),(1)->(s0,a1)", dtype="int64"
    )
    a = np.arange(4 * 5 * 2).reshape((4, 5, 2))
    p = np.array([0.0, 0.25, 0.25, 0.25, 0.25])
    rv = op(a, p, (3,), size=(2, 4), rng=oxtensor.shared(generator()))
    assert rv.type.shape == (2, 4, 3, 2)
    got = rv.eval()
    assert got.shape == (2, 4, 3, 2)
    for j in range(2):
        for i in range(4):
            rows = got[j, i]
            assert len({tuple(r) for r in rows}) == 3
            assert ((rows >= i * 10 + 2) & (rows < (i + 1) * 10)).all()
    implicit = rb.ChoiceWithoutReplacement(signature="(),(1)->(s0)", dtype="int64")
    got = implicit(6, (6,), rng=oxtensor.shared(generator())).eval()
    assert sorted(got) == list(range(6))


def test_pytensor_helpers():
    x = ot.dvector("x")
    rv = rb.normal(x, 1.0, size=(2, x.shape[0]))
    assert rv.owner.op.size_param(rv.owner) is rv.owner.inputs[1]
    shape = rb.normal._infer_shape(rv.owner.inputs[1], [x, 1.0])
    f = oxtensor.function([x], [ot.as_tensor_variable(n) for n in shape])
    assert [int(v) for v in f(np.zeros(5))] == [2, 5]
    with_keyword = rb.cauchy.rng_fn(generator(), 0.0, 1.0, size=(2,))
    np.testing.assert_allclose(
        with_keyword, stats.cauchy.rvs(0.0, 1.0, size=(2,), random_state=generator())
    )
    assert rb.broadcast_shapes((2, 1), (3,)) == (2, 3)
    assert ot.dmatrix().type.numpy_dtype == np.dtype("float64")
    assert deepcopy(rb.halfnormal) == rb.halfnormal
